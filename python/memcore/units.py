"""Numbers as people read them: bytes in KiB/MiB (or kB/MB), times in µs/ms/s.

Only formatting lives here; every value shown was computed by the C core.  Bytes are
binary (KiB = 1,024 B) by default because linker maps, `gc.mem_free()` and TFLM's
allocator all count that way; `si=True` gives decimal kB/MB for datasheets that do.
"""

import re

_IEC = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")
_SI = ("B", "kB", "MB", "GB", "TB", "PB")


def format_bytes(n_bytes, si=False):
    """'512 B', '70.4 KiB', '-1.5 MiB' (or '72.1 kB' with si).  Signed, so a negative
    headroom reads as a shortfall."""
    base, names = (1000, _SI) if si else (1024, _IEC)
    sign = "-" if n_bytes < 0 else ""
    magnitude = abs(n_bytes)
    if magnitude < base:
        return "%s%d B" % (sign, magnitude)
    scaled = float(magnitude)
    unit = 0
    while scaled >= base and unit < len(names) - 1:
        scaled /= base
        unit += 1
    # Three significant digits keep columns narrow without hiding a 1 % difference.
    text = ("%.2f" if scaled < 10 else "%.1f" if scaled < 100 else "%.0f") % scaled
    return "%s%s %s" % (sign, text, names[unit])


def format_seconds(seconds):
    """'850 ns', '12.3 µs', '4.06 ms', '1.20 s', '3.5 min'."""
    sign = "-" if seconds < 0 else ""
    s = abs(seconds)
    for limit, scale, unit in ((1e-6, 1e9, "ns"), (1e-3, 1e6, "µs"), (1.0, 1e3, "ms"), (120.0, 1.0, "s")):
        if s < limit:
            return sign + _three_digits(s * scale) + " " + unit
    return sign + _three_digits(s / 60.0) + " min"


def format_count(n):
    """Operation counts: '72', '192 k', '2.66 M', '7.70 G'."""
    for scale, unit in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(n) >= scale:
            return _three_digits(n / scale) + " " + unit
    return "%d" % n


def format_rate(n_bytes_per_second, si=False):
    """Bandwidths: '40.0 MiB/s'."""
    return format_bytes(int(round(n_bytes_per_second)), si=si) + "/s"


def format_ops_rate(ops_per_second):
    """'240 Mops/s'."""
    text = format_count(ops_per_second)
    return text + ("ops/s" if text[-1].isalpha() else " ops/s")


def _three_digits(x):
    return ("%.2f" if abs(x) < 10 else "%.1f" if abs(x) < 100 else "%.0f") % x


def format_duration(seconds):
    """Long times as people plan them: '45.0 min', '6.20 h', '12.3 days', '2.10 years'."""
    if seconds < 120:
        return format_seconds(seconds)
    for limit, scale, unit in ((7200, 60, "min"), (172800, 3600, "h"), (2 * YEAR_SECONDS, 86400, "days")):
        if seconds < limit:
            return _three_digits(seconds / scale) + " " + unit
    return _three_digits(seconds / YEAR_SECONDS) + " years"


def format_joules(joules):
    """'850 nJ', '12.3 mJ', '4.06 J', '26.6 kJ'."""
    for limit, scale, unit in ((1e-6, 1e9, "nJ"), (1e-3, 1e6, "µJ"), (1.0, 1e3, "mJ"), (1e3, 1.0, "J")):
        if abs(joules) < limit:
            return _three_digits(joules * scale) + " " + unit
    return _three_digits(joules / 1e3) + " kJ"


def format_watts(watts):
    """'2.64 mW', '224 mW', '1.20 W'."""
    for limit, scale, unit in ((1e-3, 1e6, "µW"), (1.0, 1e3, "mW")):
        if abs(watts) < limit:
            return _three_digits(watts * scale) + " " + unit
    return _three_digits(watts) + " W"


# ---- what a user types: budgets with their units ---------------------------------------

YEAR_SECONDS = 365 * 86400
_DURATION_UNITS = {"us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0, "d": 86400.0,
                   "w": 7 * 86400.0, "y": float(YEAR_SECONDS)}
_NUMBER = r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*"


def _parse(text, pattern, what, example):
    match = re.fullmatch(pattern, text.strip(), re.IGNORECASE) if isinstance(text, str) else None
    if match is None:
        raise ValueError("%s must be %s, got %r" % (what, example, text))
    return match


def parse_duration(text, what="a duration"):
    """Seconds from '30d', '12h', '90min', '250ms', '0.05s', '1y' (365 days) or '2w'.  The
    unit is required: a bare '50' could be seconds or milliseconds, so it is an error
    that says so."""
    import math
    example = "a number with a unit: 250ms, 10s, 90min, 12h, 30d, 2w, 1y"
    if isinstance(text, str) and re.fullmatch(_NUMBER, text):
        raise ValueError("%s needs a unit, got the bare number %r: write %sms or %ss (%s)"
                         % (what, text.strip(), text.strip(), text.strip(), example))
    match = _parse(text, _NUMBER + r"(us|µs|ms|s|min|h|d|w|y)\s*", what, example)
    value = float(match.group(1)) * _DURATION_UNITS[match.group(2).lower()]
    if not math.isfinite(value):
        raise ValueError("%s must be finite, got %r" % (what, text))
    return value


def parse_battery(text):
    """Joules from a capacity: '2000mAh@3.7V' (charge at a voltage), '7.4Wh', '26640J',
    '26.6kJ'."""
    import math
    match = _parse(text, _NUMBER + r"(mAh|Ah|Wh|mWh|J|kJ)\s*(?:@" + _NUMBER + r"V)?\s*", "a battery",
                   "a capacity with its unit: 2000mAh@3.7V, 7.4Wh or 26640J")
    value, unit, volts = float(match.group(1)), match.group(2).lower(), match.group(3)
    if unit in ("mah", "ah"):
        if volts is None:
            raise ValueError("a battery in %s needs its voltage, e.g. %s@3.7V" % (match.group(2), text.strip()))
        joules = value * (3.6 if unit == "mah" else 3600.0) * float(volts)
    else:
        if volts is not None:
            raise ValueError("a battery in %s already holds its energy; leave out the @%sV" % (match.group(2),
                                                                                              volts))
        joules = value * {"wh": 3600.0, "mwh": 3.6, "j": 1.0, "kj": 1e3}[unit]
    if not math.isfinite(joules) or joules <= 0:
        raise ValueError("a battery's capacity must be above 0, got %r" % text)
    return joules
