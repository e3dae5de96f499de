"""`memcore plan MODEL --png FILE`: the activation arena of TFLM's plan and memcore's."""
import memcore
from memcore import cli_options
from memcore.units import format_bytes


def register(sub):
    p = sub.add_parser("plan", help="arena plans of MODEL (TFLM's and memcore's), optionally drawn as a PNG")
    p.add_argument("model", help=".tflite or .onnx model file")
    p.add_argument("--png", metavar="FILE", help="write the arena timeline to FILE")
    cli_options.add_units(p)
    p.set_defaults(run=run)


def run(args):
    # matplotlib takes about half a second to import: only a command that draws pays for it
    from memcore.plots import plan_png
    model = memcore.load(args.model)
    tflm, best = model.plan("tflm"), model.plan("best")
    print("TFLM's plan:     %s" % format_bytes(tflm.arena_bytes, args.si))
    print("memcore's plan:  %s" % format_bytes(best.arena_bytes, args.si))
    print("lower bound:     %s" % format_bytes(tflm.lower_bound_bytes, args.si))
    if args.png:
        with open(args.png, "wb") as f:
            f.write(plan_png(model, args.si))
        print("wrote %s" % args.png)
    return 0
