"""Numbers as people read them: bytes in KiB/MiB (or kB/MB), times in µs/ms/s.

Only formatting lives here; every value shown was computed by the C core.  Bytes are
binary (KiB = 1,024 B) by default because linker maps, `gc.mem_free()` and TFLM's
allocator all count that way; `si=True` gives decimal kB/MB for datasheets that do.
"""

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
