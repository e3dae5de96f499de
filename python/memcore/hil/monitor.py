"""Listening to a board: its boot reports, its reboots, and the rest as console lines.

Passive: nothing is sent unless a reset is asked for, so what a board prints at boot
(the boot check's `@memcore` report) can be watched as it happens.
"""
import time

import serial

from memcore.hil import lines
from memcore.hil.errors import BoardDisconnected
from memcore.hil.transport import REBOOT_MARKERS


def watch(port, seconds=None, count=None, on_report=None, on_reboot=None, on_line=None, transcript=None):
    """Read `port` until `seconds` pass or `count` reports arrived; returns the reports.

    on_report(obj), on_reboot(marker text), on_line(text) are called as things arrive."""
    reports = []
    pending = b""
    end = None if seconds is None else time.monotonic() + seconds
    while (end is None or time.monotonic() < end) and (count is None or len(reports) < count):
        try:
            data = port.read(4096)
        except (serial.SerialException, OSError) as exc:
            raise BoardDisconnected("connection lost: %s" % exc, pending, transcript) from exc
        if not data:
            time.sleep(0.02)
            continue
        if transcript is not None:
            transcript.got(data)
        pending += data
        *complete, pending = pending.split(b"\n")
        for raw in complete:
            text = raw.decode("utf-8", "replace").rstrip("\r")
            obj = lines.parse_line(text)
            if obj is not None and obj.get("schema") == lines.REPORT:
                reports.append(obj)
                if on_report:
                    on_report(obj)
                continue
            marker = REBOOT_MARKERS.search(raw + b"\n")
            if marker and on_reboot:
                on_reboot(text)
            elif on_line and text.strip():
                on_line(text)
    return reports
