"""probestats: trustworthy statistics from counterfactual bias-probe logs."""

__version__ = "0.1.0"

# Names are imported on first use (PEP 562), so ``import probestats`` stays cheap: reading and
# validating a log does not pay for scipy and statsmodels.
_EXPORTS = {
    "ProbestatsError": ".errors",
    "ReadError": ".errors",
    "ValidationError": ".errors",
    "Log": ".io.read",
    "read_log": ".io.read",
    "Problem": ".errors",
    "Checked": ".checks.schema",
    "validate": ".jobs.validate",
    "Analysis": ".analyses.paired",
    "analyze": ".jobs.analyze",
    "AnalysisResult": ".analyses.dispatch",
    "ManyAnalysis": ".analyses.many",
    "analyze_many": ".analyses.many",
    "FactorAnalysis": ".analyses.factors",
    "analyze_factors": ".analyses.factors",
    "analyze_judge": ".analyses.evaluator",
    "Comparison": ".analyses.compare",
    "NotComparableError": ".analyses.compare",
    "compare_runs": ".analyses.compare",
    "item_table": ".analyses.items",
    "TestResult": ".stats.hypotests",
    "Interval": ".stats.hypotests",
    "sign_flip_test": ".stats.hypotests",
    "sign_flip_pvalues": ".stats.hypotests",
    "sign_test": ".stats.hypotests",
    "min_attainable_p": ".stats.hypotests",
    "gap_interval": ".stats.hypotests",
    "NoiseModel": ".analyses.plan",
    "Plan": ".analyses.plan",
    "mdg_for_design": ".analyses.plan",
    "noise_model": ".analyses.plan",
    "plan_probe": ".analyses.plan",
    "power_sign_flip": ".analyses.plan",
    "FramingResult": ".analyses.framing_results",
    "analyze_framing": ".analyses.framing",
    "melt_wide": ".analyses.framing_input",
    "SCHEMA_VERSION": ".result",
    "adjust": ".stats.multitest",
    "JudgeResult": ".analyses.judge",
    "analyze_order": ".analyses.judge",
    "Probe": ".shape.probe",
    "Tests": ".vocabulary",
    "ParsedLabel": ".shape.labels",
    "report": ".jobs.report",
    "ReportJob": ".jobs.report",
    "plan": ".jobs.plan",
    "compare": ".jobs.compare",
    "framing": ".jobs.framing",
    "judge": ".jobs.judge",
    "describe": ".jobs.describe",
    "cells": ".jobs.cells",
    "CellTable": ".jobs.cells",
    "sql": ".jobs.sql",
    "serve": ".serve",
    "Description": ".analyses.describe",
    "ValueSummary": ".analyses.describe",
    "Coverage": ".shape.codebook",
    "TableTest": ".stats.contingency",
    "cohens_kappa": ".stats.agreement",
    "Kappa": ".stats.agreement",
    "Proportion": ".stats.agreement",
    "check_coding": ".analyses.validation",
    "CodingCheck": ".analyses.validation",
    "CorrectedGap": ".analyses.validation",
    "ValueAgreement": ".analyses.validation",
    "ValidatedAnalysis": ".analyses.validation",
    # the classes behind the results' attributes, each documented field by field
    "PairResult": ".analyses.pair_tests",
    "RowLevelTest": ".analyses.paired",
    "Effects": ".stats.effects",
    "EffectSize": ".stats.effects",
    "PublishedTest": ".stats.published",
    "MinP": ".stats.hypotests",
    "ManyResult": ".analyses.many",
    "ValueMean": ".analyses.many",
    "PairGap": ".analyses.many",
    "OmnibusResult": ".analyses.omnibus",
    "ImpactRatio": ".stats.selection",
    "Effect": ".analyses.factors",
    "FactorialAnalysis": ".analyses.factorial",
    "MetricsAnalysis": ".analyses.metrics",
    "JointFlip": ".stats.family",
    "PowerResult": ".analyses.plan",
    "PlanCell": ".analyses.plan",
    "Heterogeneity": ".analyses.plan",
    "Mechanisms": ".analyses.plan",
    "MechanismResult": ".analyses.plan",
    "FramingCell": ".analyses.framing_results",
    "LanguageResult": ".analyses.framing_results",
    "WrapperResult": ".analyses.framing_results",
    "LabelAudit": ".analyses.framing_results",
    "OrderGroup": ".analyses.judge",
    "RepetitionConsistency": ".analyses.judge",
    "Share": ".stats.proportion",
    "ScaleCheck": ".analyses.evaluator",
    "NoiseCheck": ".analyses.verdict",
    "Verdict": ".analyses.verdict",
    "Caveat": ".checks.design",
    "ControlComparison": ".analyses.control",
    "ControlTest": ".analyses.control",
    "compare_control": ".analyses.control",
    "Design": ".shape.design",
    "parse_label": ".shape.labels",
    "parse_labels": ".shape.labels",
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
