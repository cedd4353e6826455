"""Time `probestats plan` as a user runs it: the tutorial's 3 x 3 grid, a 12-design plan, and two plans that were slow.

Each plan runs as a whole process (``python -m probestats plan ... --json``), on logs generated here of the
shapes the plans were slow on:

1. the tutorial's grid: ``--items 6,8,12 --runs 5,10,20`` on a same-versus-same log of the tutorial's stand-in
   (16 cells of 20 runs, steps = max(1, round(4 + 1.2 z)));
2. twelve designs at the default settings: ``--items 6,8,12 --runs 2,5,10,20`` on the same log;
3. ``--pilot LOG --items 40,126 --runs 10,50`` on a 0-100 rating with ties at round numbers (a noise log of
   126 items x 2 values x 5 runs, a pilot of 40 items x 2 values x 10 runs);
4. ``--items 200,1000,3840 --runs 1 --sims 500`` on a 0/1 noise log (200 items x 2 values x 3 runs);
5. ``--pilot LOG --gap 1.13 --items 12,20 --runs 1,2,5,10`` on negative-binomial counts whose gap grows with the
   item's rate: the noise log and the pilot of 20 items x 2 values x 5 runs that ``calibrate_promises.py``'s
   ``counts rate gap`` generator draws first (its MDG ranges over 19 resampled logs are most of the work).

With ``--peer PATH`` (a checkout of another version, such as the one before this change) every plan is also run
with that checkout's probestats, alternating with this one's in the same run, so the two share the machine's
load; a peer run longer than ``--peer-timeout`` seconds is stopped and shown as "> T". Each figure is the
median of ``--repeat`` runs, wall time and the CPU time of the child process; the load average is printed
before and after (the machine is shared). Each checkout runs with its bytecode, as an installed package has it (pip
compiles it at install; one untimed run writes it under a temporary PYTHONPYCACHEPREFIX): where
PYTHONDONTWRITEBYTECODE is set, every run would otherwise time Python compiling the package's source (about 0.4 s
of CPU). ``--source`` times that too, as before.

Run: python benchmarks/bench_plan_speed.py [--peer PATH] [--repeat 3] [--peer-timeout 120] [--only 1,2] [--source]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl

HERE = Path(__file__).resolve().parent.parent


def tutorial_noise(seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    y = np.maximum(1, np.round(4 + 1.2 * rng.standard_normal((8, 2, 20)))).astype(int)
    return pl.DataFrame({"item": np.repeat(np.arange(8), 40), "variant": np.tile(np.repeat(["formal", "formal again"], 20), 8),
                         "steps": y.ravel()})


def rating_logs(seed: int = 3) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A 0-100 rating: latent item means 35-85, sd 9, rounded to a multiple of 5 seven times in ten."""
    rng = np.random.default_rng(seed)

    def draw(mu, runs):
        x = mu[:, None] + 9.0 * rng.standard_normal((mu.size, runs))
        y = np.where(rng.random(x.shape) < 0.7, np.round(x / 5) * 5, np.round(x))
        return np.clip(y, 0, 100).astype(int)

    def log(items, runs, values, gap):
        mu = rng.uniform(35, 85, items)
        true = gap + (3.0 * rng.standard_normal(items) if gap else 0.0)
        a, b = draw(mu + true, runs), draw(mu, runs)
        y = np.concatenate([a, b], axis=1).ravel()
        return pl.DataFrame({"item": np.repeat(np.arange(items), 2 * runs),
                             "variant": np.tile(np.repeat(list(values), runs), items), "score": y})

    return log(126, 5, ("same", "same again"), 0.0), log(40, 10, ("female", "male"), 4.0)


def binary_noise(seed: int = 4) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    p = np.clip(0.3 + 0.15 * rng.standard_normal(200), 0.02, 0.98)
    y = (rng.random((200, 6)) < p[:, None]).astype(int)
    return pl.DataFrame({"item": np.repeat(np.arange(200), 6), "variant": np.tile(np.repeat(["same", "same again"], 3), 200),
                         "picked": y.ravel()})


