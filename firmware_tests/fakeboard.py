"""A misbehaving board for the harness's fault tests: just enough raw REPL to be driven,
then the fault it was asked for.

It answers the raw-REPL protocol (enter, plain and raw-paste exec, soft reset), prints
the given `@memcore` lines when asked to run the vector runner, and answers any other
code with empty output.  Runs as a script on a pty (`python fakeboard.py MODE LINES.json`)
or in a thread on a socket (socket:// boards).

modes
  normal   behaves
  nopaste  refuses raw-paste (plain raw REPL only)
  garbage  line noise at boot and between the result lines
  babble   answers everything with garbage, never a prompt
  silent   never sends a byte
  slow     sends the result lines DELAY seconds apart
  hang     sends half the result lines, then nothing more
  reset    sends half the result lines, then an ESP32 ROM boot log and banner
  die      sends half the result lines, then the process exits (status 3)
  drop     sends half the result lines, then closes the socket
  wrong    one result field is off by one
  oldboard its header names another memcore version
  boot     boots twice like an ESP32 running the boot check: ROM log, a report, banner (twice)
  script   replays a hostile script instead of LINES (a JSON object, see below)

A script is {"boot": [chunk, ...], "run": [chunk, ...], "after": "prompt" | "hang" | "die"
| "exit" | "listen", "paste": true | false, "reset_first": true | false}: "boot" is sent when
the board starts (with "reset_first", once the host has sent a byte: a reset), "run" when
the host runs the vector runner (any code naming memcore_vectors), then "after" says what
happens: the raw REPL's end of output and prompt (default), silence, the process exiting with
status 3, or the process exiting 0 (a reset on the unix port); "listen" (for boot-only
scripts) sends nothing more and reads until the port closes.  A chunk is a string (sent as
UTF-8, line ends included by the script), {"hex": "0d0a"} for raw bytes, {"repeat": text,
"bytes": n} for a flood of n bytes, or {"sleep": seconds}.
"""
import json
import os
import random
import sys
import threading
import time
import tty

BANNER = b'MicroPython v1.99.0-fake on 2026-01-01; fake board with ESP32\r\nType "help()" for more information.\r\n>>> '
RAW_BANNER = b"\r\nraw REPL; CTRL-B to exit\r\n>"
ROM_LOG = (b"ets Jun  8 2016 00:22:57\r\n\r\nrst:0x1 (POWERON_RESET),boot:0x13 (SPI_FAST_FLASH_BOOT)\r\n"
           b"configsip: 0, SPIWP:0xee\r\nmode:DIO, clock div:2\r\nload:0x3fff0030,len:4540\r\nentry 0x40080674\r\n")
WINDOW = 32
BOOT_REPORTS = [
    {"schema": "memcore.report/1", "model": name, "device": "esp32", "memcore_version": "0.1.0",
     "implementation": "c-module", "firmware": "MicroPython v1.99.0-fake on 2026-01-01", "source": "descriptor",
     "weights_bytes": weights, "weights_placement": "flash", "loaded_model_bytes": 0,
     "arena_tflm_bytes": arena, "arena_best_bytes": arena,
     "arena_lower_bound_bytes": arena, "runtime_overhead_bytes": 4000, "runtime_bytes": 5000,
     "recommended_arena_bytes": arena + 5000,
     "required_bytes": arena + 5000, "available_bytes": 101234, "headroom_bytes": 101234 - arena - 5000,
     "verdict": "fits" if arena + 5000 <= 101234 else "does_not_fit", "gc_free_bytes": 110000,
     "idf_largest_free_bytes": 90000, "host_agrees": True, "check_seconds": 0.02}
    for name, weights, arena in (("kws-small", 24000, 55000), ("person-detect", 250000, 295000))
]


def chunk_bytes(chunk):
    """The bytes of one script chunk (floods are sent by FakeBoard.send, block by block)."""
    if isinstance(chunk, str):
        return chunk.encode("utf-8")
    return bytes.fromhex(chunk["hex"])


def garbage(n, rng):
    # anything but the bytes that frame the raw REPL
    return bytes(b for b in (rng.randrange(256) for _ in range(n)) if b not in (4, ord(">"), 10))


