"""How `memcore.load` scales on ONNX chains: CPU seconds per stage, side by side, 1k to 100k nodes.

    python bench/onnx_load.py [--sizes 1000,10000,100000]

A chain of Relu nodes (one activation in, one out, each [1, 16]) written to a temporary
file, then loaded three times (median).  Stages: onnx's protobuf parse and shape
inference (onnx's own work, the baseline), memcore's graph building (onnx_builder), and
the C graph validation (cgraph).  The growth exponent between consecutive sizes should
stay near 1 (linear); the importer refuses models past onnx_import.MAX_NODES.
"""
import argparse
import math
import os
import statistics
import tempfile
import time

import onnx
from onnx import TensorProto, helper, shape_inference

import memcore
from memcore import onnx_builder
from memcore.cgraph import from_model


def chain(n):
    nodes = [helper.make_node("Relu", ["t%d" % i], ["t%d" % (i + 1)]) for i in range(n)]
    graph = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("t0", TensorProto.FLOAT, [1, 16])],
                              [helper.make_tensor_value_info("t%d" % n, TensorProto.FLOAT, [1, 16])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()


def cpu(fn):
    start = time.process_time()
    result = fn()
    return time.process_time() - start, result


def stages(path, data):
    t_parse, proto = cpu(lambda: onnx.load_model_from_string(data))
    t_infer, proto = cpu(lambda: shape_inference.infer_shapes(proto, check_type=True, strict_mode=True,
                                                              data_prop=True))
    t_build, model = cpu(lambda: onnx_builder.Builder(path, proto.graph).model())
    t_validate, _ = cpu(lambda: from_model(model).validate(path))
    t_load, _ = cpu(lambda: memcore.load(path))
    return t_parse, t_infer, t_build, t_validate, t_load


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,3000,10000,30000,100000")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print("%8s %9s %9s %9s %9s %9s %10s %9s" % ("nodes", "parse s", "infer s", "build s", "check s", "load s",
                                               "us/node", "exponent"))
    previous = None
    with tempfile.TemporaryDirectory() as folder:
        for n in sizes:
            path = os.path.join(folder, "chain-%d.onnx" % n)
            data = chain(n)
            with open(path, "wb") as f:
                f.write(data)
            runs = [stages(path, data) for _ in range(3)]
            med = [statistics.median(r[i] for r in runs) for i in range(5)]
            exponent = "" if previous is None else "%.2f" % (math.log(med[4] / previous[1]) / math.log(n / previous[0]))
            print("%8d %9.3f %9.3f %9.3f %9.3f %9.3f %10.1f %9s" % (n, *med, 1e6 * med[4] / n, exponent))
            previous = (n, med[4])


if __name__ == "__main__":
    main()