def counts_logs() -> tuple[pl.DataFrame, pl.DataFrame]:
    """The ``counts rate gap`` generator's first noise log and pilot (``calibrate_promises.py``, log 0)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from calibrate_promises import generators

    gen = generators()["counts rate gap"]
    rng = np.random.default_rng([0, 0, len(gen.name), sum(map(ord, gen.name))])
    noise = gen.log(rng, *gen.noise_shape, ("same", "same again"), False)
    return noise, gen.log(rng, *gen.pilot_shape, ("a", "b"), True)


def cases(folder: Path) -> list[tuple[str, list[str]]]:
    tut = folder / "tutorial_noise.csv"
    tutorial_noise().write_csv(tut)
    noise, pilot = rating_logs()
    rn, rp = folder / "rating_noise.csv", folder / "rating_pilot.csv"
    noise.write_csv(rn)
    pilot.write_csv(rp)
    bn = folder / "binary_noise.csv"
    binary_noise().write_csv(bn)
    cn, cp = folder / "counts_noise.csv", folder / "counts_pilot.csv"
    counts_noise, counts_pilot = counts_logs()
    counts_noise.write_csv(cn)
    counts_pilot.write_csv(cp)
    return [
        ("tutorial 3 x 3", ["--noise", str(tut), "--metric", "steps", "--items", "6,8,12", "--runs", "5,10,20"]),
        ("12 designs", ["--noise", str(tut), "--metric", "steps", "--items", "6,8,12", "--runs", "2,5,10,20"]),
        ("rating, pilot, 40,126 x 10,50", ["--noise", str(rn), "--pilot", str(rp), "--metric", "score",
                                           "--items", "40,126", "--runs", "10,50"]),
        ("0/1, 200,1000,3840 x 1, 500 sims", ["--noise", str(bn), "--metric", "picked", "--items", "200,1000,3840",
                                              "--runs", "1", "--sims", "500"]),
        ("counts, pilot of 20, 12,20 x 1,2,5,10", ["--noise", str(cn), "--pilot", str(cp), "--metric", "x",
                                                  "--gap", "1.13", "--items", "12,20", "--runs", "1,2,5,10"]),
    ]


#: where the checkouts' bytecode is written (None: --source, every run compiles the source when the environment
#: sets PYTHONDONTWRITEBYTECODE)
PYCACHE: str | None = None


def run(checkout: Path, args: list[str], timeout: float) -> tuple[float, float, int | None]:
    """Wall and CPU seconds of one plan run with ``checkout``'s probestats, and its exit code (None: stopped)."""
    env = dict(os.environ, PYTHONPATH=str(checkout))
    if PYCACHE is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = PYCACHE
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "probestats", "plan", *args, "--json"], env=env, cwd=str(checkout),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        code = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        code = None
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, code


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peer", type=Path, help="a checkout of another version to time beside this one")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--peer-timeout", type=float, default=120.0)
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("--only", default="", help="comma-separated case numbers (1-5)")
    ap.add_argument("--source", action="store_true", help="time compiling the source too, where the environment "
                    "sets PYTHONDONTWRITEBYTECODE (as before bytecode was kept)")
    args = ap.parse_args()
    global PYCACHE
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        chosen = cases(Path(tmp))
        if not args.source:   # one untimed run per checkout writes its bytecode
            PYCACHE = str(Path(tmp) / "pycache")
            for checkout in [HERE] + ([args.peer] if args.peer else []):
                run(checkout, chosen[0][1][:4] + ["--items", "8", "--runs", "2", "--sims", "20"], args.timeout)
        print("timed with bytecode" if PYCACHE else "timed compiling the source where PYTHONDONTWRITEBYTECODE is set")
        if args.only:
            keep = {int(x) for x in args.only.split(",")}
            chosen = [c for i, c in enumerate(chosen, 1) if i in keep]
        print(f"{'plan':<38} {'this: wall':>11} {'cpu':>7}" + (f" {'peer: wall':>11} {'cpu':>7} {'ratio':>7}" if args.peer else ""))
        for name, plan_args in chosen:
            mine, peer = [], []
            for _ in range(args.repeat):
                mine.append(run(HERE, plan_args, args.timeout))
                if args.peer:
                    peer_args = plan_args
                    peer.append(run(args.peer, peer_args, args.peer_timeout))
            med = lambda rows, i: statistics.median(r[i] for r in rows)  # noqa: E731
            ok = all(r[2] == 0 for r in mine)
            line = f"{name:<38} {med(mine, 0):>10.1f}s {med(mine, 1):>6.1f}s" + ("" if ok else " (FAILED)")
            if args.peer:
                stopped = any(r[2] is None for r in peer)
                shown = f"> {args.peer_timeout:.0f}s" if stopped else f"{med(peer, 0):.1f}s"
                ratio = (f">{args.peer_timeout / med(mine, 0):.1f}x" if stopped else f"{med(peer, 0) / med(mine, 0):.1f}x")
                line += f" {shown:>11} {med(peer, 1):>6.1f}s {ratio:>7}"
            print(line, flush=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
