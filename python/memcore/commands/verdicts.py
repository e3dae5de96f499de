"""`memcore verdicts`: where can a model of each reference size run (SPEC 4)."""
from rich.console import Console
from rich.table import Table

from memcore.devices import REFERENCE_MODELS, devices, verdict

STYLE = {"runs": "green", "will_not_fit": "red", "too_slow": "yellow"}


def _size(n):
    return "%g MB" % (n / 1e6)


def register(sub):
    p = sub.add_parser("verdicts", help="verdict table of the reference model sizes on the built-in devices")
    p.add_argument("--bytes-per-number", type=float, default=4.0,
                   help="storage width of each number (default 4: float32)")
    p.set_defaults(run=run)


def run(args):
    table = Table(title="Where can it run? (%g bytes per number; time to read the weights once)"
                  % args.bytes_per_number)
    table.add_column("model")
    table.add_column("numbers", justify="right")
    found = devices()
    for d in found.values():
        table.add_column("%s\n%s, %.3g ms" % (d.name, _size(d.memory_bytes), d.latency_budget_seconds * 1e3),
                         justify="right")
    for name, numbers in REFERENCE_MODELS:
        model_bytes = int(round(numbers * args.bytes_per_number))
        cells = []
        for d in found.values():
            v = verdict(model_bytes, d)
            cells.append("[%s]%s[/]" % (STYLE[v.status], v.short()))
        table.add_row(name, "%g M" % (numbers / 1e6), *cells)
    Console().print(table)
    return 0
