"""Shared test vectors: tests/vectors/*.json, run the same way on the host and on a board.

A vector file names one public function and lists cases: keyword `args` and either
`expect` (field -> value; the field "value" means the return value itself) or
`error: true` (the call must raise ValueError — MemcoreError on the host).
Integers and strings must match exactly; floats within a relative tolerance that
the caller chooses (the board's own float precision, or near-exact on the host).
"""
import json
import math
import pathlib

SCHEMA = "memcore.vectors/1"


def load(path):
    data = json.loads(pathlib.Path(path).read_text())
    if data.get("schema") != SCHEMA:
        raise ValueError("%s: not a memcore vector file (schema %r)" % (path, data.get("schema")))
    return data


def outcome(module, function, case):
    """Run one case against `module` (memcore on the host, or the board's results
    already decoded); returns {"fields": {...}} or {"error": "text"}."""
    try:
        result = getattr(module, function)(**case["args"])
    except ValueError as exc:
        return {"error": str(exc)}
    fields = case.get("expect", {})
    if list(fields) == ["value"]:
        return {"fields": {"value": result}}
    return {"fields": {name: _plain(getattr(result, name)) for name in fields}}


def _plain(value):
    return list(value) if isinstance(value, tuple) else value


def differences(expected, actual, float_rel=1e-12):
    """Field-by-field differences between two outcomes: [(field, expected, actual)]."""
    if "error" in expected or "error" in actual:
        if ("error" in expected) != ("error" in actual):
            return [("error", expected.get("error", "no error"), actual.get("error", "no error"))]
        return []
    diffs = []
    for name, want in expected["fields"].items():
        got = actual["fields"].get(name, "<missing>")
        if not same(want, got, float_rel):
            diffs.append((name, want, got))
    return diffs


def same(want, got, float_rel):
    if isinstance(want, bool) or isinstance(got, bool) or want is None or got is None:
        return want is got or want == got and type(want) is type(got)
    if isinstance(want, float) or isinstance(got, float):
        if not isinstance(got, (int, float)) or not isinstance(want, (int, float)):
            return False
        if math.isinf(want) or math.isinf(got):
            return want == got
        return abs(want - got) <= float_rel * max(abs(want), abs(got), 1e-300)
    if isinstance(want, list):
        return isinstance(got, list) and len(want) == len(got) and all(
            same(w, g, float_rel) for w, g in zip(want, got))
    return want == got and type(want) is type(got)


def expected_outcome(case):
    return {"error": "expected an error"} if case.get("error") else {"fields": case["expect"]}
