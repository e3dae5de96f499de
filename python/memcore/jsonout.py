"""JSON on standard output: one document per command, every schema named in one place.

Each `memcore COMMAND --json` prints one object whose "schema" names its format and
major version; docs/schemas/<name>.schema.json defines it (JSON Schema 2020-12) and
docs/json-output.md documents it.  Byte counts are integers, times seconds, rates per
second; a value that does not exist (an infinite ceiling, a flash region a device lacks)
is null, never NaN or Infinity, which JSON does not have.
"""
import json
import math

from memcore import terminal

SCHEMAS = {
    "check": "memcore.report/1",
    "compare": "memcore.compare/1",
    "ops": "memcore.ops/1",
    "plan": "memcore.plan/1",
    "roofline": "memcore.roofline/1",
    "devices": "memcore.devices/1",
    "verdicts": "memcore.verdicts/1",
    "export": "memcore.export/1",
    "hil": "memcore.parity/1",
    "monitor": "memcore.monitor/1",
    "sim": "memcore.sim/1",
    "report": "memcore.html/1",
    "shrink": "memcore.shrink/1",
    "firmware-module": "memcore.firmware-module/1",
    "error": "memcore.error/1",
}


def finite(value):
    """`value` with every non-finite float replaced by None, recursively."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value


def dumps(obj):
    """JSON with symbols kept; the control characters json leaves as they are (DEL, C1,
    the marks that reorder text) as \\u escapes, so a board's or a file's text in it
    cannot steer a terminal (they can only be inside strings: still the same JSON)."""
    text = json.dumps(finite(obj), indent=2, ensure_ascii=False, allow_nan=False, default=str)
    return terminal.BEYOND_C0.sub(lambda m: "\\u%04x" % ord(m.group()), text)


def emit(obj, stream=None):
    """Prints `obj` as one JSON document (symbols in strings kept when the stream can
    print them, \\u escapes otherwise: still the same JSON)."""
    text = dumps(obj)
    import sys
    stream = stream or sys.stdout
    if not terminal.can_print(stream, text):
        text = json.dumps(finite(obj), indent=2, ensure_ascii=True, allow_nan=False, default=str)
    terminal.write(text + "\n", stream)
