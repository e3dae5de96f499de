#!/usr/bin/env python3
"""The check against the model's size: CPU time of the C check and of load + check, from
1,000 to 100,000 tensors or operators, with the growth exponent fitted over the sizes.

Eight shapes from tests/scaling_models.py: mnist_cnn_int8 plus N tensors no operator
touches (TFLM plans all of them together) or N constant tensors (weights, of rank 2 or
8), a chain of N RELUs after tiny_mlp_int8, N RELUs of tiny_mlp_int8's output that are
all graph outputs (every pair of them is live together, with different lifetimes: the
planner's n + P steps, refused past MC_PLAN_MAX_PAIRS), N dense layers with their
own weights and bias after tiny_mlp_int8's first, and operand lists N long (a PACK of N
copies of tiny_mlp_int8's output, or N empty intermediates of its first operator).
"C check" is mc_check_graph on the loaded graph, what a board runs; "load + check" is
memcore.load and memcore.check.check, what `memcore check` runs, less the process start
and the report.  Times are the median of --repeat runs (process_time).
The memory the board's check takes (check_scratch_bytes, one block) is printed beside
the recommended arena TFLM needs, as the esp32 deploys the model by default (the file
read a window at a time, then loaded): its ratio against the larger of that arena and
4 KiB, at most 1 the aim (a board that can run the model can check it), and against
what the model requires, which loads the whole file with the arena (TFLM reads the
file's tables and operand lists in place): at most 1 everywhere.  Then with the
weights in flash (the file mapped, its operand lists and shapes read in place, as
TFLM reads them): the check's block and its ratio against the larger of the arena,
all such a model requires, and 4 KiB.

    python bench/check_scaling.py [--max-n 100000] [--repeat 3]
"""
import argparse
import math
import os
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))

import memcore  # noqa: E402
import scaling_models  # noqa: E402
from memcore import _lowlevel as ll  # noqa: E402
from memcore.check import c_config, check  # noqa: E402
from memcore.profiles import profile  # noqa: E402

SIZES = (1000, 3000, 10000, 30000, 100000)
SHAPES = {"unused tensors": scaling_models.unused_tensors, "constant tensors": scaling_models.constant_tensors,
          "rank-8 constants": lambda n: scaling_models.constant_tensors(n, (1, 1, 1, 1, 1, 1, 2, 2)),
          "relu chain": scaling_models.relu_chain, "relu fan-out": scaling_models.fan_out,
          "dense chain": scaling_models.dense_chain, "packed copies": scaling_models.packed_copies,
          "intermediates": scaling_models.intermediates}


def seconds(fn, repeat):
    times = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return statistics.median(times)


def exponent(points):
    """Least-squares slope of log time against log n."""
    xs = [math.log(n) for n, t in points if t > 0]
    ys = [math.log(t) for n, t in points if t > 0]
    if len(xs) < 2:
        return float("nan")
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--max-n", type=int, default=100000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    esp32 = profile("esp32")
    print("%-16s %8s %10s %12s %14s %14s %12s  %7s  %10s  %14s  %7s" % (
        "shape", "n", "file KB", "C check s", "load+check s", "check scratch", "rec. arena", "÷ arena", "÷ required",
        "flash: scratch", "÷ arena"))
    with tempfile.TemporaryDirectory() as folder:
        for shape, make in SHAPES.items():
            c_points, all_points = [], []
            for n in [s for s in SIZES if s <= args.max_n]:
                path = os.path.join(folder, "%s-%d.tflite" % (shape.replace(" ", "-"), n))
                with open(path, "wb") as f:
                    f.write(make(n))
                try:
                    model = memcore.load(path)
                    config = c_config(model, esp32, "ram", 1, "optimised", None, False, None, False)
                    c_s = seconds(lambda: ll.check_graph(model.c_graph(), esp32.board(), config, path), args.repeat)
                    both = seconds(lambda: check(memcore.load(path), esp32, suggest=False), args.repeat)
                    r = check(model, esp32, suggest=False).to_json()
                    mapped = check(model, esp32, weights_placement="flash", suggest=False).to_json()
                except memcore.MemcoreError as exc:
                    print("%-16s %8d %10.0f  refused: %s" % (shape, n, os.path.getsize(path) / 1024,
                                                               str(exc).split(": ", 1)[1]))
                    continue
                c_points.append((n, c_s))
                all_points.append((n, both))
                arena = r["recommended_arena_bytes"]
                print("%-16s %8d %10.0f %12.4f %14.3f %14d %12d  %7.2f  %10.2f  %14d  %7.2f" % (
                    shape, n, os.path.getsize(path) / 1024, c_s, both, r["check_scratch_bytes"], arena,
                    r["check_scratch_bytes"] / max(arena, 4096), r["check_scratch_bytes"] / r["required_bytes"],
                    mapped["check_scratch_bytes"], mapped["check_scratch_bytes"] / max(arena, 4096)))
            big = [p for p in c_points if p[0] >= 10000]
            print("%-16s exponent, C check: %.2f over all sizes, %.2f from 10k; load+check: %.2f" % (
                shape, exponent(c_points), exponent(big), exponent(all_points)))
    print("(CPU seconds, median of %d; exponent: least-squares slope of log time on log n)" % args.repeat)


if __name__ == "__main__":
    main()
