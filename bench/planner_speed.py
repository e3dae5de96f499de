"""Planner speed, and memcore's whole answer vs TFLM's own allocation, in one run.

1. memcore.plan on 10,000 random buffers, both strategies.
2. load + plan("tflm") + plan("best") + tflm_arena on the largest model, end to end,
   next to TFLM's interpreter construction + AllocateTensors on the same file
   (tflite-micro in this process).  Not part of the test suite.

    python bench/planner_speed.py [--repeat 20]
"""
import argparse
import pathlib
import random
import statistics
import time

import memcore
from memcore import _lowlevel as _ll
from memcore.planner import STRATEGIES

ROOT = pathlib.Path(__file__).resolve().parent.parent


def timed(fn, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times), result


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()

    rng = random.Random(7)
    n = 10000
    first = [rng.randrange(n) for _ in range(n)]
    last = [f + rng.choice((0, 1, 2, 3, rng.randrange(50))) for f in first]
    sizes = [int(rng.lognormvariate(8, 1.5)) for _ in range(n)]
    print("memcore.plan, %d buffers (median / min of %d runs, incl. Python argument checks)"
          % (n, max(3, args.repeat // 4)))
    print("%-10s %12s %12s %12s %12s" % ("strategy", "median ms", "min ms", "arena B", "bound B"))
    for strategy in ("tflm", "best"):
        med, low, plan = timed(lambda: memcore.plan(sizes, first, last, strategy=strategy),
                               max(3, args.repeat // 4))
        print("%-10s %12.2f %12.2f %12d %12d" % (strategy, med * 1e3, low * 1e3, plan.arena_bytes,
                                                   plan.lower_bound_bytes))
        med, low, _ = timed(lambda: _ll.plan(STRATEGIES[strategy], sizes, first, last, 16,
                                             memcore.planner.DEFAULT_STEPS), max(3, args.repeat // 4))
        print("%-10s %12.2f %12.2f   (C core via the checked wrapper only)" % ("", med * 1e3, low * 1e3))

    largest = max((ROOT / "tests" / "models").glob("*.tflite"), key=lambda p: p.stat().st_size)

    def whole():
        model = memcore.load(largest)
        model.plan("tflm")
        model.plan("best")
        return memcore.tflm_arena(model)

    print()
    print("End to end on the largest model, %s (%d bytes), %d runs" % (largest.name, largest.stat().st_size,
                                                                      args.repeat))
    print("%-52s %10s %10s %12s" % ("what", "median ms", "min ms", "arena B"))
    med, low, arena = timed(whole, args.repeat)
    print("%-52s %10.2f %10.2f %12d" % ("memcore load + plan tflm + plan best + tflm_arena", med * 1e3,
                                        low * 1e3, arena.total_bytes))
    model = memcore.load(largest)
    for name, fn in (("  memcore.load", lambda: memcore.load(largest)),
                     ("  model.plan('tflm')", lambda: model.plan("tflm")),
                     ("  model.plan('best')", lambda: model.plan("best")),
                     ("  memcore.tflm_arena", lambda: memcore.tflm_arena(model))):
        m, lo, _ = timed(fn, args.repeat)
        print("%-52s %10.2f %10.2f" % (name, m * 1e3, lo * 1e3))
    try:
        from tflite_micro.python.tflite_micro import runtime
    except ImportError:
        print("%-52s %s" % ("TFLM interpreter construction + allocation", "tflite-micro not installed"))
        return
    data = largest.read_bytes()
    arena_size = arena.recommended_arena_bytes

    def tflm():
        return runtime.Interpreter.from_bytes(data, arena_size=arena_size)

    med_t, low_t, _ = timed(tflm, args.repeat)
    print("%-52s %10.2f %10.2f %12d" % ("TFLM Interpreter(...) construction + AllocateTensors", med_t * 1e3,
                                        low_t * 1e3, arena_size))
    print("ratio memcore end to end / TFLM allocation: %.2f (median)" % (med / med_t))


if __name__ == "__main__":
    main()
