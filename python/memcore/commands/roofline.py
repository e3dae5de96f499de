"""`memcore roofline MODEL --device D`: where the model sits under the device's roof,
at the batches that mean something there; optionally drawn."""
import os

import memcore
from memcore import cli_options, jsonout
from memcore.basis import mark
from memcore.check import check, model_dtype
from memcore.ops import rates
from memcore.report import check_bases
from memcore.terminal import Out, escape
from memcore.units import format_ops_rate, format_rate, format_seconds


def batch_list(text):
    import argparse
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError("must be whole numbers separated by commas, got %r" % text) from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError("every batch must be at least 1, got %r" % text)
    return tuple(sorted(set(values)))


def register(sub):
    p = cli_options.add_command(
        sub, "roofline", "roofline of MODEL on a device: memory- or compute-bound, per batch",
        """How many operations MODEL does per byte it fetches (its arithmetic intensity), against
the device's machine balance: below it the device waits for memory, above it for
arithmetic.  One row per batch with its estimated time and, given a latency budget
(--max-latency, or your device file's), whether that is within it.  A microcontroller serves one stream, so only batch 1 is shown
there; elsewhere the batches up to 64 that fit its memory (--batches to choose).
--png draws the chart (.png, .jpg, .svg or .pdf).""",
        ["memcore roofline examples/kws_dscnn_int8.tflite --device esp32",
         "memcore roofline model.tflite --device esp32s3 --png roofline.png",
         "memcore roofline model.tflite --device cortex-m4 --json | jq '.points[].bound'"])
    p.add_argument("model", help=".tflite or .onnx model file")
    cli_options.add_device(p)
    cli_options.add_kernels(p)
    p.add_argument("--max-latency", type=cli_options.seconds_or_none, default=None, metavar="TIME",
                   help="the most one request may take, with its unit: 50ms, 0.05s (default: none, or the budget "
                        "your --device-file gives)")
    p.add_argument("--batches", type=batch_list, metavar="N,N,...",
                   help="batches to show (default: 1 on a microcontroller, else powers of two that fit)")
    cli_options.add_picture(p, "the chart")
    cli_options.add_json(p, "the points (schema memcore.roofline/1)")
    p.set_defaults(run=run)


def run(args):
    from memcore import plots   # matplotlib: about half a second to import

    if args.png:
        plots.picture_format(args.png)
    profile = cli_options.device_profile(args)
    model = cli_options.load_model(args)
    kernels = "reference" if model_dtype(model) == "float32" else args.kernels
    placement = profile.default_weights_placement()
    batches = args.batches or plots.meaningful_batches(model, profile, kernels, placement)
    bandwidth, ops_rate = rates(profile, kernels, placement, model)
    points = plots.roofline_points(model, profile, kernels, placement, batches)
    budget = profile.latency_budget_seconds if args.max_latency is None else args.max_latency
    # every batch's time rests on the same profile figures as batch 1's
    time_basis = check_bases(check(model, profile, 1, kernels, placement, suggest=False))["latency"]["total_seconds"]
    if args.png:
        plots.save(plots.roofline_figure(model, profile, kernels, placement, batches, budget), args.png)
    first = points[0][1]
    data = {
        "schema": jsonout.SCHEMAS["roofline"], "model": os.path.basename(model.path), "device": profile.name,
        "memcore_version": memcore.__version__, "kernels": kernels, "weights_placement": placement,
        "bandwidth_bytes_per_second": bandwidth, "ops_per_second": ops_rate,
        "machine_ops_per_byte": ops_rate / bandwidth, "ceiling": first.ceiling,
        "crossover_batch": first.crossover_batch, "latency_budget_seconds": budget or None,
        "latency_budget_from": ("--max-latency" if args.max_latency else "device file %s" % profile.origin)
        if budget else None,
        "streams_one_example": plots.streams_one_example(profile), "picture": args.png,
        "points": [{"batch": b, "intensity": r.intensity, "bound": r.bound, "total_seconds": t.total_seconds,
                    "fetch_seconds": t.fetch_seconds, "compute_seconds": t.compute_seconds,
                    "estimated_ops_per_second": rate,
                    "basis": {"total_seconds": time_basis, "estimated_ops_per_second": time_basis},
                    "within_latency_budget": t.total_seconds <= budget if budget else None}
                   for b, r, t, rate in points],
    }
    if args.json:
        jsonout.emit(data)
        return 0
    out = Out()
    out.print("[bold]%s[/] on [bold]%s[/] (%s kernels): roof %s memory, %s compute; machine balance %.3g "
              "operations per byte" % (escape(data["model"]), escape(profile.name), kernels, format_rate(bandwidth),
                                       format_ops_rate(ops_rate), data["machine_ops_per_byte"]))
    table = out.table(("batch", {"justify": "right"}), ("operations per byte", {"justify": "right"}),
                      ("bound", {}), ("time per request", {"justify": "right"}),
                      ("estimated rate", {"justify": "right"}),
                      *([("budget %s" % format_seconds(budget), {})] if budget else []))
    for p in data["points"]:
        table.add_row(str(p["batch"]), "%.3g" % p["intensity"], p["bound"],
                      mark(format_seconds(p["total_seconds"]), time_basis),
                      mark(format_ops_rate(p["estimated_ops_per_second"]), time_basis),
                      *(["within" if p["within_latency_budget"] else "over"] if budget else []))
    out.print(table)
    if data["crossover_batch"]:
        out.line("compute-bound from batch %d" % data["crossover_batch"])
    elif data["ceiling"] is not None and data["ceiling"] != float("inf"):
        out.line("memory-bound at every batch: the model's ceiling is %.3g operations per byte, under the machine "
                 "balance" % data["ceiling"])
    if data["streams_one_example"] and not args.batches:
        out.line("batch 1 only: a microcontroller serves one stream (--batches to choose others)")
    if args.png:
        out.line("wrote %s" % args.png)
    return 0
