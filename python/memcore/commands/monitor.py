"""`memcore monitor`: show a board's boot reports as they arrive (SPEC 8).

Exit status: 0 every report says the model fits, 1 a report says it does not (or that the
board could not check), 2 no port, or the board printed lines that break the protocol
(a second report in one boot, a malformed `@memcore` line)."""
import sys

from rich.console import Console
from rich.table import Table
from rich.text import Text

from memcore.hil.boards import open_port
from memcore.hil.errors import HilError
from memcore.hil.transcript import Transcript

VERDICT = {"fits": ("fits", "green"), "does_not_fit": ("does not fit", "red")}


def register(sub):
    p = sub.add_parser("monitor", help="show the boot reports a board prints on its serial port")
    p.add_argument("--port", required=True, help="serial port or pyserial URL of the board")
    p.add_argument("--baud", type=int, default=115200, help="baud rate (default 115200)")
    p.add_argument("--seconds", type=float, help="stop after this long (default: until Ctrl-C)")
    p.add_argument("--count", type=int, help="stop after this many reports")
    p.add_argument("--reset", action="store_true", help="soft-reset the board first (Ctrl-C, Ctrl-D) so it boots; a report before the "
                        "reboot is then not taken as a verdict")
    p.add_argument("--quiet", action="store_true", help="hide the board's other console lines")
    p.add_argument("--transcripts", metavar="DIR", help="folder for the serial transcript")
    p.set_defaults(run=run)


def _value(name, value):
    if isinstance(value, int) and not isinstance(value, bool) and name.endswith("bytes"):
        return "{:,} B".format(value)
    return str(value)


def show_report(console, report):
    """One boot report as a table; the board's text is shown as it is, never as markup."""
    if report["schema"] != "memcore.report/1":
        console.print(Text.assemble(("boot check failed: ", "red"), str(report.get("error"))))
        return
    words, style = VERDICT[report["verdict"]]
    title = Text.assemble("boot report: %s — " % report["model"], (words, style))
    table = Table(title=title, show_header=False)
    table.add_column("field")
    table.add_column("value", justify="right")
    for name, value in report.items():
        if name not in ("schema", "model", "verdict"):
            table.add_row(Text(name), Text(_value(name, value)))
    console.print(table)


def run(args):
    from memcore.hil.monitor import watch
    console = Console()
    transcript = Transcript(args.transcripts, "monitor")
    try:
        port = open_port(args.port, args.baud)
    except HilError as exc:
        print("memcore monitor: error: %s" % exc, file=sys.stderr)
        return 2
    try:
        if args.reset:
            port.write(b"\r\x03\x03\x02\x04")  # stop main.py, friendly REPL, soft reboot
            transcript.sent(b"\r\x03\x03\x02\x04")
        console.print(Text("listening on %s (transcript %s)" % (args.port, transcript.path), style="dim"))
        reports, problems = watch(
            port, args.seconds, args.count, on_report=lambda r: show_report(console, r),
            on_reboot=lambda t: console.print(Text("board rebooted: " + t, style="yellow")),
            on_line=None if args.quiet else lambda t: console.print(Text(t, style="dim")),
            on_problem=lambda n, t: console.print(Text("transcript line %d: %s" % (n, t), style="red")),
            transcript=transcript, after_reboot_only=args.reset)
    except HilError as exc:
        print("memcore monitor: error: %s" % exc, file=sys.stderr)
        return 2
    finally:
        port.close()
        transcript.close()
    if problems:
        more = " (and %d more lines that broke the protocol)" % (len(problems) - 1) if len(problems) > 1 else ""
        print("memcore monitor: error: transcript line %d: %s%s [transcript: %s]"
              % (problems[0] + (more, transcript.rx_path)), file=sys.stderr)
        return 2
    if not reports:
        console.print("no boot report received")
        return 1
    return 0 if all(r.get("verdict") == "fits" for r in reports) else 1
