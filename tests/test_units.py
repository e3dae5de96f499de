"""Units people read: bytes in KiB/MiB or kB/MB, times in ns/µs/ms/s."""
import pytest

from memcore.units import format_bytes, format_count, format_ops_rate, format_seconds


@pytest.mark.parametrize("n, binary, decimal", [
    (0, "0 B", "0 B"), (512, "512 B", "512 B"), (16000, "15.6 KiB", "16.0 kB"), (72064, "70.4 KiB", "72.1 kB"),
    (203232, "198 KiB", "203 kB"), (4194304, "4.00 MiB", "4.19 MB"), (-91_955, "-89.8 KiB", "-92.0 kB"),
    (80_000 * 10**6, "74.5 GiB", "80.0 GB"),
])
def test_bytes(n, binary, decimal):
    assert format_bytes(n) == binary
    assert format_bytes(n, si=True) == decimal


@pytest.mark.parametrize("s, text", [(5.35e-7, "535 ns"), (6.32e-6, "6.32 µs"), (0.572, "572 ms"),
                                     (6.79, "6.79 s"), (600, "10.0 min")])
def test_seconds(s, text):
    assert format_seconds(s) == text


def test_counts_and_rates():
    assert format_count(72) == "72" and format_count(2_656_768) == "2.66 M"
    assert format_ops_rate(39e6) == "39.0 Mops/s" and format_ops_rate(5) == "5 ops/s"
