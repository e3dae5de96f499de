"""How a parity report reads: a table per vector file, a table of every difference."""
from rich.console import Console
from rich.table import Table

from memcore.hil import rule

STATUS = {
    "ok": "[green]board and host agree[/]",
    "differences": "[red]board and host differ[/]",
    "version_mismatch": "[yellow]board runs another memcore: not compared[/]",
    "incomplete": "[red]run did not complete[/]",
}


def _board_line(board):
    if not board:
        return "board: no header received"
    return "board: memcore %s (API %s), %s implementation, %s-bit floats, %s, %s" % (
        board.get("memcore_version"), board.get("api_version"), board.get("implementation"),
        board.get("float_bits"), board.get("firmware"), board.get("platform"))


def render(report, console=None):
    console = console or Console()
    console.print("host: memcore %s (API %s)" % (report.host["memcore_version"], report.host["api_version"]))
    console.print(_board_line(report.board))
    if report.per_file:
        # the last three columns count agreeing fields by the parity rule's clause
        # (firmware_tests/README.md): equal, floats within precision, derived from moved floats
        table = Table(title="host vs board, float tolerance rel %g" % report.float_rel,
                      caption="fields agreeing: exact; rounded (floats within the board's precision); "
                              "moved (derived from floats the board rounds)")
        for column in ("vector file", "cases", "agreed", "differing", "missing", "exact", "rounded", "moved"):
            table.add_column(column, justify="left" if column == "vector file" else "right")
        how = (rule.EXACT, rule.WITHIN_PRECISION, rule.MOVED)
        for name, s in report.per_file.items():
            bad = s["differing"] or s["missing"]
            fields = s.get("fields", {})
            table.add_row(name, str(s["cases"]), str(s["agreed"]),
                          ("[red]%d[/]" if s["differing"] else "%d") % s["differing"],
                          ("[red]%d[/]" if s["missing"] else "%d") % s["missing"],
                          *(str(fields.get(h, 0)) for h in how), style="red" if bad else None)
        files = report.per_file.values()
        table.add_row("all", str(sum(s["cases"] for s in files)), str(report.agreed),
                      str(sum(s["differing"] for s in files)), str(sum(s["missing"] for s in files)),
                      *(str(sum(s.get("fields", {}).get(h, 0) for s in files)) for h in how), style="bold")
        console.print(table)
    if report.differences:
        table = Table(title="%d difference(s)" % len(report.differences))
        for column in ("file", "case", "field", "host", "board"):
            table.add_column(column)
        for d in report.differences:
            table.add_row(d.file, d.case, d.field, repr(d.host), repr(d.board))
        console.print(table)
    summary = "%s: %d cases compared, %d differences" % (STATUS[report.status], report.cases,
                                                          len(report.differences))
    console.print(summary)
    if report.noise_lines:
        console.print("[dim]%d line(s) of console noise ignored[/]" % report.noise_lines)
    if report.error:
        console.print("[red]%s[/]: %s" % (report.error_kind or "error", report.error), markup=True,
                      highlight=False)
    if report.transcript:
        console.print("[dim]transcript: %s[/]" % report.transcript)
