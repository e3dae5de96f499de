"""`memcore.check(path, device=...)`: a Report with the JSON's data, a notebook display
and the terminal text, and `check --layers` showing the same per-operator table."""
import json
import re

import memcore
from cli_helpers import memcore_cli, model, validate


def test_check_returns_a_report_with_the_json_of_the_cli():
    # read in place from flash, KWS fits the esp32's RAM (loaded, its file does not)
    report = memcore.check(model("kws_dscnn_int8.tflite"), device="esp32", weights_in="flash")
    assert isinstance(report, memcore.Report)
    code, out, err = memcore_cli("check", model("kws_dscnn_int8.tflite"), "--device", "esp32", "--weights-in",
                                 "flash", "--json")
    assert report.to_json() == json.loads(out)
    validate(report.to_json())
    assert report.verdict == "fits" and report.fits    # no budget given: memory decides
    slow = memcore.check(model("kws_dscnn_int8.tflite"), device="esp32", weights_in="flash", max_latency="100ms")
    assert slow.verdict == "misses_budget" and not slow.fits    # over the 100 ms budget given
    assert slow.budgets["sources"] == {"latency_seconds": "max_latency argument"}
    assert report.headroom_bytes == report.available_bytes - report.required_bytes > 0
    assert report.recommended_arena_bytes == memcore.tflm_arena(memcore.load(model("kws_dscnn_int8.tflite")),
                                                                pointer_bytes=4).recommended_arena_bytes
    assert report.layers[report.peak_operator]["is_peak"]


def test_check_stays_the_function_after_the_module_is_imported():
    import importlib
    importlib.import_module("memcore.check")
    from memcore.check import check as deployment_check  # noqa: F401 - the module's own function
    import memcore.commands.check  # noqa: F401
    assert callable(memcore.check) and memcore.check.__module__ == "memcore.report"


def test_report_shows_in_a_notebook():
    report = memcore.check(model("resnet8_float32.tflite"), device="esp32")
    page = report._repr_html_()
    assert "Does not fit on esp32" in page
    rows = re.findall(r'<tr( class="mc-peak")? data-operator="(\d+)">', page)
    assert len(rows) == len(report.layers) == 15 and [i for peak, i in rows if peak] == ["2"]
    assert "quantise float32" in page
    assert "<script" not in page and "http" not in page
    assert repr(report).startswith("<memcore.Report resnet8_float32.tflite on esp32: does not fit: RAM runs out first: "
                                   "needs 510 KiB of the 48.8 KiB available (461 KiB short)")


def test_report_text_is_the_terminal_report():
    report = memcore.check(model("kws_dscnn_int8.tflite"), device="esp32")
    code, out, err = memcore_cli("check", model("kws_dscnn_int8.tflite"), "--device", "esp32")
    assert str(report) == out


def test_check_layers_prints_the_per_operator_table_with_the_peak():
    code, out, err = memcore_cli("check", model("kws_dscnn_int8.tflite"), "--weights-in", "flash", "--layers")
    assert code == 0, err
    m = memcore.load(model("kws_dscnn_int8.tflite"))
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.split()[:3] == ["#", "operator", "output"])
    rows = lines[header + 1:header + 1 + len(m.operators)]
    assert [r.split()[1] for r in rows] == [op.kind for op in m.operators]
    peaks = [r for r in rows if r.endswith("◀ peak")]
    # kws: the first depthwise convolution is the first operator with 15.6 KiB (16,000 B) alive
    assert len(peaks) == 1 and peaks[0].split()[:2] == ["1", "DEPTHWISE_CONV_2D"]
    assert "15.6 KiB" in peaks[0] and "100 %" in peaks[0]
    _, plain, _ = memcore_cli("check", model("kws_dscnn_int8.tflite"))
    assert "◀ peak" not in plain


def test_every_target_has_its_words_and_they_agree_with_the_cores_facts():
    """The C core keeps each target's facts; the host package the words describing them.
    Every target the core names has both, and a derived target's note names what the
    core says it is derived from."""
    from memcore.targets import TARGET_NAMES
    assert sorted(TARGET_NAMES.values()) == ["armhf", "cortex-m", "esp32", "host64", "riscv32"]
    for name in TARGET_NAMES.values():
        t = memcore.target_info(name)
        assert t.description and t.note and t.tflm_version
        if t.measured:
            assert t.derived_from is None and "derived" not in t.note
        else:
            assert t.note.startswith("derived from %s" % t.derived_from)
    assert memcore.target_info("cortex-m").optimised_kernels.startswith("CMSIS-NN")
    assert memcore.target_info("esp32").optimised_kernels.startswith("ESP-NN")
    assert memcore.target_info("esp32").pointer_bytes == 4 and not memcore.target_info("esp32").compression


def test_esp32_tables_say_they_were_measured_on_xtensa_and_with_what():
    """The board the product is for: its tables come from an Xtensa TFLM build, and the
    check report says so, naming the compiler and the commits (docs/tflm-arena.md)."""
    esp = memcore.target_info("esp32")
    assert esp.measured and esp.derived_from is None
    assert esp.tflm_version == "esp-tflite-micro 99f49e14"
    assert esp.optimised_kernels == "ESP-NN d45b843c (plain ESP32)"
    for words in ("xtensa-lx106-elf-g++ 12.2", "-mlongcalls", "qemu-system-xtensa", "99f49e14", "d45b843c"):
        assert words in esp.note
    report = memcore.check(model("kws_dscnn_int8.tflite"), device="esp32").to_json()
    assert report["tflm_target"] == {"name": "esp32", "measured": True, "source": esp.note}
    _, text, _ = memcore_cli("check", model("kws_dscnn_int8.tflite"), "--device", "esp32")
    assert "TFLM's tables: esp32, measured on Xtensa" in " ".join(text.split())
