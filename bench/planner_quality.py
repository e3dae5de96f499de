"""Planner quality: memcore's arenas against an exact solver and against the lower bound.

1. Random instances (4 to --max-buffers buffers, 200 by default, four shapes, seeded): the
   optimum from Google OR-Tools' CP-SAT (a 2-D no-overlap model: lifetimes fixed on the
   time axis, offsets free on the byte axis, the arena minimised), solved independently
   of memcore; then TFLM's greedy plan and memcore's "best" (default step budget) against
   it, by shape and by size.  "best" must never be below the optimum and must reach it
   wherever it claims proven_optimal; the goal is the optimum on at least 99 %.  The
   time column is best's wall time per instance through memcore.plan.
2. Real models (the shared models, the examples, the conformance corpus): the buffers the check
   plans (tensors and kernel scratch, TFLM's lifetimes, host64 reference kernels), the
   lower bound, TFLM's greedy, "best" and its time (the least of three calls), and the
   CP-SAT optimum where it proves one.

    pip install ortools   # the bench's own dependency, not the package's
    python bench/planner_quality.py [--instances 500] [--max-buffers 200] [--seconds 10]
"""
import argparse
import glob
import os
import random
import statistics
import sys
import time

import memcore
from memcore import _lowlevel as ll
from memcore._memcore import lib
from memcore.targets import KERNELS, TARGETS

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ALIGNMENT = 16


