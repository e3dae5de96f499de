"""Planner quality: TFLM's greedy plan vs memcore's best vs the liveness lower bound.

Prints ratios (arena / lower bound) on every model in tests/models and examples, and on
random interval instances.  Not part of the test suite.

    python bench/planner_quality.py [--instances 3000] [--seed 1]
"""
import argparse
import pathlib
import random
import statistics

import memcore

ROOT = pathlib.Path(__file__).resolve().parent.parent


def models():
    seen = {}
    for folder in (ROOT / "tests" / "models", ROOT / "examples"):
        for path in sorted(folder.glob("*.tflite")) + sorted(folder.glob("*.onnx")):
            seen.setdefault(path.name, path)
    return list(seen.values())


def random_instance(rng):
    """Shapes like real graphs: mostly short-lived buffers, a few long skips, sizes over
    three orders of magnitude."""
    n = rng.randint(5, 200)
    steps = rng.randint(max(2, n // 4), n)
    sizes, first, last = [], [], []
    for _ in range(n):
        start = rng.randrange(steps)
        span = rng.choice((0, 1, 1, 1, 2, 3, rng.randrange(steps)))
        sizes.append(int(rng.lognormvariate(8, 1.5)))
        first.append(start)
        last.append(min(steps, start + span))
    return sizes, first, last


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--instances", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    print("Real models (arena bytes; ratio = arena / lower bound)")
    print("%-26s %9s %9s %9s %8s %8s %9s" % ("model", "bound", "tflm", "best", "tflm/lb", "best/lb", "best/tflm"))
    for path in models():
        model = memcore.load(path)
        tflm, best = model.plan("tflm"), model.plan("best")
        lb = tflm.lower_bound_bytes or 1
        print("%-26s %9d %9d %9d %8.4f %8.4f %9.4f" % (
            path.name, tflm.lower_bound_bytes, tflm.arena_bytes, best.arena_bytes,
            tflm.arena_bytes / lb, best.arena_bytes / lb, best.arena_bytes / max(1, tflm.arena_bytes)))

    rng = random.Random(args.seed)
    tflm_ratio, best_ratio, gain = [], [], []
    best_better = best_at_bound = tflm_at_bound = 0
    for _ in range(args.instances):
        sizes, first, last = random_instance(rng)
        tflm = memcore.plan(sizes, first, last, strategy="tflm")
        best = memcore.plan(sizes, first, last, strategy="best")
        lb = tflm.lower_bound_bytes
        assert lb <= best.arena_bytes <= tflm.arena_bytes
        tflm_ratio.append(tflm.arena_bytes / lb)
        best_ratio.append(best.arena_bytes / lb)
        gain.append(best.arena_bytes / tflm.arena_bytes)
        best_better += best.arena_bytes < tflm.arena_bytes
        best_at_bound += best.arena_bytes == lb
        tflm_at_bound += tflm.arena_bytes == lb

    def row(name, xs):
        xs = sorted(xs)
        print("%-18s %8.4f %8.4f %8.4f %8.4f %8.4f" % (
            name, statistics.mean(xs), xs[len(xs) // 2], xs[int(len(xs) * 0.9)], xs[int(len(xs) * 0.99)], xs[-1]))

    print()
    print("%d random interval instances (5-200 buffers), seed %d" % (args.instances, args.seed))
    print("%-18s %8s %8s %8s %8s %8s" % ("ratio", "mean", "median", "p90", "p99", "max"))
    row("tflm / bound", tflm_ratio)
    row("best / bound", best_ratio)
    row("best / tflm", gain)
    print("best < tflm on %d (%.1f %%); at the bound: tflm %d (%.1f %%), best %d (%.1f %%)" % (
        best_better, 100 * best_better / args.instances, tflm_at_bound, 100 * tflm_at_bound / args.instances,
        best_at_bound, 100 * best_at_bound / args.instances))


if __name__ == "__main__":
    main()
