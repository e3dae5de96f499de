"""How a parity report reads: a table per vector file, a table of every difference.

Everything the board sent (its header, case names, values, error text) is shown as plain
text, never read as rich markup, its control characters spelled out (terminal.visible)."""
from rich.text import Text

from memcore.hil import rule
from memcore.terminal import visible

STATUS = {
    "ok": ("board and host agree", "green"),
    "differences": ("board and host differ", "red"),
    "malformed": ("the board's lines broke the protocol", "red"),
    "version_mismatch": ("board runs another memcore: not compared", "yellow"),
    "incomplete": ("run did not complete", "red"),
}


def _board_line(board):
    if not board:
        return Text("board: no header received")
    return Text(visible("board: memcore %s (API %s), %s implementation, %s-bit floats, %s, %s" % (
        board.get("memcore_version"), board.get("api_version"), board.get("implementation"),
        board.get("float_bits"), board.get("firmware"), board.get("platform"))))


def render(report, out=None):
    """The report on `out` (a memcore.terminal.Out: tables with rules on a terminal, plain
    lines in a pipe or a file, as every command prints)."""
    from memcore.terminal import Out
    if out is not None and not hasattr(out, "table"):   # a rich Console: print to its file the same way
        out = Out(out.file)
    out = out or Out()
    console = out.console
    console.print(Text("host: memcore %s (API %s)" % (report.host["memcore_version"], report.host["api_version"])))
    console.print(_board_line(report.board))
    if report.per_file:
        # the last three columns count agreeing fields by the parity rule's clause
        # (firmware_tests/README.md): equal, floats within precision, derived from moved floats
        console.print(Text("host vs board, float tolerance rel %g" % report.float_rel))
        table = out.table(*((column, {"justify": "left" if column == "vector file" else "right"})
                            for column in ("vector file", "cases", "agreed", "differing", "missing", "exact",
                                           "rounded", "moved")))
        how = (rule.EXACT, rule.WITHIN_PRECISION, rule.MOVED)
        for name, s in report.per_file.items():
            bad = s["differing"] or s["missing"]
            fields = s.get("fields", {})
            table.add_row(Text(visible(name)), str(s["cases"]), str(s["agreed"]),
                          Text(str(s["differing"]), style="red" if s["differing"] else ""),
                          Text(str(s["missing"]), style="red" if s["missing"] else ""),
                          *(str(fields.get(h, 0)) for h in how), style="red" if bad else None)
        files = report.per_file.values()
        table.add_row("all", str(sum(s["cases"] for s in files)), str(report.agreed),
                      str(sum(s["differing"] for s in files)), str(sum(s["missing"] for s in files)),
                      *(str(sum(s.get("fields", {}).get(h, 0) for s in files)) for h in how), style="bold")
        console.print(table)
        console.print(Text("fields agreeing: exact; rounded (floats within the board's precision); moved (derived "
                           "from floats the board rounds)"))
    if report.differences:
        console.print(Text("%d difference(s)" % len(report.differences)))
        table = out.table("file", "case", "field", "host", "board")
        for d in report.differences:
            table.add_row(*(Text(visible(v)) for v in (d.file, d.case, d.field, repr(d.host), repr(d.board))))
        console.print(table)
    words, style = STATUS[report.status]
    console.print(Text.assemble((words, style), ": %d cases compared, %d differences"
                                % (report.cases, len(report.differences))))
    if report.noise_lines:
        console.print(Text("%d line(s) of console noise ignored" % report.noise_lines, style="dim"))
    for p in report.problems[:20]:
        console.print(Text(visible("transcript line %d: %s" % (p["line"], p["problem"])), style="red"))
    if len(report.problems) > 20:
        console.print(Text("… and %d more lines that broke the protocol" % (len(report.problems) - 20), style="red"))
    if report.error:
        console.print(Text.assemble((report.error_kind or "error", "red"), ": " + visible(report.error)))
    if report.transcript:
        console.print(Text("transcript: %s" % report.transcript, style="dim"))
    out.flush()
