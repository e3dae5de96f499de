"""The unix port's own terminal, relayed to the simulated board's port.

The unix port switches its terminal between raw mode (while its REPL reads) and the mode
it started in (while code runs), and switches with TCSAFLUSH, which throws away whatever
the terminal holds unread.  Were its terminal the port the harness reads, each switch
could drop the board's latest output (the raw REPL's "OK", the end-of-output marks, a last
line before sys.exit()) whenever the harness is slow to read: under load, tests failed
so.  So the board gets a pseudo-terminal of its own, raw, and a thread copies bytes between
it and the port: a flush then only drops input the board has not read, which the raw
REPL's protocol never leaves there.  (Ctrl-C stays a byte: the unix port runs raw-paste
code without leaving raw mode, so only a signal interrupts it, see SimulatedBoard.)
"""
import os
import select
import threading
import tty

#: most bytes held for a side that is not reading before the other side is left unread
HELD_MAX = 1 << 16
POLL_S = 0.05


def take_controlling_terminal():
    """In the child (after setsid): its stdin becomes its controlling terminal, so the
    terminal's SIGINT reaches it; SIGINT is ignored until MicroPython installs its handler
    (through libc: signal.signal works only in the main thread, and boards may be started
    from others)."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    ctypes.CDLL(None).signal(int(signal.SIGINT), ctypes.c_void_p(1))  # SIG_IGN


class BoardTerminal:
    """A pty for the board process, relayed to `port_master` (the master side of the pty
    clients open) by a thread until close()."""

    def __init__(self, port_master):
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.port_master = port_master
        for fd in (self.master, self.port_master):
            os.set_blocking(fd, False)
        self._held = {self.master: bytearray(), self.port_master: bytearray()}  # to write, per fd
        self._lock = threading.Lock()
        self._stop = False
        # Whether the board's REPL is in raw mode, from the Ctrl-A (enter) and Ctrl-B (leave)
        # bytes the port sent it: a soft reset from the raw REPL comes back in the raw REPL
        # on a board, and the simulator has to know which one the process ended in.
        self.raw_repl = False
        self.asked = False  # a Ctrl-D came from the port: an exit now is a reset asked for
        self._after_prompt = None  # (prompt, bytes): sent to the board once it prints prompt
        self._seen = bytearray()
        self._thread = threading.Thread(target=self._relay, name="memcore-board-terminal", daemon=True)
        self._thread.start()

    def to_port(self, data):
        """Bytes for the port's reader, as if the board had printed them."""
        with self._lock:
            self._held[self.port_master] += data

    def to_board_after(self, prompt, data):
        """Bytes for the board, sent once its output shows `prompt`: its REPL then reads
        them (input sent earlier may be flushed by its terminal mode switch)."""
        with self._lock:
            self._after_prompt = (prompt, bytes(data))
            self._seen.clear()

    def _watch(self, fd, data):
        """Under the lock: keep raw_repl current; release input waiting for a prompt."""
        if fd == self.port_master:
            for byte in data:
                if byte == 0x01:
                    self.raw_repl = True
                elif byte == 0x02:
                    self.raw_repl = False
                elif byte == 0x04:
                    self.asked = True
        elif self._after_prompt is not None:
            prompt, waiting = self._after_prompt
            self._seen += data
            if prompt in self._seen:
                self._held[self.master] += waiting
                self.raw_repl = self.raw_repl or b"\x01" in waiting
                self._after_prompt = None
                self._seen.clear()
            else:
                del self._seen[:-len(prompt)]

    def _relay(self):
        peer = {self.master: self.port_master, self.port_master: self.master}
        while not self._stop:
            with self._lock:
                writable = [fd for fd, held in self._held.items() if held]
                readable = [fd for fd in peer if len(self._held[peer[fd]]) < HELD_MAX]
            try:
                ready_r, ready_w, _ = select.select(readable, writable, [], POLL_S)
            except (OSError, ValueError):
                return
            for fd in ready_r:
                try:
                    data = os.read(fd, 4096)
                except BlockingIOError:
                    continue
                except OSError:
                    return
                with self._lock:
                    self._held[peer[fd]] += data
                    self._watch(fd, data)
            for fd in ready_w:
                with self._lock:
                    try:
                        written = os.write(fd, self._held[fd])
                    except BlockingIOError:
                        continue
                    except OSError:
                        return
                    del self._held[fd][:written]

    def close(self):
        self._stop = True
        self._thread.join()
        for fd in (self.master, self.slave):
            os.close(fd)
