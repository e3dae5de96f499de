"""The board's machine-readable lines: `@memcore ` at the start of a line, then one JSON object.

Everything a board sends is untrusted.  A line that does not start with the prefix is
console noise (boot logs, warnings, a user's print, line noise): kept for the report,
never parsed.  A line that does start with it must be one well-formed object of a known
schema, every field of the right type; anything else raises `BadLine` saying what is
wrong, so a harness can turn it into one clear error naming the transcript line.

Bounds: a line of at most MAX_LINE_CHARS characters and JSON nested at most MAX_DEPTH
deep (checked before parsing, so no recursion blows up), no key twice in one object.
"""
import json
import re

from memcore.hil import consistency

PREFIX = "@memcore "
HEADER = "memcore.board/1"
RESULT = "memcore.vector-result/1"
END = "memcore.vector-end/1"
REPORT = "memcore.report/1"
REPORT_ERROR = "memcore.report-error/1"

#: the longest line a board prints is a plan result with its offsets: well under this
MAX_LINE_CHARS = 64 * 1024
#: objects and lists inside one line: a result is 3 deep (line, fields, offsets)
MAX_DEPTH = 8
#: longest text field kept from a board (a model name, an error message)
MAX_TEXT_CHARS = 4096

_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}\Z")
_STRING_OR_BRACKET = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


class BadLine(ValueError):
    """A line that starts with the prefix but is not a valid memcore line."""


def split_lines(data):
    """Text lines of raw board output (bytes or str), without line ends."""
    if isinstance(data, (bytes, bytearray)):
        data = bytes(data).decode("utf-8", "replace")
    return [line.rstrip("\r") for line in data.split("\n")]


def _check_depth(text):
    depth = 0
    for match in _STRING_OR_BRACKET.finditer(text):
        c = match.group(0)
        if c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise BadLine("JSON nested more than %d deep" % MAX_DEPTH)
        elif c in "]}":
            depth -= 1


def _pairs_once(pairs):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise BadLine("key %s appears twice in one object" % _show(key))
        seen[key] = value
    return seen


def _show(value, limit=60):
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def decode(line):
    """The object on a prefixed line (its JSON checked, not its schema); BadLine if malformed."""
    if len(line) > MAX_LINE_CHARS:
        raise BadLine("line of %d characters, longer than the %d allowed" % (len(line), MAX_LINE_CHARS))
    body = line[len(PREFIX):]
    _check_depth(body)
    try:
        obj = json.loads(body, object_pairs_hook=_pairs_once)
    except BadLine:
        raise
    except (ValueError, RecursionError) as exc:  # JSONDecodeError; an integer of too many digits
        raise BadLine("not one JSON object (%s)" % exc) from None
    if not isinstance(obj, dict):
        raise BadLine("not a JSON object but %s" % type(obj).__name__)
    schema = obj.get("schema")
    if not isinstance(schema, str):
        raise BadLine("no \"schema\" string")
    return obj


# ---- schemas: field -> (check, required, what it must be) ------------------------------

def _int(v):
    return type(v) is int


def _count(v):
    return type(v) is int and v >= 0


def _text(v):
    return type(v) is str and len(v) <= MAX_TEXT_CHARS


def _value(v):
    """A result field: a JSON scalar, or a list of numbers (plan offsets)."""
    if v is None or type(v) in (bool, int, float) or _text(v):
        return True
    return type(v) is list and all(type(x) in (int, float) for x in v)


def _fields(v):
    return type(v) is dict and all(_NAME.match(k) and _value(x) for k, x in v.items())


INT = (_int, "an integer")
COUNT = (_count, "a non-negative integer")
TEXT = (_text, "a string of at most %d characters" % MAX_TEXT_CHARS)
NUMBER = (lambda v: type(v) in (int, float), "a number")
BOOL = (lambda v: type(v) is bool, "true or false")
COUNT_OR_NULL = (lambda v: v is None or _count(v), "a non-negative integer or null")
TEXT_OR_NULL = (lambda v: v is None or _text(v), "a string or null")
FIELDS = (_fields, "an object of fields: lower-case names, each a number, string, boolean, null "
                   "or list of numbers")


def _one_of(*choices):
    return (lambda v: type(v) is str and v in choices), " or ".join('"%s"' % c for c in choices)


def _req(kind):
    return kind + (True,)


def _opt(kind):
    return kind + (False,)


