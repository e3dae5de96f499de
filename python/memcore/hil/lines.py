"""The board's machine-readable lines: `@memcore ` followed by one JSON object.

Anything else the board prints (boot logs, warnings, line noise, a line cut short by a
reset) is console noise: kept for the report, never an error.
"""
import json

PREFIX = "@memcore "
HEADER = "memcore.board/1"
RESULT = "memcore.vector-result/1"
END = "memcore.vector-end/1"
REPORT = "memcore.report/1"


def split_lines(data):
    """Text lines of raw board output (bytes or str), without line ends."""
    if isinstance(data, (bytes, bytearray)):
        data = bytes(data).decode("utf-8", "replace")
    return [line.rstrip("\r") for line in data.split("\n")]


def parse_line(line):
    """The JSON object on a `@memcore ` line, or None for noise.

    The prefix may come after noise on the same line (a log prefix, garbage after a
    reset); the object runs to the end of the line."""
    at = line.find(PREFIX)
    if at < 0:
        return None
    try:
        obj = json.loads(line[at + len(PREFIX):])
    except ValueError:
        return None
    return obj if isinstance(obj, dict) and isinstance(obj.get("schema"), str) else None


def parse(data):
    """(objects, noise lines) in the order the board printed them."""
    objects, noise = [], []
    for line in split_lines(data):
        obj = parse_line(line)
        if obj is not None:
            objects.append(obj)
        elif line.strip():
            noise.append(line)
    return objects, noise
