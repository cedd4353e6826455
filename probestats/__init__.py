"""probestats: trustworthy statistics from counterfactual bias-probe logs."""

__version__ = "0.1.0"

from .errors import ProbestatsError, ReadError, ValidationError  # noqa: E402
from .io import Log, read_log  # noqa: E402
from .problems import Problem  # noqa: E402
from .schema import Checked, validate  # noqa: E402
from .paired import Analysis, analyze, item_table  # noqa: E402
from .power import NoiseModel, Plan, mdg_for_design, noise_model, plan_probe, power_sign_flip  # noqa: E402