SCHEMAS = {
    HEADER: {"memcore_version": _req(TEXT), "api_version": _req(INT), "implementation": _req(TEXT),
             "float_bits": _req(((lambda v: type(v) is int and v in (32, 64)), "32 or 64")),
             "firmware": _req(TEXT), "platform": _req(TEXT)},
    RESULT: {"file": _req(TEXT), "case": _req(TEXT), "fields": _opt(FIELDS), "error": _opt(TEXT)},
    END: {"cases": _req(COUNT), "errors": _opt(COUNT)},
    REPORT: None,  # from the C core's field table: _report_schema() below
    REPORT_ERROR: {"error": _req(TEXT), "model": _opt(TEXT_OR_NULL)},
}


def _report_schema():
    """The boot report's fields: the board script's own (header, measurements), and the C
    check's report fields by the C core's names and kinds (csrc/src/fields.c) — the ones
    a board with the C module prints, of which a descriptor-only board prints a subset."""
    from memcore import _lowlevel as ll
    from memcore._memcore import lib
    kinds = {lib.MC_FIELD_INTEGER: INT, lib.MC_FIELD_REAL: NUMBER, lib.MC_FIELD_BOOL: BOOL,
             lib.MC_FIELD_NAME: TEXT_OR_NULL}
    fields = {name: _opt(kinds[kind]) for name, kind in ll.check_field_kinds().items()}
    fields.update({
        "model": _req(TEXT_OR_NULL), "device": _req(TEXT), "memcore_version": _req(TEXT),
        "implementation": _req(TEXT), "firmware": _req(TEXT),
        "source": _req(_one_of("model", "descriptor")),
        "weights_bytes": _req(COUNT), "weights_placement": _req(_one_of("ram", "flash")),
        "loaded_model_bytes": _req(COUNT),
        "arena_tflm_bytes": _req(COUNT), "arena_best_bytes": _req(COUNT), "arena_lower_bound_bytes": _req(COUNT),
        "runtime_overhead_bytes": _req(COUNT), "runtime_bytes": _req(COUNT), "recommended_arena_bytes": _req(COUNT),
        "required_bytes": _req(COUNT), "available_bytes": _req(COUNT), "headroom_bytes": _req(INT),
        "verdict": _req(_one_of("fits", "does_not_fit", "misses_budget")),
        "gc_free_bytes": _req(COUNT_OR_NULL), "idf_largest_free_bytes": _req(COUNT_OR_NULL),
        "host_agrees": _opt(BOOL), "check_seconds": _req(NUMBER),
    })
    return fields


SCHEMAS[REPORT] = _report_schema()


def validate(obj):
    """`obj` if its fields match its schema's; BadLine naming the first field that does not."""
    schema = obj["schema"]
    fields = SCHEMAS.get(schema)
    if fields is None:
        raise BadLine("unknown schema %s" % _show(schema))
    for key in obj:
        if key != "schema" and key not in fields:
            raise BadLine("%s line: unknown field %s" % (schema, _show(key)))
    for key, (check, what, required) in fields.items():
        if key not in obj:
            if required:
                raise BadLine("%s line: field %r is missing" % (schema, key))
        elif not check(obj[key]):
            raise BadLine("%s line: field %r must be %s, got %s" % (schema, key, what, _show(obj[key])))
    if schema == RESULT and ("fields" in obj) == ("error" in obj):
        raise BadLine("%s line: needs exactly one of \"fields\" and \"error\"" % schema)
    if schema == REPORT:
        _check_report(obj)
    return obj


def _check_report(r):
    """A boot report's fields must agree with each other (memcore.hil.consistency)."""
    found = consistency.problem(r)
    if found:
        raise BadLine("forged or inconsistent report: %s" % found)


def parse_line(line):
    """The validated object on a `@memcore ` line, or None for noise; BadLine when the line
    starts with the prefix but is not a valid memcore line."""
    if not line.startswith(PREFIX):
        return None
    return validate(decode(line))


def parse(data, first_line=1):
    """(objects, noise, bad) in the order the board printed them: objects are
    (line number, object); noise the other non-blank lines; bad (line number, problem,
    the line's start) for prefixed lines that are not valid.  Line numbers count from
    `first_line`, the number of the output's first line in the transcript."""
    objects, noise, bad = [], [], []
    for number, line in enumerate(split_lines(data), first_line):
        try:
            obj = parse_line(line)
        except BadLine as exc:
            bad.append((number, str(exc), line[:120]))
            continue
        if obj is not None:
            objects.append((number, obj))
        elif line.strip():
            noise.append(line)
    return objects, noise, bad
