"""`memcore report MODEL -o report.html`: a self-contained HTML page with the verdicts
and both pictures."""
import memcore
from memcore import cli_options
from memcore.profiles import profiles


def register(sub):
    p = sub.add_parser("report", help="write a self-contained HTML report of MODEL (verdict cards and plots)")
    p.add_argument("model", help=".tflite or .onnx model file")
    p.add_argument("-o", "--output", metavar="FILE", required=True, help="the HTML file to write")
    cli_options.add_device(p)
    cli_options.add_batch_and_kernels(p)
    cli_options.add_units(p)
    p.set_defaults(run=run)


def run(args):
    # matplotlib takes about half a second to import: only a command that draws pays for it
    from memcore.report_html import report_html
    profile = cli_options.device_profile(args)
    page = report_html(memcore.load(args.model), profile, profiles(args.device_file), args.batch, args.kernels,
                       args.si)
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(page)
    print("wrote %s" % args.output)
    return 0
