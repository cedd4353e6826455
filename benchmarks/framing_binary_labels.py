"""How often the yes/no framing analysis labels a planted binary model as planted.

For each kind, LOGS generated logs (``tests/framing_factory.make_yes_no_log``: one model,
3 languages x ITEMS/3 claims = ITEMS items, one answer per framing) are analyzed with the
defaults (alpha 0.05, Holm over the one cell) and the share of logs whose pattern is not
the planted one is printed, with its exact 95% Clopper-Pearson interval.

Kinds (yes to the claim, yes to its mirror):
  nay-saying  (0.3, 0.3)  acquiescence -0.4, no lean
  yea-saying  (0.7, 0.7)  acquiescence +0.4, no lean
  protective  (0.55, 0.05)  lean +0.5, acquiescence -0.4
  assertive   (0.95, 0.45)  lean +0.5, acquiescence +0.4
and, weaker, protective (0.6, 0.1) and assertive (0.9, 0.4): acquiescence -0.3 and +0.3.

For nay-saying and yea-saying a mislabel is mostly a lean found where there is none, which
the test allows at its level (at most 5%).

Run: python benchmarks/framing_binary_labels.py [--logs 200] [--items 60]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scipy.stats import binomtest  # noqa: E402

from probestats.analyses.framing import analyze_framing  # noqa: E402
from tests.framing_factory import make_yes_no_log  # noqa: E402

KINDS = {"nay-saying": (0.3, 0.3), "yea-saying": (0.7, 0.7), "protective": (0.55, 0.05), "assertive": (0.95, 0.45)}
#: weaker asymmetries (acquiescence -0.3 and +0.3), reported beside: detection is their limit
WEAKER = {"protective": (0.6, 0.1), "assertive": (0.9, 0.4)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--logs", type=int, default=200)
    ap.add_argument("--items", type=int, default=60)
    args = ap.parse_args()
    claims = args.items // 3
    print(f"{args.logs} logs per kind, {3 * claims} items, one answer per framing")
    for kind, (ya, yr) in [*KINDS.items(), *WEAKER.items()]:
        t = time.perf_counter()
        wrong = 0
        acq = 0.0
        for seed in range(args.logs):
            log = make_yes_no_log(models={"m": {"yes_affirmative": ya, "yes_reverse": yr}}, claims=claims,
                                  seed=seed)
            c = analyze_framing(log).cells[0]
            wrong += c.pattern != kind
            acq += c.acquiescence
        ci = binomtest(wrong, args.logs).proportion_ci(method="exact")
        print(f"{kind:<11} ({ya:g}, {yr:g}) mislabelled {wrong}/{args.logs} = {100 * wrong / args.logs:.1f}% "
              f"(95% CI {100 * ci.low:.1f}-{100 * ci.high:.1f}%); mean acquiescence {acq / args.logs:+.3f} "
              f"(planted {ya + yr - 1:+.1f}); {time.perf_counter() - t:.1f} s")


if __name__ == "__main__":
    main()
