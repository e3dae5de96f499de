"""The parity rule: when a board's answer to a shared vector agrees with the host's.

A board computes what the host computes, but its MicroPython float may be single
precision (ESP32, most microcontroller ports: `float_bits` 32 in its header) where the
host's is double.  The C module still computes in double; what single precision changes
is the float arguments the board reads (a decimal such as 0.2 becomes the nearest single,
0.2000000030) and the float results it returns (rounded to single).  So:

1. Errors, strings, booleans, None and integers must be exactly the host's, and so must
   every field of a case whose float arguments the board holds exactly (integral values,
   halves, ...; on a double-precision board every argument).
2. Floats agree within the board's precision: |host - board| <= TOLERANCE * max(|host|,
   |board|), TOLERANCE = 2**-22 for single precision and 2**-51 for double, i.e. four
   units of the float's rounding error (2**-24, 2**-53).  Why four: the result's own
   rounding to the board's float (one unit), its arguments' rounding magnified at most
   twice by the core's formulas (quotients and sums of them: two units), and the host
   reading the board's shortest repr of a single back as a double (one unit).  The
   pure-Python fallback, which rounds after each float operation on a single-precision
   board, stays within the same bound on every shared vector (measured: about 2 units).
3. A field the core derives from float arguments (roofline's crossover_batch and bound,
   latency's dominant) may differ by what the board's precision does to those arguments:
   the host computes the case again with every float argument the board cannot hold
   exactly moved by TOLERANCE each way (all combinations), and a board value agrees if
   it lies between the smallest and the largest of those answers (a label: is one of
   them; a float: within TOLERANCE of that range).  The core's answers move monotonically
   with each float argument, so the combinations bound everything in between.  On a
   double-precision board nothing moves: such fields are exact there.

`memcore hil` and firmware_tests/test_parity.py apply exactly this rule
(firmware_tests/README.md says it in a user's words).
"""
import itertools
import math
import struct

TOLERANCE = {32: 2.0 ** -22, 64: 2.0 ** -51}


def tolerance(float_bits):
    """The relative float tolerance for a board whose floats have `float_bits` bits
    (anything but 64 is taken as single precision, the looser rule)."""
    return TOLERANCE[64] if float_bits == 64 else TOLERANCE[32]


def held_exactly(value, float_bits):
    """Whether a board with `float_bits`-bit floats holds this double exactly."""
    if float_bits == 64:
        return True
    try:
        return struct.unpack("<f", struct.pack("<f", value))[0] == value
    except OverflowError:
        return False


def moved_arguments(args, float_bits):
    """Every combination of the float arguments the board cannot hold exactly, each moved
    by the tolerance down or up; [] when there is no such argument."""
    tol = tolerance(float_bits)
    movable = sorted(name for name, v in args.items()
                     if isinstance(v, float) and math.isfinite(v) and not held_exactly(v, float_bits))
    moved = []
    for signs in itertools.product((-1, 1), repeat=len(movable)):
        a = dict(args)
        for name, sign in zip(movable, signs):
            a[name] = args[name] * (1 + sign * tol)
        moved.append(a)
    return moved


def _is_float(v):
    return isinstance(v, float)


def same(want, got, tol):
    """Rules 1 and 2 for one value (lists element by element)."""
    if isinstance(want, bool) or isinstance(got, bool) or want is None or got is None:
        return want is got
    if _is_float(want) or _is_float(got):
        if not isinstance(got, (int, float)) or not isinstance(want, (int, float)):
            return False
        if math.isinf(want) or math.isinf(got) or want == 0 or got == 0:
            return want == got
        return abs(want - got) <= tol * max(abs(want), abs(got))
    if isinstance(want, list):
        return isinstance(got, list) and len(want) == len(got) and all(same(w, g, tol) for w, g in zip(want, got))
    return want == got and type(want) is type(got)


def within(got, answers, tol):
    """Rule 3: `got` agrees with one of the host's answers for moved arguments, or lies
    between them."""
    if any(same(a, got, tol) for a in answers):
        return True
    if isinstance(got, bool):
        return False
    if _is_float(got) and all(isinstance(a, (int, float)) and not isinstance(a, bool) for a in answers):
        low, high = min(answers), max(answers)
        return low * (1 - tol if low > 0 else 1 + tol) <= got <= high * (1 + tol if high > 0 else 1 - tol)
    if isinstance(got, int) or got is None:
        # None ("no crossover") lies beyond every integer: more balance, later crossover
        def key(v):
            return math.inf if v is None else v
        if not all(isinstance(a, int) and not isinstance(a, bool) or a is None for a in answers):
            return False
        return min(map(key, answers)) <= key(got) <= max(map(key, answers))
    return False


#: how each compared field agreed, for the report's table
EXACT, WITHIN_PRECISION, MOVED = "exact", "within_precision", "moved_arguments"


def differences(host, args, board, float_bits, tally=None):
    """[(field, host value, board value)] for one case under the rule.

    host   host(args) -> the host's outcome for these arguments, {"fields": {...}} or
           {"error": text}, with every field the board reported
    board  the board's outcome, same shape
    tally  a dict counting the agreeing fields by how they agreed: EXACT (equal, errors
           included), WITHIN_PRECISION (rule 2), MOVED (rule 3)"""
    tally = {} if tally is None else tally
    tol = tolerance(float_bits)
    expected = host(args)
    if "error" in expected or "error" in board:
        if ("error" in expected) != ("error" in board):
            return [("error", expected.get("error", "no error"), board.get("error", "no error"))]
        tally[EXACT] = tally.get(EXACT, 0) + 1
        return []
    answers = None  # the host at moved arguments: only needed when a field is not plainly equal
    diffs = []
    for name, want in expected["fields"].items():
        got = board.get("fields", {}).get(name, "<missing>")
        if same(want, got, tol):
            how = EXACT if same(want, got, 0.0) else WITHIN_PRECISION
        else:
            if answers is None:
                answers = [o["fields"] for o in map(host, moved_arguments(args, float_bits)) if "fields" in o]
            if not (answers and within(got, [want] + [a.get(name) for a in answers], tol)):
                diffs.append((name, want, got))
                continue
            how = MOVED
        tally[how] = tally.get(how, 0) + 1
    return diffs