def optimum(sizes, first, last, seconds):
    """(arena bytes, proven) from CP-SAT; sizes already aligned, in ALIGNMENT units."""
    from ortools.sat.python import cp_model
    m = cp_model.CpModel()
    units = [s // ALIGNMENT for s in sizes]
    upper = sum(units)
    arena = m.NewIntVar(0, upper, "arena")
    xs, ys = [], []
    for i, u in enumerate(units):
        if u == 0:
            continue
        y = m.NewIntVar(0, upper - u, "y%d" % i)
        xs.append(m.NewFixedSizeIntervalVar(first[i], last[i] - first[i] + 1, "x%d" % i))
        ys.append(m.NewFixedSizeIntervalVar(y, u, "iy%d" % i))
        m.Add(arena >= y + u)
    m.AddNoOverlap2D(xs, ys)
    m.Minimize(arena)
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = seconds
    solver.parameters.num_workers = 1  # the same answer on every machine
    status = solver.Solve(m)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None, False
    return int(solver.Value(arena)) * ALIGNMENT, status == cp_model.OPTIMAL


# ---- small instances ---------------------------------------------------------------

def instance(rng, n, shape):
    if shape == "random":
        first = [rng.randrange(n) for _ in range(n)]
        last = [f + rng.choice((0, 1, 2, rng.randrange(n))) for f in first]
    elif shape == "chain+skips":
        first = list(range(n))
        last = [i + (rng.randrange(2, 6) if rng.random() < 0.25 else 1) for i in range(n)]
    elif shape == "wide":
        first = [rng.randrange(4) for _ in range(n)]
        last = [f + rng.randrange(4) for f in first]
    else:  # "nested": U-Net-like, encoder levels read back by the decoder
        half = n // 2
        first = list(range(half)) + list(range(half, n))
        last = [n - i for i in range(half)] + [i + 1 for i in range(half, n)]
    sizes = [ALIGNMENT * rng.choice((1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64)) for _ in range(n)]
    return sizes, first, last


BANDS = ((4, 32), (33, 64), (65, 128), (129, 200))


def small(args):
    rng = random.Random(args.seed)
    shapes = ("random", "chain+skips", "wide", "nested")
    rows = {s: [] for s in shapes}
    seconds = []
    for k in range(args.instances):
        shape = shapes[k % len(shapes)]
        n = rng.randint(4, args.max_buffers)
        sizes, first, last = instance(rng, n, shape)
        opt, proven = optimum(sizes, first, last, args.seconds)
        tflm = memcore.plan(sizes, first, last, ALIGNMENT, strategy="tflm")
        start = time.perf_counter()
        best = memcore.plan(sizes, first, last, ALIGNMENT, strategy="best")
        seconds.append((n, time.perf_counter() - start))
        if opt is not None and proven and best.arena_bytes < opt:
            sys.exit("best below the CP-SAT optimum: %r" % ((sizes, first, last),))
        if opt is not None and proven and best.proven_optimal and best.arena_bytes != opt:
            sys.exit("best claims proven_optimal above the optimum: %r" % ((sizes, first, last),))
        rows[shape].append((n, tflm.lower_bound_bytes, tflm.arena_bytes, best.arena_bytes, best.proven_optimal,
                            opt if proven else None, best.steps))

    print("Small instances: CP-SAT optimum (%d s limit, 1 worker) against TFLM's greedy and memcore's best"
          % args.seconds)
    head = "%-12s %5s %8s %8s %9s %9s %9s %9s %9s %10s" % (
        "shape", "count", "solved", "best=opt", "proven", "tflm=opt", "tflm gap", "best gap", "worst", "best steps")
    print(head)
    print("-" * len(head))
    every = []
    for shape in shapes + ("all",):
        r = every if shape == "all" else rows[shape]
        if shape != "all":
            every.extend(r)
        solved = [x for x in r if x[5] is not None]
        best_opt = sum(x[3] == x[5] for x in solved)
        tflm_opt = sum(x[2] == x[5] for x in solved)
        tflm_gap = statistics.mean((x[2] - x[5]) / x[5] for x in solved) if solved else float("nan")
        best_gap = statistics.mean((x[3] - x[5]) / x[5] for x in solved) if solved else float("nan")
        worst = max(((x[3] - x[5]) / x[5] for x in solved), default=float("nan"))
        print("%-12s %5d %8d %8d %9d %9d %8.2f%% %8.2f%% %8.2f%% %10d" % (
            shape, len(r), len(solved), best_opt, sum(x[4] for x in r), tflm_opt, 100 * tflm_gap, 100 * best_gap,
            100 * worst, max(x[6] for x in r)))
    print()
    head = "%-10s %5s %8s %8s %7s %9s %9s %11s" % ("buffers", "count", "solved", "best=opt", "%", "proven",
                                                   "tflm=opt", "best ms max")
    print(head)
    print("-" * len(head))
    for lo, hi in BANDS + ((4, args.max_buffers),):
        if lo > args.max_buffers:
            continue
        r = [x for x in every if lo <= x[0] <= hi]
        solved = [x for x in r if x[5] is not None]
        best_opt = sum(x[3] == x[5] for x in solved)
        ms = max((t for n, t in seconds if lo <= n <= hi), default=0.0) * 1000
        print("%-10s %5d %8d %8d %6.1f%% %9d %9d %11.1f" % (
            "%d-%d" % (lo, hi), len(r), len(solved), best_opt, 100.0 * best_opt / max(1, len(solved)),
            sum(x[4] for x in r), sum(x[2] == x[5] for x in solved), ms))
    misses = [x for x in every if x[5] is not None and x[3] != x[5]]
    print("best at the proven optimum on %d of %d solved instances; %d above it"
          % (sum(1 for x in every if x[5] is not None) - len(misses), sum(1 for x in every if x[5] is not None),
             len(misses)))


# ---- real models -------------------------------------------------------------------

def models():
    """The shared models (tests/models), the examples and the conformance corpus."""
    seen = {}
    for folder in ("tests/models", "examples", "tests/corpus/models"):
        for path in sorted(glob.glob(os.path.join(ROOT, folder, "*.tflite"))):
            seen.setdefault(os.path.basename(path), path)
    return list(seen.values())


def real(args):
    print()
    print("Real models: the check's buffers (tensors and kernel scratch, host64 reference kernels)")
    head = "%-34s %6s %9s %9s %9s %6s %9s %8s %8s" % ("model", "bufs", "lower B", "tflm B", "best B", "proven",
                                                      "CP-SAT B", "tflm gap", "best ms")
    print(head)
    print("-" * len(head))
    slowest = (0.0, "")
    totals = {"models": 0, "tflm at bound": 0, "best at bound": 0, "best proven": 0, "best=opt": 0, "solved": 0}
    for path in models():
        try:
            model = memcore.load(path)
            sizes, first, last, _ = ll.tflm_buffers(model.c_graph(), TARGETS["host64"], KERNELS["reference"],
                                                    lib.MC_TFLM_ALLOW_UNKNOWN, path)
        except memcore.MemcoreError:
            continue  # control flow, offline plans: refused by the check too
        tflm = memcore.plan(sizes, first, last, ALIGNMENT, strategy="tflm")
        ms = float("inf")
        for _ in range(3):  # the least of three: a shared machine's pauses are not the planner's
            start = time.perf_counter()
            best = memcore.plan(sizes, first, last, ALIGNMENT, strategy="best")
            ms = min(ms, (time.perf_counter() - start) * 1000)
        slowest = max(slowest, (ms, os.path.basename(path)))
        aligned = [(s + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT for s in sizes]
        opt, proven = optimum(aligned, first, last, args.seconds) if len(sizes) <= args.max_exact else (None, False)
        totals["models"] += 1
        totals["tflm at bound"] += tflm.arena_bytes == tflm.lower_bound_bytes
        totals["best at bound"] += best.arena_bytes == best.lower_bound_bytes
        totals["best proven"] += best.proven_optimal
        if proven:
            totals["solved"] += 1
            totals["best=opt"] += best.arena_bytes == opt
            if best.arena_bytes < opt:
                sys.exit("%s: best below the CP-SAT optimum" % path)
        gap = (tflm.arena_bytes - tflm.lower_bound_bytes) / max(1, tflm.lower_bound_bytes)
        if args.all or tflm.arena_bytes != best.arena_bytes or not best.proven_optimal:
            print("%-34s %6d %9d %9d %9d %6s %9s %7.2f%% %8.2f" % (
                os.path.basename(path)[:34], len(sizes), tflm.lower_bound_bytes, tflm.arena_bytes, best.arena_bytes,
                best.proven_optimal, opt if proven else "-", 100 * gap, ms))
    print("(rows shown: models where best differs from TFLM's plan or is not proven; --all for every one)")
    print("%(models)d models: TFLM's plan at the lower bound on %(tflm at bound)d, best at the bound on "
          "%(best at bound)d, best proven optimal on %(best proven)d; CP-SAT proved an optimum on %(solved)d, "
          "best equal to it on %(best=opt)d" % totals)
    print("best's slowest model: %.2f ms (%s)" % slowest)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--instances", type=int, default=500)
    ap.add_argument("--max-buffers", type=int, default=200, help="largest random instance (buffers)")
    ap.add_argument("--seconds", type=float, default=10.0, help="CP-SAT time limit per instance")
    ap.add_argument("--max-exact", type=int, default=200, help="largest real model given to CP-SAT (buffers)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--all", action="store_true", help="a row for every real model")
    args = ap.parse_args()
    try:
        import ortools  # noqa: F401
    except ImportError:
        sys.exit("planner_quality.py needs OR-Tools for its exact solver: pip install ortools")
    small(args)
    real(args)


if __name__ == "__main__":
    main()
