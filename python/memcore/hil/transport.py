"""A raw-REPL client on a pyserial port: the way the host runs code on a MicroPython board.

The protocol (MicroPython docs, "raw REPL" / "raw-paste mode"):
  enter     Ctrl-C twice (stop whatever runs), Ctrl-A -> "raw REPL; CTRL-B to exit\\r\\n>"
  raw-paste Ctrl-E 'A' Ctrl-A -> "R\\x01" + window (u16 LE); send at most window bytes,
            each \\x01 from the board grants another window; Ctrl-D ends; the board acks \\x04
            ("R\\x00": understood but off; anything else: firmware too old -> plain raw)
  plain     code, Ctrl-D -> "OK"
  then      stdout, \\x04, exception text, \\x04, '>'
  exit      Ctrl-B;  soft reset: Ctrl-D on an empty line -> "soft reboot"

Every wait has a deadline.  Bytes that show the board rebooted (its banner, "soft reboot",
the ESP32 ROM log) end a wait at once with BoardRebooted instead of a timeout.  Everything
read goes to the run's transcript, including what was thrown away when clearing input.

A board may flood the line.  Each wait searches only the bytes that are new (so reading
stays linear however much arrives), and keeps at most KEEP_BYTES of what came before its
token: past that, the middle is dropped (counted, and the code's output then fails with a
ProtocolError) while the search for the token goes on to the end of the flood.
"""
import re
import select
import struct
import time

import serial

from memcore.hil.errors import BoardDisconnected, BoardRebooted, BoardTimeout, HilError, ProtocolError, RemoteError

RAW_BANNER = b"raw REPL; CTRL-B to exit\r\n>"
#: what a board prints when it (re)starts; the friendly banner must start a line, so that
#: program output quoting a version string is not mistaken for a reboot
REBOOT_MARKERS = re.compile(
    rb"soft reboot\r?\n"                                  # MicroPython soft reset
    rb"|rst:0x[0-9a-fA-F]+ \("                            # ESP32 ROM: reset cause
    rb"|ets [A-Z][a-z]{2} [ \d]\d \d{4}"                  # ESP32 ROM: "ets Jun  8 2016"
    rb"|(?:^|\n)MicroPython \S+ on \d{4}-\d\d-\d\d;"      # friendly banner
)
#: a reboot marker is short: searching this far back from new bytes finds one cut in two
MARKER_LOOKBACK = 256
PASTE_CHUNK_PAUSE_S = 0.0
POLL_S = 0.05
READ_BLOCK = 65536
#: what a wait keeps of the bytes before its token (the code's output: the vector run
#: prints a few KB); the rest of a flood is counted and dropped
KEEP_BYTES = 1 << 20
RAW_CHUNK = 256
RAW_CHUNK_PAUSE_S = 0.01
AFTER_DEATH_QUIET_S = 0.1


