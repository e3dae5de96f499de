"""`memcore sim`: a simulated board for a user, on a serial port of its own.

The board is the MicroPython unix port (the PyPI build, or a unix build) or a ports/qemu
firmware in QEMU, on a pseudo-terminal that any serial tool opens like /dev/ttyUSB0
(`memcore hil --port`, `memcore monitor --port`, mpremote, a terminal program).  At start
the files of a folder are put on the board's filesystem and the board boots as a board
does, running boot.py and main.py; what it prints while booting is shown here, then the
port is left to the user.  The board runs until Ctrl-C here (or SIGTERM/SIGHUP): then its
process is stopped and the pty closed.  When the board's process ends by itself (a soft
reset on the unix port, machine.reset() in QEMU) it is started again, as a board reboots.
"""
import os
import pathlib
import shutil
import signal
import time

from memcore.hil.boards import SimulatedBoard
from memcore.hil.deploy import deploy
from memcore.hil.errors import HilError
from memcore.hil.qemu import QemuBoard
from memcore.terminal import visible

PROMPT = b">>> "
#: what the unix port does not print when a soft reset ends it, and a board does
SOFT_REBOOT = b"MPY: soft reboot\r\n"
BOOT_QUIET_S = 2.0      # main.py still running: stop showing its output after this much quiet
BOOT_SHOW_MAX_S = 10.0  # ... or after this long
RESTARTS_WINDOW_S = 10.0
RESTARTS_MAX = 5        # restarts within the window: the board is crash-looping
COPY_STEP_S = 60.0      # at most this long for one round trip while copying --fs files


class Stop(Exception):
    """A signal asked the simulator to stop."""


def folder_files(folder):
    """{path on the board: local path} for every file below `folder`."""
    folder = pathlib.Path(folder)
    if not folder.is_dir():
        raise HilError("--fs %s: not a folder" % folder)
    return {p.relative_to(folder).as_posix(): p for p in sorted(folder.rglob("*")) if p.is_file()}


class Simulator:
    """Starts a board, shows its boot, and keeps it running until stop().

    board  an unopened SimulatedBoard or QemuBoard;  fs  a folder to put on its filesystem
    say    where messages go (print by default)"""

    def __init__(self, board, fs=None, say=print):
        self.board = board
        self.files = folder_files(fs) if fs else {}
        self.say = say
        self.restarts = []
        self.boot_output = ""
        self._reload_pending = self._said_waiting = False

    @property
    def port(self):
        return self.board.port_name

    def info(self):
        """The board that is up, as `memcore sim --json` prints it (memcore.sim/1)."""
        qemu = isinstance(self.board, QemuBoard)
        return {
            "schema": "memcore.sim/1",
            "port": self.port,
            "board": self.board.describe(),
            "kind": "qemu" if qemu else "unix",
            "firmware": str(self.board.firmware.path) if qemu else None,
            "machine": self.board.firmware.machine if qemu else None,
            "command": list(self.board.argv),
            "files": sorted(self.files),
            "boot_output": self.boot_output,
        }

    def start(self):
        """Boot the board (boot.py and main.py run); returns the port to give a client."""
        board = self.board
        if isinstance(board, QemuBoard):
            board.open("sim-boot", enter=False)
            self._load_qemu_files()
        else:
            for name, path in self.files.items():
                target = board.flash_dir / name
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, target)
            board.open("sim-boot", enter=False)  # starts the process: boot.py, main.py
        self._show_boot()
        board.release_port()
        return self.port

    def _load_qemu_files(self):
        """QEMU boots with a blank RAM disk: copy the files over the UART, then soft-reset
        from the friendly REPL, so boot.py and main.py run as at power-on."""
        if not self.files:
            return
        repl = self.board.repl
        repl.clear_input(quiet_s=0.3, max_s=3.0)  # the power-on banner: nothing ran yet
        repl.enter()
        # a generous step: a round trip carries several KB, and the Cortex-M3 board's UART
        # (one byte per turn of QEMU's loop) slows to a crawl on a busy host
        written = deploy(repl, self.files, timeout_s=COPY_STEP_S)
        self.say("memcore sim: copied %d file(s) onto the board" % len(written))
        repl.exit()
        repl.clear_input(quiet_s=0.2, max_s=2.0)
        repl.write(b"\x04")

    def _show_boot(self):
        """What the board prints until its REPL prompt (or main.py keeps running)."""
        repl = self.board.repl
        shown = bytearray()
        start = last = time.monotonic()
        while PROMPT not in shown:
            now = time.monotonic()
            if now - last > BOOT_QUIET_S or now - start > BOOT_SHOW_MAX_S:
                self.say("memcore sim: no REPL prompt yet: main.py is still running"
                         + (" (Ctrl-C over the port stops it)" if isinstance(self.board, QemuBoard) else ""))
                break
            if repl._fill():
                shown += repl._buf
                repl._buf.clear()
                last = time.monotonic()
        text = bytes(shown).decode("utf-8", "replace").replace("\r\n", "\n").rstrip()
        self.boot_output = text
        if text:
            self.say(visible(text, newlines=True))   # the board's text: shown, never obeyed

    def check(self):
        """Start the board again if its process ended; call it now and then."""
        board = self.board
        if board.running():
            if self._reload_pending:
                self._reload_after_power_on()
            return
        rc = board.proc.returncode if board.proc is not None else None
        now = time.monotonic()
        # Resets a client asked for (a Ctrl-D over the port: mpremote soft-resets at every
        # command) are not a crash loop; the board ending by itself again and again is.
        terminal = getattr(board, "terminal", None)
        asked = terminal is not None and terminal.asked
        if terminal is not None:
            terminal.asked = False
        self.restarts = [t for t in self.restarts if now - t < RESTARTS_WINDOW_S] + ([] if asked else [now])
        if len(self.restarts) > RESTARTS_MAX:
            raise HilError("the board stopped %d times in %d s (last exit status %s): giving up"
                           % (len(self.restarts), RESTARTS_WINDOW_S, rc))
        if isinstance(board, QemuBoard):
            self.say("memcore sim: QEMU exited (status %s): powering the board on again, with a blank RAM disk%s"
                     % (rc, "; copying the files again" if self.files else ""))
            board.spawn()
            self._reload_pending = bool(self.files)
            if self._reload_pending:
                self._reload_after_power_on()
        else:
            self._restart_unix(board, rc)

    def _restart_unix(self, board, rc):
        """The unix port ended: start it again as the board would come back.

        A soft reset ends the unix port (status 0, from the raw or the friendly REPL).  A
        board soft-reset from the raw REPL (mpremote, memcore hil) runs boot.py only and
        comes back in the raw REPL, where mpremote waits for its banner; from the friendly
        REPL, or after machine.reset() (`mpremote reset`, which leaves the raw REPL
        before the board resets), it runs boot.py and main.py and comes back there."""
        terminal = board.terminal
        raw = rc == 0 and terminal is not None and terminal.raw_repl
        if terminal is not None:
            terminal.raw_repl = False  # a new process starts in the friendly REPL
        self.say("memcore sim: the board's process ended (status %s): starting it again (boot.py%s)"
                 % (rc, "" if raw else ", main.py"))
        if rc == 0:
            board.inject(SOFT_REBOOT)
        board.spawn(run_main=not raw)
        if raw:
            terminal.to_board_after(PROMPT, b"\x01")

    def _reload_after_power_on(self):
        """Copy the files onto the board again; while a client holds the port, wait (this
        is tried again at every check) and say so once."""
        try:
            self.board.open("sim-reload", enter=False)
        except HilError:
            if not self._said_waiting:
                self.say("memcore sim: the port is in use: the files are copied once it is free")
                self._said_waiting = True
            return
        self._reload_pending = self._said_waiting = False
        try:
            self._load_qemu_files()
            self._show_boot()
        except HilError as exc:
            self.say("memcore sim: copying the files failed: %s" % exc)
        finally:
            self.board.release_port()

    def run(self, poll_s=0.2, until=None):
        """Keep the board running until a signal (or `until()` returns true)."""
        while until is None or not until():
            self.check()
            time.sleep(poll_s)

    def stop(self):
        self.board.close()


