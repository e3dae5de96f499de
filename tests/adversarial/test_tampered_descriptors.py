"""Tampered model descriptors on the board script: exactly one report line each, an error
report naming the problem, never a verdict (so never "fits")."""
import hostile
from hostile import assert_clean


def test_tampered_descriptors_on_cpython(tally, tmp_path):
    hostile.descriptors_on_cpython(tally, 120, folder=tmp_path)
    assert_clean(tally, "descriptors (CPython)")


def test_tampered_descriptors_on_micropython_in_110k(tally, tmp_path):
    hostile.descriptors_on_micropython(tally, 60, folder=tmp_path)
    assert_clean(tally, "descriptors (MicroPython)")
