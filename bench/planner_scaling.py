"""Planner scaling: CPU time of plan("tflm") and plan("best") from 100 to 100,000 buffers.

Four shapes of graph, each at 100 .. 100,000 buffers: a chain of operators, residual
blocks (every block input read again at its add), U-Net-like (nested skips, each
encoder level read back by its decoder level) and random (mostly short lifetimes, some
up to 50 operators).  For each: CPU time (process_time, the median of several runs) of
memcore.plan, the user's call, and of the C core alone (the same call with the argument
arrays already built); the ratio best / tflm; growth exponents fitted over the sizes
(log time against log n, least squares) from 10k to 100k and over the whole range; and
the arenas against the lower bound.  Then loading a generated 100,000-tensor TFLite
model and a 100,000-node ONNX chain with memcore.load (each in a subprocess, stopped
after --load-timeout seconds).  Not part of the test suite.

    python bench/planner_scaling.py [--max-n 100000] [--repeat 5] [--load-timeout 300]
"""
import argparse
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

import memcore
from memcore._memcore import ffi, lib

SIZES = (100, 300, 1000, 3000, 10000, 30000, 100000)


# ---- graph shapes: (sizes, first_use, last_use) ----------------------------------------

def chain(n, rng):
    return [int(rng.lognormvariate(9, 1.0)) for _ in range(n)], list(range(n)), [i + 1 for i in range(n)]


def residual(n, rng, block=3):
    sizes, first, last = [], [], []
    t = 0
    while len(sizes) < n:
        width = int(rng.lognormvariate(9, 0.7))
        sizes.append(width), first.append(t), last.append(t + block + 1)  # the block input, read at the add
        for k in range(block):
            sizes.append(int(width * rng.choice((0.5, 1, 2)))), first.append(t + 1 + k), last.append(t + 2 + k)
        t += block + 1
    return sizes[:n], first[:n], last[:n]


def unet(n, rng, depth=4, per_level=2):
    sizes, first, last = [], [], []
    t = 0
    while len(sizes) < n:
        base = int(rng.lognormvariate(10, 0.5))
        skips = []
        for d in range(depth):
            for _ in range(per_level):
                sizes.append(base >> d), first.append(t), last.append(t + 1)
                t += 1
            skips.append(len(sizes) - 1)
        for d in reversed(range(depth)):
            for _ in range(per_level):
                sizes.append(base >> d), first.append(t), last.append(t + 1)
                t += 1
            last[skips[d]] = t  # the skip lives until its decoder level reads it
        t += 1
    return sizes[:n], first[:n], last[:n]


def random_graph(n, rng):
    first = [rng.randrange(n) for _ in range(n)]
    last = [f + rng.choice((0, 1, 2, 3, rng.randrange(50))) for f in first]
    return [int(rng.lognormvariate(8, 1.5)) for _ in range(n)], first, last


SHAPES = {"chain": chain, "residual": residual, "unet": unet, "random": random_graph}


# ---- timing ----------------------------------------------------------------------------

def cpu(fn, repeat):
    times = []
    for _ in range(repeat):
        start = time.process_time()
        result = fn()
        times.append(time.process_time() - start)
    return statistics.median(times), result


