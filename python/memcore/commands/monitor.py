"""`memcore monitor`: show a board's boot reports as they arrive.

What the board prints is untrusted: one report per boot is its verdict; another in the
same boot, or a malformed `@memcore` line, is a problem named by its transcript line, and
nothing it prints is read as markup."""
from memcore import cli_options, exit_status, jsonout
from memcore.cli import CommandError
from memcore.cli_hints import board_error
from memcore.hil import lines
from memcore.hil.boards import open_port
from memcore.hil.errors import HilError
from memcore.hil.transcript import Transcript
from memcore.terminal import Out, escape

VERDICT = {"fits": "[green]fits[/]", "does_not_fit": "[red]does not fit[/]",
           "misses_budget": "[yellow]fits, but misses its budget[/]"}


def register(sub):
    p = cli_options.add_command(
        sub, "monitor", "show the boot reports a board prints on its serial port",
        """Listens to a board's serial port and shows each boot report (the memcore.report/1 line
the boot check prints before the model loads), each reboot, and the rest of the console.
Only the first report of each boot is the board's verdict, and the exit status is that
verdict's, as `memcore check` gives it (the worst when several boots reported).""",
        ["memcore monitor --port /dev/ttyUSB0 --reset",
         "memcore monitor --port /dev/ttyUSB0 --count 1 --seconds 30 --quiet",
         "memcore monitor --port /dev/ttyUSB0 --count 1 --json | jq '.reports[0].headroom_bytes'"],
        "`memcore monitor`: 0, 1 or 3 is the boards' verdict (the worst of its boot reports); 2 also when no "
        "report came, the board's check failed, or the board printed a second report in one boot or a malformed "
        "line.")
    p.add_argument("--port", required=True, help="serial port or pyserial URL of the board")
    p.add_argument("--baud", type=int, default=115200, help="baud rate (default 115200)")
    p.add_argument("--seconds", type=float, help="stop after this long (default: until Ctrl-C)")
    p.add_argument("--count", type=int, help="stop after this many reports")
    p.add_argument("--reset", action="store_true", help="soft-reset the board first (Ctrl-C, Ctrl-D) so it boots; "
                                                        "a report before the reboot is then not taken as a verdict")
    p.add_argument("--quiet", action="store_true", help="hide the board's other console lines")
    p.add_argument("--transcripts", metavar="DIR", help="folder for the serial transcript")
    cli_options.add_json(p, "the reports, reboots and console lines, once it stops (schema memcore.monitor/1)")
    p.set_defaults(run=run)


def _value(name, value):
    if isinstance(value, int) and not isinstance(value, bool) and name.endswith("bytes"):
        return "{:,} B".format(value)
    return str(value)


def show_report(out, report):
    """One boot report as a table; the board's text is shown as written, never as markup."""
    if report["schema"] == lines.REPORT_ERROR:
        out.print("[red]boot check failed:[/] %s" % escape(report["error"]))
        return
    out.print("[bold]boot report: %s[/] — %s" % (escape(str(report["model"])), VERDICT[report["verdict"]]))
    table = out.table("field", ("value", {"justify": "right"}), show_header=False)
    for name, value in report.items():
        if name not in ("schema", "model", "verdict"):
            table.add_row(escape(name), escape(_value(name, value)))
    out.print(table)


def run(args):
    from memcore.hil.monitor import watch
    out = Out()
    transcript = Transcript(args.transcripts, "monitor")
    seen = {"reboots": [], "lines": []}
    try:
        port = open_port(args.port, args.baud)
    except HilError as exc:
        transcript.close()
        raise board_error(exc, args.port) from None
    if args.json:
        on_report = on_problem = None
        on_reboot = seen["reboots"].append
        on_line = None if args.quiet else seen["lines"].append
    else:
        on_report = lambda r: show_report(out, r)  # noqa: E731
        on_reboot = lambda t: out.print("[yellow]board rebooted: %s[/]" % escape(t))  # noqa: E731
        on_line = None if args.quiet else lambda t: out.print("[dim]%s[/]" % escape(t))  # noqa: E731
        on_problem = lambda n, t: out.print("[red]transcript line %d: %s[/]" % (n, escape(t)))  # noqa: E731
    try:
        if args.reset:
            port.write(b"\r\x03\x03\x02\x04")  # stop main.py, friendly REPL, soft reboot
            transcript.sent(b"\r\x03\x03\x02\x04")
        if not args.json:
            out.print("[dim]listening on %s (transcript %s)[/]" % (escape(args.port), escape(str(transcript.path))))
        heard = watch(port, args.seconds, args.count, on_report=on_report, on_reboot=on_reboot, on_line=on_line,
                      on_problem=on_problem, transcript=transcript, after_reboot_only=args.reset)
    except HilError as exc:
        raise board_error(exc, args.port) from None
    finally:
        port.close()
        transcript.close()
    reports, problems = heard.reports, heard.problems
    status = _status(reports)
    if args.json:
        jsonout.emit({"schema": jsonout.SCHEMAS["monitor"], "port": args.port,
                      "transcript": str(transcript.path) if transcript.path else None,
                      "reports": [r for r in reports if r["schema"] == lines.REPORT],
                      "check_errors": [r["error"] for r in reports if r["schema"] == lines.REPORT_ERROR],
                      "problems": [{"line": n, "problem": p} for n, p in problems],
                      "reboots": seen["reboots"], "console_lines": seen["lines"], "interrupted": heard.interrupted})
        return exit_status.ERROR if problems else status
    if problems:
        more = " (and %d more lines that broke the protocol)" % (len(problems) - 1) if len(problems) > 1 else ""
        raise CommandError("transcript line %d: %s%s [transcript: %s]" % (problems[0] + (more, transcript.rx_path)))
    if not reports:
        raise CommandError("no boot report received%s" % (" before Ctrl-C" if heard.interrupted else ""),
                           "--reset reboots the board so its boot check runs; --seconds waits longer")
    return status


def _status(reports):
    """The exit status of what the boards reported: a failed boot check or no report at
    all is a board error (2), else the verdicts' worst, as `memcore check` numbers them."""
    if not reports or any(r["schema"] == lines.REPORT_ERROR for r in reports):
        return exit_status.ERROR
    return exit_status.of_verdicts(r["verdict"] for r in reports)