class RawRepl:
    """Talks the raw REPL over an open pyserial port.

    port        an open serial.Serial-like object, non-blocking (timeout 0)
    transcript  a Transcript: every byte in both directions is recorded
    alive       optional callable, polled while waiting; raises a HilError when the board
                is known to be gone (the simulated board's process exited)
    """

    def __init__(self, port, transcript, alive=None, step_timeout_s=5.0):
        self.port = port
        self.transcript = transcript
        self.alive = alive
        self.step_timeout_s = step_timeout_s
        self.paste_supported = None  # unknown until tried
        self.in_raw_repl = False
        self._buf = bytearray()
        #: bytes the last wait dropped from the middle of a flood
        self.dropped_bytes = 0
        #: transcript line number of the first line of the last code's output
        self.output_first_line = 1

    # ---- bytes ------------------------------------------------------------------
    def write(self, data):
        self.transcript.sent(data)
        try:
            self.port.write(data)
            self.port.flush()
        except serial.SerialTimeoutException as exc:
            raise BoardTimeout("board stopped reading our input: %s" % exc, transcript=self.transcript) from exc
        except (serial.SerialException, OSError) as exc:
            raise BoardDisconnected("connection lost while writing: %s" % exc, self._buf,
                                    self.transcript) from exc

    def _fill(self):
        """Read what has arrived, waiting at most POLL_S; False when nothing came.

        The port is non-blocking (timeout 0): then one pyserial read is one os.read or
        recv, so bytes already read are never lost when the line drops, and a socket
        is read in blocks rather than byte by byte."""
        if self._fill_now():
            return True
        try:
            self._wait_readable()
        except (serial.SerialException, OSError) as exc:
            raise BoardDisconnected("connection lost: %s" % exc, self._buf, self.transcript) from exc
        if self._fill_now():
            return True
        if self.alive is not None:
            try:
                self.alive()
            except HilError as exc:
                self._fill_after_death()
                exc.partial = bytes(self._buf)
                exc.transcript = self.transcript
                raise
        return False

    def _fill_now(self):
        """Take in whatever has already arrived, without waiting."""
        try:
            data = self.port.read(READ_BLOCK)
        except (serial.SerialException, OSError) as exc:
            raise BoardDisconnected("connection lost: %s" % exc, self._buf, self.transcript) from exc
        if data:
            self.transcript.got(data)
            self._buf += data
        return bool(data)

    def _wait_readable(self):
        try:
            fd = self.port.fileno()
        except (AttributeError, NotImplementedError, serial.SerialException, OSError):
            time.sleep(POLL_S / 5)
            return
        select.select([fd], [], [], POLL_S)

    def _fill_after_death(self):
        """What the board wrote before it went: a pty hands bytes on asynchronously, so the
        last of them may arrive just after its writer has exited; read until quiet."""
        quiet_until = time.monotonic() + AFTER_DEATH_QUIET_S
        try:
            while time.monotonic() < quiet_until:
                data = self.port.read(READ_BLOCK)
                if data:
                    self.transcript.got(data)
                    self._buf += data
                    quiet_until = time.monotonic() + AFTER_DEATH_QUIET_S
                else:
                    self._wait_readable()
        except (serial.SerialException, OSError):
            pass

    def _check_reboot(self, start=0, end=None):
        match = REBOOT_MARKERS.search(self._buf, start, len(self._buf) if end is None else end)
        if match:
            self.in_raw_repl = False
            self.transcript.note("board rebooted: %r" % match.group(0))
            raise BoardRebooted("board rebooted (saw %r)" % match.group(0).strip(), self._buf, self.transcript)

    def read_until(self, token, deadline, what, watch_reboot=True):
        """Bytes before `token` (consumed with it); BoardTimeout at `deadline`.

        At most KEEP_BYTES of them are kept: of a flood, the start is returned and
        `dropped_bytes` says how much of the rest was dropped."""
        self.dropped_bytes = 0
        scanned = 0  # bytes of _buf already searched
        while True:
            index = self._buf.find(token, max(0, scanned - len(token) + 1))
            if watch_reboot:
                # Only before the token: a reboot after it belongs to the next read, which
                # keeps the output that came first (e.g. results before a mid-run reset
                # arriving in one chunk with the raw-paste acknowledgement).
                self._check_reboot(max(0, scanned - MARKER_LOOKBACK), end=index if index >= 0 else None)
            if index >= 0:
                data = bytes(self._buf[:index])
                del self._buf[:index + len(token)]
                return data
            if len(self._buf) > KEEP_BYTES + 2 * MARKER_LOOKBACK:
                # keep the start and a tail long enough to hold a token or marker cut in two
                cut = len(self._buf) - MARKER_LOOKBACK
                self.dropped_bytes += cut - KEEP_BYTES
                del self._buf[KEEP_BYTES:cut]
            scanned = len(self._buf)
            if time.monotonic() > deadline:
                self.transcript.note("timeout waiting for %s" % what)
                raise BoardTimeout("timed out waiting for %s" % what, self._buf, self.transcript)
            self._fill()

    def read_exact(self, count, deadline, what):
        while len(self._buf) < count:
            if time.monotonic() > deadline:
                raise BoardTimeout("timed out waiting for %s" % what, self._buf, self.transcript)
            self._fill()
        data = bytes(self._buf[:count])
        del self._buf[:count]
        return data

    def clear_input(self, quiet_s=0.1, max_s=None):
        """Read and drop input until the line is quiet for quiet_s (recorded, never lost)."""
        max_s = self.step_timeout_s if max_s is None else max_s
        end = time.monotonic() + max_s
        last = time.monotonic()
        while time.monotonic() - last < quiet_s and time.monotonic() < end:
            if self._fill():
                last = time.monotonic()
                self._buf.clear()  # a flood is dropped as it comes, never held
        self._buf.clear()

    def _deadline(self, timeout_s):
        return time.monotonic() + (self.step_timeout_s if timeout_s is None else timeout_s)

    # ---- protocol ---------------------------------------------------------------
    def enter(self, timeout_s=None):
        """Stop whatever runs and enter the raw REPL (a board that never answers: BoardTimeout)."""
        deadline = self._deadline(timeout_s)
        self.write(b"\r\x03\x03")
        self.clear_input(max_s=max(0.0, min(1.0, deadline - time.monotonic())))
        for attempt in (0, 1):
            self.write(b"\r\x01")
            left = deadline - time.monotonic()
            try:
                # a board still booting may eat the first Ctrl-A: half the time for each try
                self.read_until(RAW_BANNER, deadline - (left / 2 if attempt == 0 else 0),
                                "the raw REPL prompt", watch_reboot=False)
                break
            except BoardTimeout:
                if attempt == 1:
                    raise
                self.write(b"\r\x03\x03")
        self.in_raw_repl = True
        self._buf.clear()

    def exit(self):
        """Back to the friendly REPL (Ctrl-B); best effort."""
        if self.in_raw_repl:
            self.write(b"\r\x02")
            self.in_raw_repl = False

    def exec_raw(self, code, timeout_s=None):
        """Run `code`; returns (stdout, exception text) as bytes.

        On a timeout, reboot or lost connection the exception's `stdout` holds what the
        code had printed so far."""
        if isinstance(code, str):
            code = code.encode()
        deadline = self._deadline(timeout_s)
        if not self.in_raw_repl:
            self.enter()
        sent = False
        if self.paste_supported is not False:
            sent = self._send_paste(code, deadline)
        if not sent:
            self._send_plain(code, deadline)
        return self._follow(deadline)

    def exec(self, code, timeout_s=None):
        """Run `code`; returns its stdout as text, raises RemoteError if it raised."""
        out, err = self.exec_raw(code, timeout_s)
        if err:
            raise RemoteError("code raised on the board", out, err, self.transcript)
        return out.decode("utf-8", "replace")

    def _send_plain(self, code, deadline):
        for i in range(0, len(code), RAW_CHUNK):
            self.write(code[i:i + RAW_CHUNK])
            time.sleep(RAW_CHUNK_PAUSE_S)
        self.write(b"\x04")
        ok = self.read_exact(2, deadline, "'OK' after the code")
        if ok != b"OK":
            raise ProtocolError("expected 'OK' after the code, got %r" % ok, ok + bytes(self._buf), self.transcript)

    def _send_paste(self, code, deadline):
        """Raw-paste with the board's flow control; False when the board can't do it."""
        self.write(b"\x05A\x01")
        header = self.read_exact(2, deadline, "the raw-paste answer")
        if header == b"R\x00":
            self.paste_supported = False
            return False
        if header != b"R\x01":
            # old firmware took it as code: the \x01 re-entered the raw REPL
            self._buf[:0] = header
            self.read_until(b"w REPL; CTRL-B to exit\r\n>", deadline, "the raw REPL prompt", watch_reboot=False)
            self.paste_supported = False
            return False
        self.paste_supported = True
        window = struct.unpack("<H", self.read_exact(2, deadline, "the raw-paste window"))[0]
        remaining = window
        i = 0
        while i < len(code):
            while remaining == 0 or self._buf or self._fill_now():
                byte = self.read_exact(1, deadline, "raw-paste flow control")
                if byte == b"\x01":
                    remaining += window
                elif byte == b"\x04":
                    self.write(b"\x04")
                    raise ProtocolError("board ended the raw paste early", byte, self.transcript)
                else:
                    self._buf[:0] = byte
                    self._check_reboot()
                    raise ProtocolError("unexpected byte during raw paste: %r" % byte, byte + bytes(self._buf),
                                        self.transcript)
            chunk = code[i:i + remaining]
            self.write(chunk)
            remaining -= len(chunk)
            i += len(chunk)
            if PASTE_CHUNK_PAUSE_S:
                time.sleep(PASTE_CHUNK_PAUSE_S)
        self.write(b"\x04")
        # the board acks end-of-data with \x04, possibly after window grants still in flight
        acked = self.read_until(b"\x04", deadline, "the raw-paste end acknowledgement")
        if acked.strip(b"\x01"):
            raise ProtocolError("unexpected bytes before the raw-paste acknowledgement", acked, self.transcript)
        return True

    def _follow(self, deadline):
        self.output_first_line = self.transcript.lines_received - self._buf.count(b"\n") + 1
        try:
            out = self.read_until(b"\x04", deadline, "the code's output")
        except HilError as exc:
            exc.stdout = exc.partial[:KEEP_BYTES]
            raise
        dropped = self.dropped_bytes
        printed = len(out) + dropped
        if dropped:
            # the output's start is kept, up to its last whole line
            out = out[:KEEP_BYTES]
            out = out[:out.rfind(b"\n") + 1]
        try:
            err = self.read_until(b"\x04", deadline, "the exception text")
            self.read_until(b">", deadline, "the raw REPL prompt")
        except HilError as exc:
            exc.stdout = out
            raise
        if dropped:
            exc = ProtocolError("the code printed %d bytes, more than the %d the harness keeps; the rest was "
                                "dropped" % (printed, KEEP_BYTES), transcript=self.transcript)
            exc.stdout = out
            raise exc
        return out, err

    def soft_reset(self, timeout_s=None, friendly=False):
        """Ctrl-D in the raw REPL: the board soft-reboots (boot.py runs); input is cleared,
        raw REPL re-entered.  `friendly`: Ctrl-D in the friendly REPL instead, after which
        a board also runs main.py, as at power-on."""
        deadline = self._deadline(timeout_s)
        if friendly:
            self.exit()
            self.clear_input(quiet_s=0.1, max_s=1.0)
            self.write(b"\x03\x04")  # Ctrl-C: an empty line, where Ctrl-D soft-reboots
        else:
            if not self.in_raw_repl:
                self.enter()
            self.write(b"\x04")
        self.read_until(b"soft reboot", deadline, "'soft reboot'", watch_reboot=False)
        self.in_raw_repl = False
        self.clear_input(quiet_s=0.2)
        self.enter(max(1.0, deadline - time.monotonic()))
