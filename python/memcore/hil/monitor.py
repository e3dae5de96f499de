"""Listening to a board: its boot reports, its reboots, and the rest as console lines.

Passive: nothing is sent unless a reset is asked for, so what a board prints at boot
(the boot check's `@memcore` report) can be watched as it happens.

What the board prints is untrusted.  The boot check prints one report per boot, so only
the first report line after a reboot is the board's verdict: another one in the same boot
(an application printing a "fits" after the real "does_not_fit") is a problem, never a
verdict.  A `@memcore` line that is not a valid report, and a line longer than
lines.MAX_LINE_CHARS, are problems too; each names its line number in the transcript.
"""
import time

import serial

from memcore.hil import lines
from memcore.hil.errors import BoardDisconnected
from memcore.hil.transport import READ_BLOCK, REBOOT_MARKERS

_TOO_LONG = lines.MAX_LINE_CHARS * 4  # bytes: a line of MAX_LINE_CHARS UTF-8 characters at most


class Heard:
    """What a board said while watched: the verdicts, and the lines that broke the protocol."""

    def __init__(self):
        self.reports = []     # the boot check's reports, one per boot
        self.problems = []    # (transcript line, what is wrong)
        self.reboots = 0
        self.interrupted = False  # stopped by Ctrl-C

    def __iter__(self):  # reports, problems = watch(...)
        return iter((self.reports, self.problems))


def watch(port, seconds=None, count=None, on_report=None, on_reboot=None, on_line=None, on_problem=None,
          transcript=None, after_reboot_only=False):
    """Read `port` until `seconds` pass, `count` reports arrived or Ctrl-C; returns a Heard.

    on_report(obj), on_reboot(marker text), on_line(text), on_problem(line number, text)
    are called as things arrive.  With `after_reboot_only` (the board was just reset), a
    report before the first reboot is a problem: it cannot be that boot's check."""
    heard = Heard()
    report_line = None    # line number of this boot's report
    seen_boot = False

    def problem(line_number, text):
        heard.problems.append((line_number, text))
        if on_problem:
            on_problem(line_number, text)

    def one_line(raw, line_number):
        nonlocal report_line, seen_boot
        text = raw.decode("utf-8", "replace").rstrip("\r")
        try:
            obj = lines.parse_line(text)
        except lines.BadLine as exc:
            problem(line_number, str(exc))
            return
        if obj is not None and obj["schema"] in (lines.REPORT, lines.REPORT_ERROR):
            if report_line is not None:
                problem(line_number, "a second report in one boot (the boot check's is line %d): not the "
                                     "board's verdict" % report_line)
            elif after_reboot_only and not seen_boot:
                problem(line_number, "a report before the board rebooted: not this boot's check")
            else:
                report_line = line_number
                heard.reports.append(obj)
                if on_report:
                    on_report(obj)
            return
        if REBOOT_MARKERS.search(raw + b"\n"):
            report_line, seen_boot = None, True
            heard.reboots += 1
            if on_reboot:
                on_reboot(text)
        elif on_line and text.strip():
            on_line(text)

    try:
        _listen(port, seconds, count, transcript, heard, one_line, problem)
    except KeyboardInterrupt:
        heard.interrupted = True
    return heard


def _listen(port, seconds, count, transcript, heard, one_line, problem):
    pending = bytearray()
    number = 1            # transcript line number of pending's first byte
    skipping = False      # inside a line too long to keep: dropped up to its end
    end = None if seconds is None else time.monotonic() + seconds
    while (end is None or time.monotonic() < end) and (count is None or len(heard.reports) < count):
        try:
            data = port.read(READ_BLOCK)
        except (serial.SerialException, OSError) as exc:
            raise BoardDisconnected("connection lost: %s" % exc, bytes(pending[-200:]), transcript) from exc
        if not data:
            time.sleep(0.02)
            continue
        if transcript is not None:
            transcript.got(data)
        pending += data
        start = 0
        while count is None or len(heard.reports) < count:
            newline = pending.find(b"\n", start)
            if newline < 0:
                break
            if skipping:
                skipping = False
            else:
                one_line(bytes(pending[start:newline]), number)
            number += 1
            start = newline + 1
        del pending[:start]
        if len(pending) > _TOO_LONG and not skipping:
            if pending.startswith(lines.PREFIX.encode()):
                problem(number, "a line longer than %d characters" % lines.MAX_LINE_CHARS)
            else:
                one_line(bytes(pending[:200]) + "… (a line too long to show)".encode(), number)
            skipping = True
        if skipping:
            pending.clear()