def _raise_stop(signum, frame):
    raise Stop(signal.Signals(signum).name)


def serve(board, fs=None, port_file=None, say=print, on_ready=None):
    """The whole `memcore sim`: start, say the port, run until a signal, stop cleanly.

    on_ready(info) is called once the board is up, with the document `memcore sim --json`
    prints (schema memcore.sim/1).  A HilError before that is raised; after it, it is said
    and ends the run with status 2.  Returns the exit status."""
    # SIGINT too: a shell starts a background job with SIGINT ignored, and Python then
    # leaves it ignored; `kill -INT` must stop the simulator as Ctrl-C does.
    previous = {s: signal.signal(s, _raise_stop) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    ready = False
    try:
        sim = Simulator(board, fs, say)
        say("memcore sim: %s" % board.describe())
        port = sim.start()
        if port_file:
            pathlib.Path(port_file).write_text(port + "\n")
        ready = True
        say("memcore sim: the board is on %s" % port)
        say("  memcore hil --port %s" % port)
        say("  mpremote connect %s repl" % port)
        say("memcore sim: Ctrl-C stops the board")
        if on_ready is not None:
            on_ready(sim.info())
        sim.run()
    except (KeyboardInterrupt, Stop):
        say("memcore sim: stopping the board")
        return 0
    except HilError as exc:
        if not ready:
            raise
        say("memcore sim: error: %s" % exc)
        return 2
    finally:
        try:
            board.close()
        finally:
            if port_file:
                try:
                    os.unlink(port_file)
                except OSError:
                    pass
            for s, handler in previous.items():
                signal.signal(s, handler)
    return 0


def make_sim_board(micropython=None, firmware=None, machine=None, heapsize="110K", transcript_dir=None):
    if firmware:
        return QemuBoard(firmware, machine=machine, transcript_dir=transcript_dir, die_with_parent=True)
    return SimulatedBoard(micropython=micropython, heapsize=heapsize, transcript_dir=transcript_dir,
                          die_with_parent=True)
