"""The serial transcript of one run: every byte sent and received, written as it happens.

Two files per run, flushed after every chunk so that a run that hangs, times out or
crashes still leaves everything the board printed on disk:
  <name>.log  readable: one line per chunk, seconds since start, TX/RX, the bytes' repr
  <name>.rx   exactly the bytes received, nothing added
A board that floods the line is recorded up to MAX_RECORDED_BYTES; past that, received
bytes and line ends are only counted (the log says so), so line numbers stay true.
"""
import itertools
import os
import pathlib
import tempfile
import time

_counter = itertools.count(1)
MAX_RECORDED_BYTES = 32 << 20


def default_dir():
    return pathlib.Path(os.environ.get("MEMCORE_HIL_TRANSCRIPTS") or
                        pathlib.Path(tempfile.gettempdir()) / "memcore-hil")


class Transcript:
    def __init__(self, directory=None, name="run"):
        directory = pathlib.Path(directory) if directory else default_dir()
        directory.mkdir(parents=True, exist_ok=True)
        stem = "%s-%s-%d-%03d" % (time.strftime("%Y%m%d-%H%M%S"), name, os.getpid(), next(_counter))
        self.path = directory / (stem + ".log")
        self.rx_path = directory / (stem + ".rx")
        self._log = open(self.path, "w", encoding="ascii", errors="backslashreplace")
        self._rx = open(self.rx_path, "wb")
        self._start = time.monotonic()
        #: bytes and line ends received, recorded or not: `lines_received + 1` is the
        #: line number in <name>.rx of the next byte to arrive
        self.bytes_received = 0
        self.lines_received = 0

    def _line(self, tag, data):
        if self._log.closed:
            return
        self._log.write("%9.3f %s %r\n" % (time.monotonic() - self._start, tag, bytes(data)))
        self._log.flush()

    def sent(self, data):
        self._line("TX", data)

    def got(self, data):
        if not data:
            return
        room = MAX_RECORDED_BYTES - self.bytes_received
        self.bytes_received += len(data)
        self.lines_received += data.count(b"\n")
        if room <= 0:
            return
        if len(data) > room:
            data = data[:room]
            self.note("more than %d bytes received: the rest is counted, not recorded" % MAX_RECORDED_BYTES)
        self._line("RX", data)
        if not self._rx.closed:
            self._rx.write(data)
            self._rx.flush()

    def note(self, text):
        if not self._log.closed:
            self._log.write("%9.3f -- %s\n" % (time.monotonic() - self._start, text))
            self._log.flush()

    def close(self):
        if self.bytes_received > MAX_RECORDED_BYTES:
            self.note("%d bytes received in all, %d line ends" % (self.bytes_received, self.lines_received))
        self._log.close()
        self._rx.close()

    def __str__(self):
        return str(self.path)
