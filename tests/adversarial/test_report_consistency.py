"""Boot reports checked as a whole (memcore.hil.consistency, through lines.validate, which
`memcore monitor` and `memcore hil` both read boards with): every report the board script
prints for real models, devices, placements, memory and budgets passes, also rounded to a
single-precision board's floats; a report whose parts disagree is refused, naming the
field, as a forged or inconsistent report."""
import copy
import itertools
import json
import struct
import sys

import pytest

import hostile
import memcore
from memcore import descriptor
from memcore.check import Budgets
from memcore.hil import lines
from memcore.profiles import profile


_REPORTS = []


def real_reports():
    if not _REPORTS:
        _REPORTS.extend(_real_reports())
    return _REPORTS


def _real_reports():
    """(name, report) the board script prints: through the C module (every resource's
    fields) and from the descriptor alone, for fitting and short models, met and missed
    budgets."""
    sys.path.insert(0, str(hostile.DEVICE_DIR))   # the board script imports its helpers lazily
    try:
        import memcore_boot as boot
        yield from _reports(boot)
    finally:
        sys.path.remove(str(hostile.DEVICE_DIR))


def _reports(boot):
    models = ["tiny_mlp_int8.tflite", "kws_dscnn_int8.tflite", "mnist_cnn_float32.tflite", "resnet8_int8.tflite"]
    devices = ["esp32", "esp32-psram", "nucleo-l4r5zi"]
    budgets = [None, Budgets(latency_seconds=1e-6), Budgets(battery_joules=1.0, battery_life_seconds=3e7,
                                                            inferences_per_hour=3600)]
    for name, device, placement, budget, available in itertools.product(
            models, devices, ("ram", "flash"), budgets, (20_000, 400_000)):
        path = str(hostile.MODELS / name)
        d = descriptor.describe(memcore.load(path), profile(device), placement=placement, budgets=budget)
        what = "%s on %s, weights in %s, %s, %d B" % (name, device, placement, budget, available)
        yield "C check: " + what, hostile.c_check_report(name, device, placement, available, budget)
        yield "descriptor: " + what, boot.check(d, available=available, device=device, report=False, module=memcore)


def _single(report):
    """The report as a board with 32-bit floats prints it."""
    return {k: struct.unpack("<f", struct.pack("<f", v))[0] if type(v) is float else v for k, v in report.items()}


def test_every_real_report_is_consistent():
    verdicts = set()
    for name, report in real_reports():
        for variant in (report, _single(report)):
            obj = json.loads(json.dumps(variant))
            try:
                lines.validate(obj)
            except lines.BadLine as exc:
                pytest.fail("%s: %s\n%s" % (name, exc, obj))
        verdicts.add((report["source"], report["verdict"]))
    # the property covers every verdict, from both kinds of board
    assert verdicts == {(s, v) for s in ("model", "descriptor") for v in ("fits", "does_not_fit", "misses_budget")}


def _a_report(verdict, source="model"):
    for _, report in real_reports():
        if report["verdict"] == verdict and report["source"] == source:
            return copy.deepcopy(report)
    raise AssertionError("no %s report" % verdict)


def _refused(report):
    with pytest.raises(lines.BadLine) as info:
        lines.validate(json.loads(json.dumps(report)))
    message = str(info.value)
    assert message.startswith("forged or inconsistent report: "), message
    return message


def test_fits_with_ram_short():
    r = _a_report("fits")
    r["ram_fits"] = False
    assert "field 'ram_fits' is false, but ram_need" in _refused(r)


def test_fits_with_flash_short():
    r = _a_report("fits")
    r["flash_checked"], r["flash_fits"] = True, False
    assert "flash_fits is false" in _refused(r) or "field 'flash_fits'" in _refused(r)


def test_fits_with_a_flash_need_of_9e9_against_2_mib():
    # was: "fits", exit 0
    r = _a_report("fits")
    r.update(flash_checked=True, flash_fits=True, flash_need=9e9, flash_limit=2097152.0,
             flash_margin=2097152.0 - 9e9)
    assert _refused(r) == ("forged or inconsistent report: field 'flash_fits' is true, but flash_need "
                           "9000000000.0 is above flash_limit 2097152.0")


def test_does_not_fit_with_everything_fitting():
    r = _a_report("fits")
    r["verdict"] = "does_not_fit"
    r["limiting_resource"] = "ram"
    assert "field 'verdict' is 'does_not_fit', but every resource fits" in _refused(r)


def test_misses_budget_with_memory_short():
    r = _a_report("does_not_fit")
    r["verdict"] = "misses_budget"
    assert "memory is short" in _refused(r)


def test_a_resource_half_reported():
    r = _a_report("fits")
    del r["latency_margin"]
    assert "field 'latency_margin' is missing" in _refused(r)


def test_a_nan_need():
    r = _a_report("fits")
    r["battery_need"] = float("nan")
    assert "field 'battery_need' is nan" in _refused(r)


def test_a_margin_that_is_not_limit_minus_need():
    r = _a_report("fits")
    r["ram_margin"] += 1000.0
    assert "field 'ram_margin'" in _refused(r)


def test_the_arena_resource_is_not_the_headline():
    r = _a_report("fits")
    r["available_bytes"] += 10_000
    r["headroom_bytes"] += 10_000
    assert "are no arena resource's need and limit" in _refused(r)


def test_limiting_resource_that_does_not_decide():
    r = _a_report("does_not_fit")
    r["limiting_resource"] = "latency"
    assert "field 'limiting_resource' is 'latency'" in _refused(r)


def test_descriptor_report_fits_with_negative_headroom():
    r = _a_report("does_not_fit", "descriptor")
    r["verdict"] = "fits"
    assert "field 'verdict' is 'fits' with headroom_bytes" in _refused(r)
