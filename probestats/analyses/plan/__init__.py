"""Sizing a probe: the noise model, power of the sign-flip test, the minimum detectable gap.

One module per idea:

- :mod:`~probestats.analyses.plan.noise`: the noise model measured from a same-versus-same log;
- :mod:`~probestats.analyses.plan.heterogeneity`: the spread of true gaps, from a pilot;
- :mod:`~probestats.analyses.plan.mechanisms`: how a gap acts on the simulated runs;
- :mod:`~probestats.analyses.plan.simulate`: simulated probes of one design and the exact test's decisions;
- :mod:`~probestats.analyses.plan.search`: the minimum detectable gap of one design, and power solved for;
- :mod:`~probestats.analyses.plan.ranges`: the MDG's range over plausible noise logs, and a bound's room;
- :mod:`~probestats.analyses.plan.sizing`: the sizing question besides the test (:class:`Sizing`), and a pilot;
- :mod:`~probestats.analyses.plan.limits`: the work a plan may do, checked before it starts;
- :mod:`~probestats.analyses.plan.table`: the plan over a grid of designs, and a report's power curve.

The names below are the package's public ones.
"""

from probestats.analyses.plan.heterogeneity import TAU_METHOD, Heterogeneity, heterogeneity_from_pilot
from probestats.analyses.plan.limits import check_plan_work
from probestats.analyses.plan.mechanisms import Mechanisms, gap_model
from probestats.analyses.plan.noise import (BOUND_MIN_RUNS, BOUND_SHARE, POOL_MIN_RUNS, NoiseModel, differ_weight,
                                            noise_model)
from probestats.analyses.plan.ranges import (RANGE_METHOD, RANGE_SPREADS, DesignMDG, design_mdg, design_mdg_later,
                                             mdg_ranges,
                                             mdg_sim_error, mdg_with_range, mean_bounds, resampled_noise, room_left)
from probestats.analyses.plan.search import PowerResult, mdg_for_design, power_sign_flip
from probestats.analyses.plan.sizing import Pilot, Sizing
from probestats.analyses.plan.table import (DesignPower, MechanismResult, Plan, PlanCell, design_power, plan_probe,
                                            with_design_power)

__all__ = [
    "Sizing",
    "Pilot",
    "NoiseModel",
    "Heterogeneity",
    "Mechanisms",
    "MechanismResult",
    "PowerResult",
    "PlanCell",
    "Plan",
    "DesignPower",
    "DesignMDG",
    "noise_model",
    "heterogeneity_from_pilot",
    "power_sign_flip",
    "mdg_for_design",
    "mdg_with_range",
    "design_mdg",
    "design_mdg_later",
    "design_power",
    "with_design_power",
    "room_left",
    "mean_bounds",
    "mdg_ranges",
    "mdg_sim_error",
    "resampled_noise",
    "differ_weight",
    "plan_probe",
    "gap_model",
    "check_plan_work",
    "BOUND_SHARE",
    "BOUND_MIN_RUNS",
    "POOL_MIN_RUNS",
    "RANGE_METHOD",
    "RANGE_SPREADS",
    "TAU_METHOD",
]
