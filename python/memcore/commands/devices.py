"""`memcore devices`: the device profiles memcore knows, built-in and from a TOML file."""
from rich import box
from rich.console import Console
from rich.markup import escape
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
        return "%s\n[dim]%s\nat boot[/]" % (format_bytes(p.available_bytes, si),
                                           format_bytes(p.available_bytes_at_boot, si))
    return format_bytes(p.available_bytes, si)


def _roles(p, region):
    roles = ("A" if p.arena_region == region else "") + ("W" if p.weights_region == region else "")
    return "[bold]%-2s[/] " % roles


def run(args):
    table = Table(title="Device profiles: memory a model may use, op rates achieved (not peak)",
                  box=box.SIMPLE_HEAD)
    table.add_column("device", no_wrap=True, style="bold")
    table.add_column("free for\nthe model", justify="right")
    table.add_column("memory regions: size @ read\n(A: arena in it, W: weights)", no_wrap=True)
    table.add_column("ops/s\nref / opt", justify="right", no_wrap=True)
    found = profiles(args.device_file)
    for p in found.values():
        regions = "\n".join("%s%s %s @ %s" % (_roles(p, r.name), r.name, format_bytes(r.size_bytes, args.si),
                                              format_rate(r.read_bytes_per_second, args.si))
                            for r in p.regions.values())
        table.add_row(p.name, _available(p, args.si), regions,
                      "%s\n%s" % (format_ops_rate(p.ops_per_second_reference),
                                  format_ops_rate(p.ops_per_second_optimised)), end_section=True)
    console = Console()
    console.print(table)
    # Descriptions and latency budgets as a list: as table columns they squeeze the
    # numbers out of an 80-column terminal.
    for p in found.values():
        origin = "" if p.origin in ("SPEC 4", "built-in") else " [dim](from %s)[/]" % escape(p.origin)
        console.print("[bold]%s[/]: %s; must answer within %s%s"
                      % (p.name, escape(p.description), format_seconds(p.latency_budget_seconds), origin))
    return 0
