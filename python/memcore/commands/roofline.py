"""`memcore roofline MODEL --device D --png FILE`: where the model sits under the
device's roof, batch by batch."""
import memcore
from memcore import cli_options
from memcore.check import check


def register(sub):
    p = sub.add_parser("roofline", help="roofline of MODEL on a device with a batch sweep, as a PNG")
    p.add_argument("model", help=".tflite or .onnx model file")
    cli_options.add_device(p)
    cli_options.add_kernels(p)
    p.add_argument("--png", metavar="FILE", required=True, help="write the chart to FILE")
    p.set_defaults(run=run)


def run(args):
    # matplotlib takes about half a second to import: only a command that draws pays for it
    from memcore.plots import roofline_png
    profile = cli_options.device_profile(args)
    model = memcore.load(args.model)
    r = check(model, profile, 1, args.kernels, suggest=False).roofline
    print("%s at batch 1: %.3g ops per byte; %s; ceiling %.3g ops per byte"
          % (r.bound + "-bound", r.intensity,
             "compute-bound from batch %d" % r.crossover_batch if r.crossover_batch else "no batch is compute-bound",
             r.ceiling))
    with open(args.png, "wb") as f:
        f.write(roofline_png(model, profile, args.kernels))
    print("wrote %s" % args.png)
    return 0
