"""`memcore check MODEL`: will it fit on this device, why, and what would make it fit.

Exit status: 0 fits, 1 does not fit in memory or flash, 2 error (bad arguments, unreadable
model), 3 fits but misses the latency budget."""
import json

from rich.console import Console
from rich.table import Table

import memcore
from memcore import cli_options
from memcore.check import check
from memcore.units import format_bytes, format_count, format_ops_rate, format_seconds


def register(sub):
    p = sub.add_parser("check", help="will MODEL fit on a device, and what would make it fit (exit 0 fits, 1 not, "
                                     "3 too slow)",
                       description="Weights, activation arena, runtime overhead and latency of MODEL on one "
                                   "device; when it does not fit, what would make it fit.  "
                                   "Exit status: 0 fits, 1 does not fit in memory or flash, 2 error, "
                                   "3 fits but misses the latency budget.")
    p.add_argument("model", help=".tflite or .onnx model file")
    cli_options.add_device(p)
    cli_options.add_deployment(p)
    cli_options.add_units(p)
    p.add_argument("--available-bytes", type=cli_options.byte_count, default=None, metavar="N",
                   help="what the board has free for the arena (e.g. the available_bytes its boot report "
                        "printed), instead of the profile's figure")
    p.add_argument("--allow-unknown-ops", action="store_true",
                   help="check models with operators TFLM does not run, as an upper bound")
    p.add_argument("--json", action="store_true", help="print the report as JSON (schema memcore.report/1, "
                                                       "docs/report-schema.md)")
    p.set_defaults(run=run)


# The verdict is the exit status (the C core numbers them so).
EXIT_STATUS = {"fits": 0, "does_not_fit": 1, "misses_budget": 3}


def run(args):
    profile = cli_options.device_profile(args)
    report = check(memcore.load(args.model), profile, args.batch, args.kernels, args.weights_in,
                   available_bytes=args.available_bytes, allow_unknown_ops=args.allow_unknown_ops)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        render(report, Console(), args.si)
    return EXIT_STATUS[report.verdict]


def _headroom(n_bytes, si):
    return "[%s]%s[/]" % ("green" if n_bytes >= 0 else "red", format_bytes(n_bytes, si))


def render(report, console, si=False):
    p = report.profile
    b = lambda n: format_bytes(n, si)  # noqa: E731 - one short alias keeps the rows readable
    console.print("[bold]%s[/] on [bold]%s[/] — %s" % (report.model, p.name, p.description))
    if report.fits:
        console.print("[bold green]✔ FITS[/]  %s of headroom: needs %s of the %s available"
                      % (b(report.headroom_bytes), b(report.required_bytes), b(report.available_bytes)))
    else:
        console.print("[bold red]✘ DOES NOT FIT[/]  %s short: needs %s, %s available"
                      % (b(-report.headroom_bytes) if report.headroom_bytes < 0 else b(0),
                         b(report.required_bytes), b(report.available_bytes)))

    console.print("\n[bold underline]Memory[/] (batch %d, %d-bit pointers)" % (report.batch, 8 * p.pointer_bytes))
    memory = Table(show_header=False, box=None, padding=(0, 2))
    memory.add_column(style="bold")
    memory.add_column(justify="right", no_wrap=True)
    memory.add_column(style="dim")
    if report.weights_placement == "flash":
        where = "in flash, not RAM (%s left of %s)" % (b(report.flash_headroom_bytes),
                                                      b(p.regions["flash"].size_bytes))
    else:
        where = "in RAM" if p.arena_region in ("ram", "memory") else "in %s, with the arena" % p.arena_region
    memory.add_row("weights", b(report.weights_bytes), where)
    memory.add_row("activation arena", b(report.arena_tflm_bytes), "per example, planned as TFLM does")
    memory.add_row("  memcore's plan", b(report.arena_best_bytes), "what memcore's planner needs")
    memory.add_row("  lower bound", b(report.arena_lower_bound_bytes), "largest set of buffers alive at once")
    memory.add_row("runtime overhead", b(report.runtime_overhead_bytes), "TFLM's persistent allocations (tail)")
    memory.add_row("recommended arena", b(report.recommended_arena_bytes), "give TFLM's tensor arena this size")
    memory.add_row("required", b(report.required_bytes),
                   "largest term: %s" % {"parameters": "weights", "activations": "activation arena",
                                         "runtime": "runtime overhead"}[report.budget.dominant])
    available_note = "in %s" % p.arena_region
    if p.available_bytes_at_boot != p.available_bytes:
        available_note = "largest block the heap grows to (%s free at boot)" % b(p.available_bytes_at_boot)
    memory.add_row("available", b(report.available_bytes), available_note)
    memory.add_row("headroom", _headroom(report.headroom_bytes, si), "available − required")
    console.print(memory)
    if report.needs_heap_growth:
        console.print("[yellow]note:[/] needs more than the %s free at boot; it relies on MicroPython growing "
                      "its heap" % b(p.available_bytes_at_boot))

    lat = report.latency
    kernels = "%s, %s kernels at %s" % (report.dtype, report.kernels, format_ops_rate(p.ops_per_second(report.kernels)))
    console.print("\n[bold underline]Time per request[/] (%s)" % kernels)
    timing = Table(show_header=False, box=None, padding=(0, 2))
    timing.add_column(style="bold")
    timing.add_column(justify="right", no_wrap=True)
    timing.add_column(style="dim")
    for part, seconds, why in (("fetch", lat.fetch_seconds, "reading weights and activations"),
                               ("compute", lat.compute_seconds, "%s operations" % format_count(report.operations)),
                               ("setup", lat.setup_seconds, "fixed per request")):
        timing.add_row(part + (" ◀" if part == lat.dominant else ""), format_seconds(seconds), why)
    within = report.within_latency_budget
    timing.add_row("total", "[%s]%s[/]" % ("green" if within else "yellow", format_seconds(lat.total_seconds)),
                   "%s the %s budget" % ("within" if within else "over", format_seconds(p.latency_budget_seconds)))
    console.print(timing)
    r = report.roofline
    console.print("[bold]%s-bound[/] at batch %d: %.3g ops per byte fetched; %s"
                  % (r.bound, report.batch, r.intensity,
                     "batching helps until batch %d" % r.crossover_batch if r.crossover_batch and r.bound == "memory"
                     else "no batch makes it compute-bound (ceiling %.3g ops/byte)" % r.ceiling
                     if r.bound == "memory" else "faster arithmetic is what pays"))

    if report.suggestions:
        console.print("\n[bold underline]What would make it fit[/]")
        table = Table(box=None, padding=(0, 2))
        table.add_column("change")
        table.add_column("headroom after", justify="right", no_wrap=True)
        table.add_column("")
        for s in report.suggestions:
            table.add_row(s.action, _headroom(s.headroom_bytes, si),
                          "[green]fits[/]" if s.fits else "[red]still short[/]")
        console.print(table)
