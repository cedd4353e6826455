"""probestats: trustworthy statistics from counterfactual bias-probe logs."""

__version__ = "0.1.0"
