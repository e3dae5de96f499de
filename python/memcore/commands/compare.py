"""`memcore compare MODEL`: the verdict on every known device at once."""
import os

import memcore
from memcore import cli_options, exit_status, jsonout
from memcore.basis import mark
from memcore.compare import compare
from memcore.profiles import profiles
from memcore.render import budget_line
from memcore.report import check_bases
from memcore.terminal import Out, escape
from memcore.units import format_bytes, format_seconds

STYLE = {"runs": "green", "will_not_fit": "red", "too_slow": "yellow", "battery": "yellow"}


def register(sub):
    p = cli_options.add_command(
        sub, "compare", "where can MODEL run: the verdict on every known device",
        """One row per board profile (built-in and --device-file): runs here, won't fit (the
resource that runs out and how many times over), too slow (over the latency budget) or
battery short; the memory it needs, the headroom left, and the time per request against
the budget.  The budgets options apply to every board.  The exit status is the best
board's verdict: 0 when one runs it, 3 when the best fits but misses a budget you gave, 1
when no board can hold it.""",
        ["memcore compare examples/kws_dscnn_int8.tflite",
         "memcore compare model.tflite --device-file my_boards.toml --batch 4",
         "memcore compare model.tflite --json | jq -r '.devices[] | select(.status == \"runs\") | .device'"],
        "`memcore compare`: the best board's verdict: 0 one runs it, 3 the best misses a budget you gave, 1 no "
        "board can hold it.")
    p.add_argument("model", help=".tflite or .onnx model file")
    cli_options.add_device_file(p)
    cli_options.add_batch_and_kernels(p)
    cli_options.add_budgets(p)
    cli_options.add_input_shape(p)
    cli_options.add_units(p)
    cli_options.add_json(p, "the verdicts (schema memcore.compare/1)")
    p.set_defaults(run=run)


def compare_json(model, cards, batch, kernels):
    return {
        "schema": jsonout.SCHEMAS["compare"], "model": os.path.basename(model.path),
        "memcore_version": memcore.__version__, "batch": batch, "kernels": kernels,
        "devices": [{"device": c.device, "status": c.status, "headline": c.headline(),
                     "explanation": c.explanation(), "times_too_big": c.times_too_big,
                     "times_over": c.times_over, "limiting_resource": c.report.limiting_resource,
                     "required_bytes": c.report.required_bytes, "available_bytes": c.report.available_bytes,
                     "headroom_bytes": c.report.headroom_bytes, "total_seconds": c.report.latency.total_seconds,
                     "latency_budget_seconds": c.report.budgets.latency_for(c.report.profile) or None,
                     "report": c.report.to_json()} for c in cards],
    }


def run(args):
    model = cli_options.load_model(args)
    cards = compare(model, profiles(args.device_file), args.batch, args.kernels, cli_options.budgets(args))
    if args.json:
        jsonout.emit(compare_json(model, cards, args.batch, args.kernels))
        return best_status(cards)
    out = Out()
    out.print("[bold]Where can %s run?[/] (batch %d)" % (escape(os.path.basename(model.path)), args.batch))
    table = out.table(("device", {"no_wrap": True}), ("verdict", {"no_wrap": True}),
                      ("required", {"justify": "right", "no_wrap": True}),
                      ("headroom", {"justify": "right", "no_wrap": True}),
                      ("time (budget)", {"justify": "right", "no_wrap": True}))
    for c in cards:
        r = c.report
        verdict = c.headline()
        headroom = format_bytes(r.headroom_bytes, args.si)
        if out.colour:
            verdict = "[%s]%s[/]" % (STYLE[c.status], verdict)
            headroom = "[%s]%s[/]" % ("green" if r.headroom_bytes >= 0 else "red", headroom)
        total = mark(format_seconds(r.latency.total_seconds), check_bases(r)["latency"].get("total_seconds"))
        table.add_row(escape(c.device), verdict, format_bytes(r.required_bytes, args.si), headroom,
                      "%s (%s)" % (total,
                                   format_seconds(r.budgets.latency_for(r.profile)) if r.budgets.latency_for(r.profile)
                                   else "none"))
    out.print(table)
    legend = "won't fit (R N×): resource R (RAM, PSRAM or flash) needs N times what there is.  too slow (N×): " \
             "takes N times the latency budget."
    legend += "  ~: an estimate (`memcore devices --verbose` lists each figure's source)."
    if any(c.status == "battery" for c in cards):
        legend += "  battery short (N×): needs N times the battery's energy over the life it must last."
    out.line(legend)
    said = {c.device: budget_line(c.report.to_json()) for c in cards}
    for device, line in said.items() if len(set(said.values())) > 1 else [("", next(iter(said.values())))]:
        out.line("%s%s" % (device + ": " if device else "", line))
    if not any(c.status == "runs" for c in cards):
        out.line("no board runs it" + (" within the budgets given" if any(c.status != "will_not_fit" for c in cards)
                                       else ": it does not fit on any"))
    return best_status(cards)


def best_status(cards):
    """The exit status of the best board: fits beats misses its budget beats does not fit."""
    return min((exit_status.OF_VERDICT[c.report.verdict] for c in cards),
               key=(exit_status.FITS, exit_status.MISSES_BUDGET, exit_status.DOES_NOT_FIT).index)
