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


# (the verdict and source of a real report, the change, what the refusal says)
MUTATIONS = [
    ("fits", "model", {"ram_fits": False}, "field 'ram_fits' is false, but ram_need"),
    ("fits", "model", {"flash_checked": True, "flash_fits": False}, "field 'flash_fits' is false, but flash_need"),
    ("fits", "model", {"verdict": "does_not_fit", "limiting_resource": "ram"},
     "field 'verdict' is 'does_not_fit', but every resource fits"),
    ("does_not_fit", "model", {"verdict": "misses_budget"}, "memory is short"),
    ("fits", "model", {"latency_margin": None}, "field 'latency_margin' is missing"),
    ("fits", "model", {"battery_need": float("nan")}, "field 'battery_need' is nan"),
    ("fits", "model", {"ram_margin": 1e9}, "field 'ram_margin' is 1000000000.0, not ram_limit - ram_need"),
    ("fits", "model", {"available_bytes": +10_000, "headroom_bytes": +10_000},
     "are no arena resource's need and limit"),
    ("does_not_fit", "model", {"limiting_resource": "latency"}, "field 'limiting_resource' is 'latency'"),
    ("does_not_fit", "descriptor", {"verdict": "fits"}, "field 'verdict' is 'fits' with headroom_bytes"),
]


@pytest.mark.parametrize("verdict, source, change, says", MUTATIONS, ids=[m[3][:40] for m in MUTATIONS])
def test_a_report_whose_parts_disagree(verdict, source, change, says):
    """None deletes a field; an int added to an int field moves it by that much."""
    r = _a_report(verdict, source)
    for key, value in change.items():
        if value is None:
            del r[key]
        elif type(value) is int and key.endswith("_bytes"):
            r[key] += value
        else:
            r[key] = value
    assert says in _refused(r)


def test_fits_with_a_flash_need_of_9e9_against_2_mib():
    # was: "fits", exit 0
    r = _a_report("fits")
    r.update(flash_checked=True, flash_fits=True, flash_need=9e9, flash_limit=2097152.0,
             flash_margin=2097152.0 - 9e9)
    assert _refused(r) == ("forged or inconsistent report: field 'flash_fits' is true, but flash_need "
                           "9000000000.0 is above flash_limit 2097152.0")
