"""`memcore devices`: the device profiles memcore knows, built-in and from a TOML file."""
from rich.console import Console
from rich.table import Table

from memcore import cli_options
from memcore.profiles import profiles
from memcore.units import format_bytes, format_ops_rate, format_rate, format_seconds


def register(sub):
    p = sub.add_parser("devices", help="list the device profiles (built-in and --device-file)")
    cli_options.add_device_file(p)
    cli_options.add_units(p)
    p.set_defaults(run=run)


def _available(p, si):
    if p.available_bytes_at_boot != p.available_bytes:
        return "%s → %s" % (format_bytes(p.available_bytes_at_boot, si), format_bytes(p.available_bytes, si))
    return format_bytes(p.available_bytes, si)


def run(args):
    table = Table(title="Device profiles: memory a model may use, op rates achieved (not peak)")
    table.add_column("device", min_width=26)
    table.add_column("free for\nthe model", justify="right", no_wrap=True)
    table.add_column("arena /\nweights in", no_wrap=True)
    table.add_column("memory regions\n(size @ read speed)", no_wrap=True)
    table.add_column("ops/s\nreference", justify="right", no_wrap=True)
    table.add_column("ops/s\noptimised", justify="right", no_wrap=True)
    table.add_column("latency\nbudget", justify="right", no_wrap=True)
    for p in profiles(args.device_file).values():
        regions = "\n".join("%s %s @ %s" % (r.name, format_bytes(r.size_bytes, args.si),
                                            format_rate(r.read_bytes_per_second, args.si))
                            for r in p.regions.values())
        origin = "" if p.origin in ("SPEC 4", "built-in") else " (%s)" % p.origin
        table.add_row("[bold]%s[/]\n[dim]%s%s[/]" % (p.name, p.description, origin), _available(p, args.si),
                      "%s / %s" % (p.arena_region, p.weights_region), regions,
                      format_ops_rate(p.ops_per_second_reference), format_ops_rate(p.ops_per_second_optimised),
                      format_seconds(p.latency_budget_seconds), end_section=True)
    Console().print(table)
    return 0
