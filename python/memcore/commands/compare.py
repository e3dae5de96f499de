"""`memcore compare MODEL`: the verdict on every known device at once."""
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

import memcore
from memcore import cli_options
from memcore.compare import compare
from memcore.profiles import profiles
from memcore.units import format_bytes, format_seconds

STYLE = {"runs": "green", "will_not_fit": "red", "too_slow": "yellow"}


def register(sub):
    p = sub.add_parser("compare", help="where can MODEL run: the verdict on every known device")
    p.add_argument("model", help=".tflite or .onnx model file")
    cli_options.add_device_file(p)
    cli_options.add_batch_and_kernels(p)
    cli_options.add_units(p)
    p.set_defaults(run=run)


def run(args):
    model = memcore.load(args.model)
    cards = compare(model, profiles(args.device_file), args.batch, args.kernels)
    table = Table(title="Where can %s run? (batch %d)" % (escape(cards[0].report.model if cards else args.model),
                                                          args.batch),
                  caption="won't fit N×: needs N times the memory available.  "
                          "too slow: takes longer than the device's latency budget.",
                  box=box.SIMPLE_HEAD)
    table.add_column("device", no_wrap=True)
    table.add_column("verdict", no_wrap=True)
    table.add_column("required", justify="right", no_wrap=True)
    table.add_column("headroom", justify="right", no_wrap=True)
    table.add_column("time (budget)", justify="right")
    for c in cards:
        r = c.report
        table.add_row("[bold]%s[/]" % c.device, "[%s]%s[/]" % (STYLE[c.status], c.headline()),
                      format_bytes(r.required_bytes, args.si),
                      "[%s]%s[/]" % ("green" if r.headroom_bytes >= 0 else "red", format_bytes(r.headroom_bytes, args.si)),
                      "%s (%s)" % (format_seconds(r.latency.total_seconds),
                                   format_seconds(r.profile.latency_budget_seconds)))
    Console().print(table)
    return 0
