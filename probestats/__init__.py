"""probestats: trustworthy statistics from counterfactual bias-probe logs."""

__version__ = "0.1.0"

# Names are imported on first use (PEP 562), so ``import probestats`` stays cheap: reading and
# validating a log does not pay for scipy and statsmodels.
_EXPORTS = {
    "ProbestatsError": ".errors",
    "ReadError": ".errors",
    "ValidationError": ".errors",
    "Log": ".io",
    "read_log": ".io",
    "Problem": ".problems",
    "Checked": ".schema",
    "validate": ".schema",
    "Analysis": ".paired",
    "analyze": ".paired",
    "item_table": ".paired",
    "TestResult": ".hypotests",
    "Interval": ".hypotests",
    "sign_flip_test": ".hypotests",
    "sign_flip_pvalues": ".hypotests",
    "sign_test": ".hypotests",
    "min_attainable_p": ".hypotests",
    "gap_interval": ".hypotests",
    "NoiseModel": ".power",
    "Plan": ".power",
    "mdg_for_design": ".power",
    "noise_model": ".power",
    "plan_probe": ".power",
    "power_sign_flip": ".power",
    "FramingResult": ".framing",
    "analyze_framing": ".framing",
    "melt_wide": ".framing",
    "ParsedLabel": ".labels",
    "parse_label": ".labels",
    "parse_labels": ".labels",
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'probestats' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(__all__)
