"""`memcore ops MODEL`: one row per operator, the one at the memory peak marked."""
import os

import memcore
from memcore import cli_options, jsonout
from memcore.basis import mark
from memcore.check import check
from memcore.render import LAYERS_NOTE, layers_table, work_words
from memcore.report import check_bases
from memcore.terminal import Out, escape
from memcore.units import format_bytes, format_seconds


def register(sub):
    p = cli_options.add_command(
        sub, "ops", "per-operator table of MODEL: output shape, MACs, weights, bytes live, time",
        """One row per operator in execution order: its output shape, MACs, weight bytes, the
activation bytes alive while it runs (and how many buffers), their share of TFLM's arena,
and its time on the device.  The operator at the peak, the most bytes alive at once, is
marked: no arena plan can be smaller than that.  Like STM32Cube.AI's analyze table,
torchinfo's summary and onnx-tool's per-layer CSV.""",
        ["memcore ops examples/kws_dscnn_int8.tflite",
         "memcore ops model.tflite --device cortex-m4 --kernels reference",
         "memcore ops model.onnx --json | jq '.layers[] | select(.is_peak)'"])
    p.add_argument("model", help=".tflite or .onnx model file")
    cli_options.add_device(p)
    cli_options.add_deployment(p)
    cli_options.add_units(p)
    cli_options.add_json(p, "the table (schema memcore.ops/1)")
    p.set_defaults(run=run)


def ops_json(model, profile, batch, kernels, placement, rows, request_seconds):
    tflm = model.plan("tflm")
    peak = next((r for r in rows if r.is_peak), None)
    return {
        "schema": jsonout.SCHEMAS["ops"], "model": os.path.basename(model.path), "device": profile.name,
        "memcore_version": memcore.__version__, "batch": batch, "kernels": kernels, "weights_placement": placement,
        "operators": len(rows), "macs": model.macs, "operations": model.operations,
        "weights_bytes": model.weight_bytes, "arena_tflm_bytes": tflm.arena_bytes,
        "arena_lower_bound_bytes": tflm.lower_bound_bytes, "peak_operator": peak.index if peak else None,
        "request_seconds": request_seconds,
        "layers": [r.to_json() for r in rows],
    }


def run(args):
    profile = cli_options.device_profile(args)
    model = memcore.load(args.model)
    placement = args.weights_in or profile.default_weights_placement()
    request = check(model, profile, args.batch, args.kernels, placement, suggest=False)
    kernels, rows = request.kernels, request.layers
    data = ops_json(model, profile, args.batch, kernels, placement, rows, request.latency.total_seconds)
    if args.json:
        jsonout.emit(data)
        return 0
    out = Out()
    out.print("[bold]%s[/]: %d operators, %s, %s of weights"
              % (escape(data["model"]), len(rows), work_words(model.macs, model.operations),
                 format_bytes(model.weight_bytes, args.si)))
    total = mark(format_seconds(data["request_seconds"]), check_bases(request)["latency"].get("total_seconds"))
    out.print("on %s, batch %d, %s kernels, weights in %s: %s per request, setup included"
              % (escape(profile.name), args.batch, kernels, placement, total))
    out.print(layers_table(out, [r.to_json() for r in rows], args.si))
    out.print("TFLM's plan %s; lower bound %s (the peak)." % (format_bytes(data["arena_tflm_bytes"], args.si),
                                                          format_bytes(data["arena_lower_bound_bytes"], args.si)))
    out.print(LAYERS_NOTE, markup=False)
    return 0