class FakeBoard:
    def __init__(self, read, write, mode="normal", lines=(), delay=0.2):
        self.read1, self.write, self.mode, self.delay = read, write, mode, delay
        self.script = lines if mode == "script" else None
        self.lines = [] if mode == "script" else list(lines)
        self.rng = random.Random(5)

    def send(self, chunks):
        for chunk in chunks:
            if isinstance(chunk, dict) and "sleep" in chunk:
                time.sleep(chunk["sleep"])
            elif isinstance(chunk, dict) and "repeat" in chunk:
                block = chunk["repeat"].encode("utf-8")
                block = block * max(1, 65536 // len(block))
                left = chunk["bytes"]
                while left > 0:
                    self.write(block[:left])
                    left -= len(block)
            else:
                self.write(chunk_bytes(chunk))

    def run(self):
        if self.mode == "boot":
            for report in BOOT_REPORTS:
                self.write(ROM_LOG + b"I (29) boot: ESP-IDF v5.2\r\n@memcore " + json.dumps(report).encode()
                           + b"\r\n" + BANNER + b"\r\n")
        if self.script is not None:
            if self.script.get("reset_first") and not self.read1():
                return None
            self.send(self.script.get("boot", ()))
            if self.script.get("after") == "listen":
                while self.read1():
                    pass
                return
        if self.mode in ("silent", "boot"):
            while self.read1():
                pass
            return
        if self.mode in ("garbage", "babble"):
            self.write(garbage(300, self.rng) + b"\r\n")
        self.write(BANNER)
        raw = False
        while True:
            c = self.read1()
            if not c:
                return
            if self.mode == "babble":
                self.write(garbage(40, self.rng))
                continue
            if not raw:
                if c == b"\x01":
                    raw = True
                    self.write(RAW_BANNER)
                elif c == b"\x03":
                    self.write(b"\r\n>>> ")
                continue
            if c == b"\x02":
                raw = False
                self.write(b"\r\n" + BANNER)
            elif c == b"\x01":
                self.write(RAW_BANNER)
            elif c == b"\x05":
                self.read1(), self.read1()  # 'A', '\x01'
                if self.mode == "nopaste" or self.script is not None and self.script.get("paste") is False:
                    self.write(b"R\x00")
                    continue
                self.write(b"R\x01" + WINDOW.to_bytes(2, "little"))
                code, n = bytearray(), 0
                while True:
                    c = self.read1()
                    if not c or c == b"\x04":
                        break
                    code += c
                    n += 1
                    if n % WINDOW == 0:
                        self.write(b"\x01")
                self.write(b"\x04")
                outcome = self.respond(bytes(code))
                if outcome is not None:
                    return outcome
            elif c == b"\x04":
                self.write(b"OK\r\nMPY: soft reboot\r\n" + RAW_BANNER[2:])
            elif c not in (b"\x03", b"\r"):
                code = bytearray(c)
                while True:
                    c = self.read1()
                    if not c:
                        return
                    if c == b"\x04":
                        break
                    code += c
                self.write(b"OK")
                outcome = self.respond(bytes(code))
                if outcome is not None:
                    return outcome

    def respond(self, code):
        if b"float width probe" in code:   # memcore.hil.parity.FLOAT_PROBE: what its floats compute
            bits = (self.script or {}).get("float_bits", 64)
            self.write((b"9.094947017729282e-13" if bits == 64 else b"0.0") + b"\r\n\x04\x04>")
            return None
        if b"memcore_vectors" not in code:
            self.write(b"\x04\x04>")
            return None
        if self.script is not None:
            self.send(self.script.get("run", ()))
            after = self.script.get("after", "prompt")
            if after == "prompt":
                self.write(b"\x04\x04>")
                return None
            if after == "hang":
                while self.read1():
                    pass
            return after
        half = len(self.lines) // 2
        for i, line in enumerate(self.lines):
            if i == half and self.mode in ("hang", "reset", "die", "drop"):
                break
            if self.mode == "garbage":
                self.write(garbage(30, self.rng) + b"\r\n")
            if self.mode == "slow":
                time.sleep(self.delay)
            self.write(line.encode() + b"\r\n")
        if self.mode == "hang":
            while self.read1():
                pass
            return "stop"
        if self.mode == "reset":
            self.write(b"@memcore {\"schema\": \"memcore.vector-res" + ROM_LOG + BANNER)
            return "stop"
        if self.mode in ("die", "drop"):
            return "stop"
        self.write(b"\x04\x04>")
        return None


class FakeBoardOnPty:
    """A FakeBoard in a thread on a pseudo-terminal: `name` is the port the harness opens,
    as it opens /dev/ttyUSB0 (pyserial's tty path, no process to start).  close() unplugs it."""

    def __init__(self, lines, mode="script", delay=0.2):
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)  # no echo, no newline translation: a UART's bytes as sent
        self.name = os.ttyname(self.slave)
        master = self.master

        def write(data):
            view = memoryview(data)
            while view:
                view = view[os.write(master, view):]

        # The board's power-on output (banner, boot script) is written before the port is
        # handed out: opening a port discards what is waiting in it, so the output is then
        # always gone, as on a board powered long before.  Racing the open, it lands in the
        # transcript only sometimes and shifts every line number after it.
        listening = threading.Event()

        def read1():
            listening.set()
            return os.read(master, 1)

        def serve():
            try:
                FakeBoard(read1, write, mode, lines, delay).run()
            except OSError:
                pass  # unplugged
            finally:
                listening.set()

        self.thread = threading.Thread(target=serve, daemon=True)
        self.thread.start()
        listening.wait(5)  # a boot flood fills the pty and blocks until the host reads

    def close(self):
        for fd in (self.slave, self.master):
            try:
                os.close(fd)
            except OSError:
                pass
        self.thread.join(2)


def write_all(data):
    view = memoryview(data)
    while view:
        view = view[os.write(1, view):]


def main():
    mode, lines_path = sys.argv[1], sys.argv[2]
    delay = float(sys.argv[3]) if len(sys.argv) > 3 else 0.2
    lines = json.load(open(lines_path))
    if mode == "wrong":
        lines = [l.replace('"required_bytes": 68,', '"required_bytes": 69,') for l in lines]
    if mode == "oldboard":
        lines = [l.replace('"memcore_version": "', '"memcore_version": "0.0.9-was-') for l in lines]
    board = FakeBoard(lambda: os.read(0, 1), write_all, mode, lines, delay)
    after = board.run()
    if mode == "die" or after == "die":
        os._exit(3)
    if after == "exit":
        os._exit(0)
    if mode in ("reset", "hang"):
        while os.read(0, 1):
            pass


if __name__ == "__main__":
    main()
