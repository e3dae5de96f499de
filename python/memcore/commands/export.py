"""`memcore export MODEL -o model.json`: the compact descriptor a board's boot check reads."""
import os
import sys

import memcore
from memcore import cli_options, descriptor, jsonout
from memcore.errors import open_for_writing
from memcore.terminal import write


def register(sub):
    p = cli_options.add_command(
        sub, "export", "write the model descriptor for the on-board fit check (memcore_boot)",
        """The model descriptor (schema memcore.model/3) a board's boot check reads beside the
model file: the device profile and the deployment as the C check takes them (a board
with memcore's C module then checks the model file itself, exactly as `memcore check`
does), what firmware without the module needs to make the same check (the activation
buffers with their lifetimes, TFLM's overhead for the device's target), and the host's
own numbers to cross-check.  Written to -o FILE, or to stdout.""",
        ["memcore export examples/kws_dscnn_int8.tflite --device esp32 -o model.json",
         "memcore export model.tflite --device esp32 --weights-in flash > model.json",
         "memcore export model.tflite --device cortex-m4 --per-hour 60 --battery 220mAh@3V --battery-life 1y "
         "-o model.json",
         "memcore export model.tflite -o model.json --json     # a memcore.export/1 summary on stdout"])
    p.add_argument("model", help="model file (.tflite or .onnx)")
    p.add_argument("-o", "--output", help="descriptor file to write (default: standard output)")
    cli_options.add_device(p)
    cli_options.add_deployment(p)
    cli_options.add_budgets(p)
    p.add_argument("--available-bytes", type=cli_options.byte_count, metavar="N",
                   help="memory the host should assume for its own verdict (cross-check only: the board "
                        "measures its own)")
    cli_options.add_json(p, "a summary (schema memcore.export/1, with the descriptor in it)")
    p.set_defaults(run=run)


def run(args):
    model = memcore.load(args.model)
    described = descriptor.describe(model, cli_options.device_profile(args), placement=args.weights_in,
                                    kernels=args.kernels, batch=args.batch, available_bytes=args.available_bytes,
                                    budgets=cli_options.budgets(args))
    text = descriptor.dumps(described)
    if args.output:
        with open_for_writing(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    if args.json:
        jsonout.emit({"schema": jsonout.SCHEMAS["export"], "model": os.path.basename(model.path),
                      "output": args.output, "bytes": len(text.encode()), "descriptor": described})
    elif args.output:
        write("wrote %s (%d bytes)\n" % (args.output, len(text.encode())), sys.stderr)
    else:
        write(text)
    return 0
