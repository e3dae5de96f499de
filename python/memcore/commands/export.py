"""`memcore export MODEL -o model.json`: the compact descriptor a board's boot check reads."""
import sys

import memcore
from memcore import descriptor
from memcore.tflm import TARGETS


def register(sub):
    p = sub.add_parser("export", help="write the model descriptor for the on-board fit check (memcore_boot)")
    p.add_argument("model", help="model file (.tflite or .onnx)")
    p.add_argument("-o", "--output", help="descriptor file to write (default: standard output)")
    p.add_argument("--weights", choices=descriptor.PLACEMENTS, default="ram",
                   help="where the weights live on the board: ram (the model file is read into the "
                        "heap, the default) or flash (frozen into firmware / memory-mapped)")
    p.add_argument("--target", choices=TARGETS, default="esp32",
                   help="the board's TFLM build, for TFLM's runtime overhead (default: esp32)")
    p.add_argument("--available", type=int, metavar="BYTES",
                   help="memory the host should assume for its own verdict (cross-check only)")
    p.set_defaults(run=run)


def run(args):
    model = memcore.load(args.model)
    text = descriptor.dumps(descriptor.describe(model, placement=args.weights, target=args.target,
                                                available_bytes=args.available))
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
        print("wrote %s (%d bytes)" % (args.output, len(text.encode())), file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0
