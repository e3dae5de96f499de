"""`memcore report MODEL -o report.html`: a self-contained HTML page with the verdict,
the per-operator table, the cards for every device and both pictures."""
import os
import sys

import memcore
from memcore import cli_options, exit_status, jsonout
from memcore.check import check
from memcore.errors import open_for_writing
from memcore.profiles import profiles
from memcore.report import report_data
from memcore.terminal import write


def register(sub):
    p = cli_options.add_command(
        sub, "report", "write a self-contained HTML report of MODEL (verdict, per-operator table, plots)",
        """One HTML file with nothing to fetch: the verdict on the device with the memory and time
tables and what would make it fit, the per-operator table with the peak marked, a card
for every device profile, the arena timeline and the roofline.  It reads on a phone too.
The exit status is the verdict on --device, as `memcore check` gives it.""",
        ["memcore report examples/kws_dscnn_int8.tflite -o report.html",
         "memcore report model.tflite --device cortex-m4 -o cortex.html --si",
         "memcore report model.tflite -o report.html --json    # the report's data on stdout"],
        "`memcore report`: 0, 1 or 3 is the verdict on --device (the page is written either way).")
    p.add_argument("model", help=".tflite or .onnx model file")
    p.add_argument("-o", "--output", metavar="FILE", required=True, help="the HTML file to write")
    cli_options.add_device(p)
    cli_options.add_batch_and_kernels(p)
    cli_options.add_weights_in(p)
    cli_options.add_budgets(p)
    cli_options.add_units(p)
    cli_options.add_json(p, "what was written, with the check report (schema memcore.html/1)")
    p.set_defaults(run=run)


def run(args):
    # matplotlib takes about half a second to import: only a command that draws pays for it
    from memcore.report_html import report_html
    profile = cli_options.device_profile(args)
    model = memcore.load(args.model)
    budgets = cli_options.budgets(args)
    data = report_data(check(model, profile, args.batch, args.kernels, args.weights_in, budgets=budgets,
                             device_file=args.device_file), model)
    page = report_html(model, data, profile, profiles(args.device_file), args.batch, args.kernels, args.si, budgets)
    with open_for_writing(args.output, "w", encoding="utf-8") as f:
        f.write(page)
    if args.json:
        jsonout.emit({"schema": jsonout.SCHEMAS["report"], "output": args.output,
                      "bytes": len(page.encode("utf-8")), "model": os.path.basename(model.path),
                      "report": data})
    else:
        write("wrote %s\n" % args.output, sys.stdout)
    return exit_status.OF_VERDICT[data["verdict"]]
