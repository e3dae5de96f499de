"""A boot report checked as a whole: its verdict recomputed from its own numbers.

A board's report line (memcore.report/1) is untrusted.  lines.validate checks each field's
type; this checks that the fields agree with each other as the C check computes them
(csrc/src/check.c), so that a report cannot say "fits" while its own numbers say
otherwise.  Both `memcore monitor` and `memcore hil` read boards through lines.validate,
so both refuse such a line, as a forged or inconsistent report naming the field.

The rules:
- loaded_model_bytes is 0 with the weights in flash and at least weights_bytes with them
  loaded (the whole model file is); required_bytes is loaded_model_bytes plus
  recommended_arena_bytes, and
  headroom_bytes is available_bytes - required_bytes; a negative headroom is
  "does_not_fit" (every board prints these, with or without the C module).
- Each resource the C check reports (ram, psram, flash, latency, battery) comes with all of
  its five fields, or none; its need and limit are finite and not negative; a resource
  not checked fits; a checked one fits exactly when its need is at most its limit, and its
  margin is its limit - need.
- The verdict is the C check's: "does_not_fit" when RAM, PSRAM or flash is short,
  "misses_budget" when memory fits but latency or battery does not, "fits" otherwise.
- limiting_resource names a resource that decides the verdict: one that is short when
  the verdict is not "fits", a checked one when it is.
- The arena's resource (RAM or PSRAM) is the one whose need and limit are required_bytes
  and available_bytes.

A board with single-precision floats prints each need, limit and margin rounded to 24
bits: rounding keeps need <= limit and need >= limit as they were (it is monotonic), so
only equality and the margin's subtraction are compared within that precision.
"""
import math

MEMORY = ("ram", "psram", "flash")
BUDGETS = ("latency", "battery")
RESOURCES = MEMORY + BUDGETS
PARTS = ("checked", "fits", "need", "limit", "margin")
#: relative error of a single-precision board's printed need, limit and margin (2^-24
#: each), with room for the subtraction
_FLOAT_TOLERANCE = 2.0 ** -21


def problem(report):
    """What makes a memcore.report/1 object (its fields' types already checked)
    inconsistent, naming the field; None when its parts agree."""
    for check in (_sums, _resources, _verdict, _limiting, _arena):
        found = check(report)
        if found:
            return found
    return None


def _sums(r):
    loaded = r["loaded_model_bytes"]
    if r["weights_placement"] == "flash" and loaded != 0:
        return "field 'loaded_model_bytes' is %d with the weights read in place from flash" % loaded
    if r["weights_placement"] == "ram" and loaded < r["weights_bytes"]:
        return ("field 'loaded_model_bytes' is %d, less than the weights it loads (weights_bytes %d)"
                % (loaded, r["weights_bytes"]))
    if r["required_bytes"] != loaded + r["recommended_arena_bytes"]:
        return ("field 'required_bytes' is %d, not the model loaded into RAM (loaded_model_bytes %d) + "
                "recommended_arena_bytes (%d)" % (r["required_bytes"], loaded, r["recommended_arena_bytes"]))
    if r["headroom_bytes"] != r["available_bytes"] - r["required_bytes"]:
        return ("field 'headroom_bytes' is %d, not available_bytes - required_bytes (%d)"
                % (r["headroom_bytes"], r["available_bytes"] - r["required_bytes"]))
    # Memory short means "does not fit"; "fits" needs room (flash or another region can be
    # short with room in the arena, so does_not_fit with room is possible).
    if r["headroom_bytes"] < 0 and r["verdict"] != "does_not_fit":
        return "field 'verdict' is %r with headroom_bytes %d (memory is short)" % (r["verdict"], r["headroom_bytes"])
    return None


def _reported(r):
    """The resources whose fields the report has: {name: {part: value}}."""
    return {name: {part: r["%s_%s" % (name, part)] for part in PARTS}
            for name in RESOURCES if "%s_checked" % name in r}


