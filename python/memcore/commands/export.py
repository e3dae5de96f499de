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
        """The model descriptor (schema memcore.model/1) a board's boot check reads instead of the
model: the activation buffers' sizes and lifetimes, TFLM's overhead for the board's pointer
width, and the host's own numbers to cross-check.  Written to -o FILE, or to stdout.""",
        ["memcore export examples/kws_dscnn_int8.tflite -o model.json",
         "memcore export model.tflite --weights flash --pointer-bytes 4 > model.json",
         "memcore export model.tflite -o model.json --json     # a memcore.export/1 summary on stdout"])
    p.add_argument("model", help="model file (.tflite or .onnx)")
    p.add_argument("-o", "--output", help="descriptor file to write (default: standard output)")
    p.add_argument("--weights", choices=descriptor.PLACEMENTS, default="ram",
                   help="where the weights live on the board: ram (the model file is read into the "
                        "heap, the default) or flash (frozen into firmware / memory-mapped)")
    p.add_argument("--pointer-bytes", type=int, choices=(4, 8), default=4,
                   help="the board's pointer width, for TFLM's runtime overhead (default 4: ESP32)")
    p.add_argument("--available", type=int, metavar="BYTES",
                   help="memory the host should assume for its own verdict (cross-check only)")
    cli_options.add_json(p, "a summary (schema memcore.export/1, with the descriptor in it)")
    p.set_defaults(run=run)


def run(args):
    model = memcore.load(args.model)
    described = descriptor.describe(model, placement=args.weights, pointer_bytes=args.pointer_bytes,
                                    available_bytes=args.available)
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
