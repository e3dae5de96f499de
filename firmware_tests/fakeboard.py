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
  boot     boots like an ESP32 running the boot check: ROM log, two reports, banner
"""
import json
import os
import random
import sys
import time

BANNER = b'MicroPython v1.99.0-fake on 2026-01-01; fake board with ESP32\r\nType "help()" for more information.\r\n>>> '
RAW_BANNER = b"\r\nraw REPL; CTRL-B to exit\r\n>"
ROM_LOG = (b"ets Jun  8 2016 00:22:57\r\n\r\nrst:0x1 (POWERON_RESET),boot:0x13 (SPI_FAST_FLASH_BOOT)\r\n"
           b"configsip: 0, SPIWP:0xee\r\nmode:DIO, clock div:2\r\nload:0x3fff0030,len:4540\r\nentry 0x40080674\r\n")
WINDOW = 32
BOOT_REPORTS = [
    {"schema": "memcore.report/1", "model": "kws-small", "verdict": "fits", "headroom_bytes": 41234,
     "required_bytes": 60000, "free_bytes": 101234},
    {"schema": "memcore.report/1", "model": "person-detect", "verdict": "does_not_fit", "headroom_bytes": -198766,
     "required_bytes": 300000, "free_bytes": 101234},
]


def garbage(n, rng):
    # anything but the bytes that frame the raw REPL
    return bytes(b for b in (rng.randrange(256) for _ in range(n)) if b not in (4, ord(">"), 10))


class FakeBoard:
    def __init__(self, read, write, mode="normal", lines=(), delay=0.2):
        self.read1, self.write, self.mode, self.lines, self.delay = read, write, mode, list(lines), delay
        self.rng = random.Random(5)

    def run(self):
        if self.mode == "boot":
            self.write(ROM_LOG + b"I (29) boot: ESP-IDF v5.2\r\n" + b"\r\n".join(
                b"@memcore " + json.dumps(r).encode() for r in BOOT_REPORTS) + b"\r\n" + BANNER)
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
                if self.mode == "nopaste":
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
                if self.respond(bytes(code)) == "stop":
                    return
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
                if self.respond(bytes(code)) == "stop":
                    return

    def respond(self, code):
        if b"memcore_vectors" not in code:
            self.write(b"\x04\x04>")
            return None
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


def main():
    mode, lines_path = sys.argv[1], sys.argv[2]
    delay = float(sys.argv[3]) if len(sys.argv) > 3 else 0.2
    lines = json.load(open(lines_path))
    if mode == "wrong":
        lines = [l.replace('"required_bytes": 68,', '"required_bytes": 69,') for l in lines]
    if mode == "oldboard":
        lines = [l.replace('"memcore_version": "', '"memcore_version": "0.0.9-was-') for l in lines]
    board = FakeBoard(lambda: os.read(0, 1), lambda b: os.write(1, b), mode, lines, delay)
    board.run()
    if mode == "die":
        os._exit(3)
    if mode in ("reset", "hang"):
        while os.read(0, 1):
            pass


if __name__ == "__main__":
    main()