def _close(a, b):
    return abs(a - b) <= _FLOAT_TOLERANCE * max(abs(a), abs(b), 1.0)


def _resources(r):
    for name in RESOURCES:
        present = [part for part in PARTS if "%s_%s" % (name, part) in r]
        if present and len(present) != len(PARTS):
            missing = next(part for part in PARTS if part not in present)
            return "field '%s_%s' is missing, while '%s_%s' is there" % (name, missing, name, present[0])
    for name, res in _reported(r).items():
        for part in ("need", "limit", "margin"):
            value = res[part]
            if not math.isfinite(value) or (part != "margin" and value < 0):
                return "field '%s_%s' is %r: a need or limit is a finite number >= 0" % (name, part, value)
        if not res["checked"]:
            if not res["fits"]:
                return "field '%s_fits' is false for a resource not checked (%s_checked false)" % (name, name)
            continue
        if res["fits"] and res["need"] > res["limit"]:
            return ("field '%s_fits' is true, but %s_need %r is above %s_limit %r"
                    % (name, name, res["need"], name, res["limit"]))
        if not res["fits"] and res["need"] < res["limit"]:
            return ("field '%s_fits' is false, but %s_need %r is below %s_limit %r"
                    % (name, name, res["need"], name, res["limit"]))
        if abs(res["margin"] - (res["limit"] - res["need"])) > _FLOAT_TOLERANCE * (res["limit"] + res["need"]):
            return ("field '%s_margin' is %r, not %s_limit - %s_need (%r)"
                    % (name, res["margin"], name, name, res["limit"] - res["need"]))
    return None


def _verdict(r):
    reported = _reported(r)
    if not reported:
        return None
    short = [name for name in RESOURCES if name in reported and not reported[name]["fits"]]
    memory_short = [name for name in short if name in MEMORY]
    if memory_short:
        expected = "does_not_fit"
    elif short:
        expected = "misses_budget"
    else:
        expected = "fits"
    if r["verdict"] == expected:
        return None
    if short and r["verdict"] == "fits":
        return "field 'verdict' is 'fits', but %s_fits is false" % short[0]
    if memory_short:
        return "field 'verdict' is %r, but %s_fits is false (memory is short: does_not_fit)" % (
            r["verdict"], memory_short[0])
    if len(reported) < len(RESOURCES):
        return None   # a resource the report leaves out may be the short one
    if short:
        return "field 'verdict' is %r, but only %s_fits is false (a budget: misses_budget)" % (r["verdict"], short[0])
    return "field 'verdict' is %r, but every resource fits (%s)" % (
        r["verdict"], ", ".join("%s_fits" % name for name in RESOURCES))


def _limiting(r):
    name = r.get("limiting_resource")
    reported = _reported(r)
    if name is None or name not in reported:
        return None if name is None or name in RESOURCES else "field 'limiting_resource' is %r" % name
    res = reported[name]
    if r["verdict"] == "fits" and not res["checked"]:
        return "field 'limiting_resource' is %r, a resource not checked (%s_checked false)" % (name, name)
    if r["verdict"] != "fits":
        decides = MEMORY if r["verdict"] == "does_not_fit" else BUDGETS
        if res["fits"] or name not in decides:
            return "field 'limiting_resource' is %r, which does not decide the verdict %r (%s_fits %s)" % (
                name, r["verdict"], name, "true" if res["fits"] else "false")
    return None


def _arena(r):
    reported = _reported(r)
    arenas = [name for name in ("ram", "psram") if name in reported]
    if not arenas:
        return None
    for name in arenas:
        res = reported[name]
        if res["checked"] and _close(res["need"], r["required_bytes"]) and _close(res["limit"], r["available_bytes"]):
            return None
    return ("fields 'required_bytes' %d and 'available_bytes' %d are no arena resource's need and limit (%s)"
            % (r["required_bytes"], r["available_bytes"], ", ".join(
                "%s_need %r, %s_limit %r" % (n, reported[n]["need"], n, reported[n]["limit"]) for n in arenas)))
