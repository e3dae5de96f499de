"""`memcore check MODEL`: will it fit on this device, why, and what would make it fit.

Exit status: 0 fits, 1 does not fit in memory or flash, 2 error (bad arguments, unreadable
model), 3 fits but misses the latency budget."""
import memcore
from memcore import cli_options, jsonout
from memcore.check import check
from memcore.render import terminal_report
from memcore.report import report_data
from memcore.terminal import Out


def register(sub):
    p = cli_options.add_command(
        sub, "check", "will MODEL fit on a device, and what would make it fit (exit 0 fits, 1 not, 3 too slow)",
        """Weights, activation arena, runtime overhead and latency of MODEL on one device; when it
does not fit, what would make it fit.  --layers adds the per-operator table (operator,
output shape, MACs, weights, bytes live while it runs, its share of the arena, its time),
with the peak marked.  Exit status: 0 fits, 1 does not fit in memory or flash, 2 error,
3 fits but misses the latency budget.""",
        ["memcore check examples/kws_dscnn_int8.tflite --device esp32",
         "memcore check model.tflite --device cortex-m4 --layers",
         "memcore check model.onnx --device esp32-psram --batch 4 --weights-in ram",
         "memcore check model.tflite --json | jq .headroom_bytes",
         "memcore check model.tflite --device esp32 --available-bytes 90000 --json"])
    p.add_argument("model", help=".tflite or .onnx model file")
    cli_options.add_device(p)
    cli_options.add_deployment(p)
    p.add_argument("--layers", action="store_true", help="also print the per-operator table")
    cli_options.add_units(p)
    p.add_argument("--available-bytes", type=cli_options.byte_count, default=None, metavar="N",
                   help="what the board has free for the arena (e.g. the available_bytes its boot report "
                        "printed), instead of the profile's figure")
    p.add_argument("--allow-unknown-ops", action="store_true",
                   help="check models with operators TFLM does not run, as an upper bound")
    cli_options.add_json(p, "the report (schema memcore.report/1, docs/report-schema.md; always with the "
                            "per-operator rows)")
    p.set_defaults(run=run)


# The verdict is the exit status (the C core numbers them so).
EXIT_STATUS = {"fits": 0, "does_not_fit": 1, "misses_budget": 3}


def run(args):
    profile = cli_options.device_profile(args)
    model = memcore.load(args.model)
    report = check(model, profile, args.batch, args.kernels, args.weights_in,
                   available_bytes=args.available_bytes, allow_unknown_ops=args.allow_unknown_ops)
    data = report_data(report, model)
    if args.json:
        jsonout.emit(data)
    else:
        terminal_report(data, Out(), args.si, layers=args.layers)
    return EXIT_STATUS[report.verdict]
