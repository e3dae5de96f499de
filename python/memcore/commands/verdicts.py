"""`memcore verdicts`: where can a model of each reference size run."""
from memcore import cli_options, jsonout
from memcore.devices import REFERENCE_MODELS, devices, verdict
from memcore.terminal import Out, escape

STYLE = {"runs": "green", "will_not_fit": "red", "too_slow": "yellow"}


def _size(n):
    return "%g MB" % (n / 1e6)


def register(sub):
    p = cli_options.add_command(
        sub, "verdicts", "verdict table of the reference model sizes on the built-in devices",
        """For model sizes from a wake-word spotter to a 7 B chat model, on the four reference
devices: runs here (and the time to read the weights once), N times too big, or too slow
to read within the device's latency budget.""",
        ["memcore verdicts", "memcore verdicts --bytes-per-number 1      # int8 weights",
         "memcore verdicts --json | jq '.models[0]'"])
    p.add_argument("--bytes-per-number", type=float, default=4.0,
                   help="storage width of each number (default 4: float32)")
    cli_options.add_json(p, "the table (schema memcore.verdicts/1)")
    p.set_defaults(run=run)


def run(args):
    found = devices()
    rows = []
    for name, numbers in REFERENCE_MODELS:
        model_bytes = int(round(numbers * args.bytes_per_number))
        rows.append((name, numbers, model_bytes, [(d, verdict(model_bytes, d)) for d in found.values()]))
    if args.json:
        jsonout.emit({
            "schema": jsonout.SCHEMAS["verdicts"], "bytes_per_number": args.bytes_per_number,
            "devices": [{"name": d.name, "description": d.description, "memory_bytes": d.memory_bytes,
                         "read_bytes_per_second": d.read_bytes_per_second,
                         "latency_budget_seconds": d.latency_budget_seconds} for d in found.values()],
            "models": [{"name": name, "numbers": numbers, "model_bytes": model_bytes,
                        "verdicts": [{"device": d.name, "status": v.status, "read_seconds": v.read_seconds,
                                      "times_too_big": v.times_too_big, "short": v.short()} for d, v in cells]}
                       for name, numbers, model_bytes, cells in rows]})
        return 0
    out = Out()
    out.print("[bold]Where can it run?[/] (%g bytes per number; time to read the weights once)"
              % args.bytes_per_number)
    table = out.table("model", ("numbers", {"justify": "right"}),
                      *[("%s (%s, %.3g ms)" % (d.name, _size(d.memory_bytes), d.latency_budget_seconds * 1e3),
                         {"justify": "right", "no_wrap": True}) for d in found.values()])
    for name, numbers, model_bytes, cells in rows:
        table.add_row(escape(name), "%g M" % (numbers / 1e6),
                      *[("[%s]%s[/]" % (STYLE[v.status], v.short())) if out.colour else v.short() for d, v in cells])
    out.print(table)
    return 0