def core_call(sizes, first, last, strategy):
    """The C core alone: argument arrays built once, then only mc_plan is timed."""
    n = len(sizes)
    need = ffi.new("int64_t *")
    lib.mc_plan_scratch_bytes(n, need)
    scratch = ffi.new("int64_t[]", max(1, (need[0] + 7) // 8))
    c_sizes, c_first, c_last = ffi.new("int64_t[]", sizes), ffi.new("int32_t[]", first), ffi.new("int32_t[]", last)
    offsets, out = ffi.new("int64_t[]", max(1, n)), ffi.new("mc_plan_t *")

    def call():
        rc = lib.mc_plan(strategy, c_sizes, c_first, c_last, n, 16, lib.MC_PLAN_DEFAULT_STEPS, scratch, need[0],
                         offsets, out)
        assert rc == lib.MC_OK, rc
        return out.arena_bytes
    return call


def exponent(points):
    """Least-squares slope of log(time) against log(n)."""
    xs = [math.log(n) for n, t in points if t > 0]
    ys = [math.log(t) for n, t in points if t > 0]
    if len(xs) < 2:
        return float("nan")
    mx, my = statistics.mean(xs), statistics.mean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


# ---- loading big models ----------------------------------------------------------------

LOAD = r'''
import sys, time
import memcore
start = time.process_time()
model = memcore.load(sys.argv[1])
loaded = time.process_time() - start
start = time.process_time()
plan = model.plan("tflm")
planned = time.process_time() - start
print("%d %.3f %.3f %d" % (len(model.tensors), loaded, planned, plan.arena_bytes))
'''


def tflite_chain(path, n_tensors, rng):
    """A TFLite flatbuffer: n_tensors float32 activations, RELU from each to the next."""
    import flatbuffers
    from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema
    model = schema.ModelT()
    model.version = 3
    model.buffers = [schema.BufferT()]
    code = schema.OperatorCodeT()
    code.builtinCode = code.deprecatedBuiltinCode = schema.BuiltinOperator.RELU
    model.operatorCodes = [code]
    g = schema.SubGraphT()
    g.tensors = []
    for i in range(n_tensors):
        t = schema.TensorT()
        t.name, t.shape, t.type, t.buffer = "t%d" % i, [1, 4 * rng.randint(1, 64)], schema.TensorType.FLOAT32, 0
        g.tensors.append(t)
    g.operators = []
    for i in range(n_tensors - 1):
        o = schema.OperatorT()
        o.opcodeIndex, o.inputs, o.outputs = 0, [i], [i + 1]
        g.operators.append(o)
    g.inputs, g.outputs = [0], [n_tensors - 1]
    model.subgraphs = [g]
    b = flatbuffers.Builder(1 << 20)
    b.Finish(model.Pack(b), file_identifier=b"TFL3")
    with open(path, "wb") as f:
        f.write(b.Output())


def onnx_chain(path, n_nodes, rng):
    from onnx import TensorProto, helper
    nodes = [helper.make_node("Relu", ["t%d" % i], ["t%d" % (i + 1)]) for i in range(n_nodes)]
    width = 4 * rng.randint(1, 64)
    graph = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("t0", TensorProto.FLOAT, [1, width])],
                              [helper.make_tensor_value_info("t%d" % n_nodes, TensorProto.FLOAT, [1, width])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    with open(path, "wb") as f:
        f.write(model.SerializeToString())


def time_load(path, timeout):
    try:
        out = subprocess.run([sys.executable, "-c", LOAD, path], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "stopped after %d s" % timeout
    if out.returncode != 0:
        return "failed: " + (out.stderr.strip().splitlines() or ["?"])[-1]
    tensors, loaded, planned, arena = out.stdout.split()
    return "%s tensors: load %.2f s CPU, then plan('tflm') %.3f s, arena %s B" % (tensors, float(loaded),
                                                                               float(planned), arena)


# ---- main --------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-n", type=int, default=100000)
    ap.add_argument("--repeat", type=int, default=5, help="runs per point at 10k buffers and more (more below)")
    ap.add_argument("--load-timeout", type=int, default=300)
    ap.add_argument("--no-load", action="store_true")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    sizes = [n for n in SIZES if n <= args.max_n]
    rng = random.Random(args.seed)

    print("CPU seconds: memcore.plan (the user's call) and the C core alone; best with the default budget "
          "of %d steps" % lib.MC_PLAN_DEFAULT_STEPS)
    head = "%-9s %7s %9s | %9s %9s %6s | %9s %9s %6s | %9s %9s %9s %6s" % (
        "shape", "n", "pairs", "tflm s", "best s", "b/t", "core tflm", "core best", "b/t", "lower B", "tflm B",
        "best B", "proven")
    print(head)
    print("-" * len(head))
    results = {}
    for shape, make in SHAPES.items():
        for n in sizes:
            s, f, l = make(n, rng)
            repeat = args.repeat if n >= 10000 else args.repeat * 4
            t_tflm, p_tflm = cpu(lambda: memcore.plan(s, f, l, strategy="tflm"), repeat)
            t_best, p_best = cpu(lambda: memcore.plan(s, f, l, strategy="best"), repeat)
            c_tflm, _ = cpu(core_call(s, f, l, lib.MC_PLAN_TFLM), repeat)
            c_best, _ = cpu(core_call(s, f, l, lib.MC_PLAN_BEST), repeat)
            pairs = p_tflm.steps - n
            results[shape, n] = (t_tflm, t_best, c_tflm, c_best)
            print("%-9s %7d %9d | %9.4f %9.4f %6.2f | %9.4f %9.4f %6.2f | %9d %9d %9d %6s" % (
                shape, n, pairs, t_tflm, t_best, t_best / t_tflm, c_tflm, c_best, c_best / max(c_tflm, 1e-9),
                p_tflm.lower_bound_bytes, p_tflm.arena_bytes, p_best.arena_bytes, p_best.proven_optimal))

    print()
    print("Growth exponents (time ~ n^k), fitted from 10k to 100k and over all sizes")
    print("%-9s %12s %12s %12s %12s | %14s %14s" % ("shape", "tflm 10k+", "best 10k+", "tflm all", "best all",
                                                    "max b/t plan", "max b/t core"))
    worst_plan = worst_core = 0.0
    for shape in SHAPES:
        big = [n for n in sizes if n >= 10000]
        ks = []
        for which in (0, 1):
            ks.append(exponent([(n, results[shape, n][which]) for n in big]))
        for which in (0, 1):
            ks.append(exponent([(n, results[shape, n][which]) for n in sizes]))
        ratio_plan = max(results[shape, n][1] / results[shape, n][0] for n in sizes)
        ratio_core = max(results[shape, n][3] / max(results[shape, n][2], 1e-9) for n in sizes)
        worst_plan, worst_core = max(worst_plan, ratio_plan), max(worst_core, ratio_core)
        print("%-9s %12.2f %12.2f %12.2f %12.2f | %14.2f %14.2f" % (shape, ks[0], ks[1], ks[2], ks[3], ratio_plan,
                                                                      ratio_core))
    if ("chain", 100000) in results:
        k = exponent([(n, results["chain", n][0]) for n in sizes if n >= 10000])
        t = results["chain", 100000][0]
        print()
        print("tflm, 100k chain buffers: %.3f s CPU (target < 1 s), exponent 10k->100k %.2f (target <= 1.3); "
              "best / tflm at most %.2f through memcore.plan, %.2f in the core (target <= 3)"
              % (t, k, worst_plan, worst_core))

    if args.no_load:
        return
    print()
    print("memcore.load on generated models (CPU seconds, in a subprocess)")
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "chain100k.tflite")
        tflite_chain(path, 100000, rng)
        print("  TFLite, 100,000 tensors (%.1f MB): %s" % (os.path.getsize(path) / 1e6, time_load(path, args.load_timeout)))
        path = os.path.join(folder, "chain100k.onnx")
        onnx_chain(path, 100000, rng)
        print("  ONNX, 100,000-node chain (%.1f MB): %s" % (os.path.getsize(path) / 1e6, time_load(path, args.load_timeout)))


if __name__ == "__main__":
    main()
