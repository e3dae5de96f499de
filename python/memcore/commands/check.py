"""`memcore check MODEL`: will it fit on this device and meet its budgets, why, and what
would change that.

Exit status (memcore.exit_status): the verdict, 0 fits, 1 does not fit in memory or
flash, 3 fits but misses a budget the user gave; 2 bad input."""
from memcore import cli_options, exit_status, jsonout
from memcore.check import check
from memcore.quantise import as_int8
from memcore.render import terminal_report
from memcore.report import report_data
from memcore.terminal import Out


def register(sub):
    p = cli_options.add_command(
        sub, "check", "will MODEL fit on a device and meet its budgets (exit 0 fits, 1 memory or flash, "
                      "3 time or battery)",
        """Weights, activation arena, runtime overhead, flash, latency and energy of MODEL on one
device, every resource with its need, its limit and its margin, and the one that runs out
first.  When something does not fit, what would: each suggestion is this check run again
on the changed configuration, with the command line that runs it.  --layers adds the
per-operator table (operator, output shape, MACs, weights, bytes live while it runs, its
share of the arena, its time), with the peak marked.  Budgets are only the ones you give
(the options below, or your --device file's latency_budget_seconds); the report says
where each came from.""",
        ["memcore check examples/kws_dscnn_int8.tflite --device esp32",
         "memcore check model.tflite --device cortex-m4 --layers",
         "memcore check model.tflite --device esp32 --max-latency 50ms",
         "memcore check model.tflite --device esp32 --per-hour 60 --battery 2000mAh@3.7V --battery-life 30d",
         "memcore check model.onnx --input-shape input=1,3,96,96 --device esp32-psram --weights-in ram",
         "memcore check model.tflite --json | jq .limiting_resource",
         "memcore check model.tflite --device esp32 --available-bytes 90000 --json"],
        "`memcore check`: 0, 1 or 3 is the verdict.")
    p.add_argument("model", help=".tflite or .onnx model file")
    cli_options.add_device(p)
    cli_options.add_deployment(p)
    cli_options.add_budgets(p)
    p.add_argument("--layers", action="store_true", help="also print the per-operator table")
    cli_options.add_units(p)
    p.add_argument("--available-bytes", type=cli_options.byte_count, default=None, metavar="N",
                   help="what the board has free for the arena (e.g. the available_bytes its boot report "
                        "printed), instead of the profile's figure")
    p.add_argument("--as-int8", action="store_true",
                   help="check a float32 model as its int8 conversion would be (an estimate: every float32 "
                        "tensor int8, biases int32); a real converted file is better")
    p.add_argument("--memcore-plan", action="store_true",
                   help="plan the arena with memcore's planner (given to TFLM as offline-planned offsets) "
                        "instead of TFLM's own")
    p.add_argument("--allow-unknown-ops", action="store_true",
                   help="check models with operators TFLM does not run, as an upper bound")
    cli_options.add_input_shape(p)
    cli_options.add_json(p, "the report (schema memcore.report/1, docs/report-schema.md; always with the "
                            "per-operator rows)")
    p.set_defaults(run=run)




def run(args):
    profile = cli_options.device_profile(args)
    model = cli_options.load_model(args)
    if args.as_int8:
        model = as_int8(model)
    report = check(model, profile, args.batch, args.kernels, args.weights_in,
                   available_bytes=args.available_bytes, allow_unknown_ops=args.allow_unknown_ops,
                   budgets=cli_options.budgets(args), memcore_plan=args.memcore_plan,
                   device_file=getattr(args, "device_file", None))
    data = report_data(report, model)
    if args.json:
        jsonout.emit(data)
    else:
        terminal_report(data, Out(), args.si, layers=args.layers)
    return exit_status.OF_VERDICT[report.verdict]
