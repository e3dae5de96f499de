"""`memcore check`: verdicts, exit codes, suggestions, --json against its schema, bad input."""
import json
import re
from importlib import resources

import jsonschema
import pytest

import memcore
from memcore.check import check
from memcore.profiles import profile
from cli_helpers import memcore_cli, model
from memcore.render import memory_rows

SCHEMA = json.loads(resources.files("memcore").joinpath("data", "report.schema.json").read_text())


def check_json(*argv):
    code, out, err = memcore_cli("check", *argv, "--json")
    report = json.loads(out)
    jsonschema.validate(report, SCHEMA)
    return code, report


def test_small_int8_model_fits_the_esp32_without_a_budget_nobody_gave_exit_0():
    # the README's first command: the built-in profiles carry no latency budget
    code, out, err = memcore_cli("check", model("kws_dscnn_int8.tflite"), "--device", "esp32-psram")
    assert code == 0, err
    assert "FITS" in out and "BUDGET" not in out
    assert "budgets: none given" in out
    code, report = check_json(model("kws_dscnn_int8.tflite"), "--device", "esp32", "--weights-in", "flash")
    assert code == 0 and report["verdict"] == "fits" and "latency" not in report["resources"]
    assert report["budgets"]["latency_seconds"] is None and report["budgets"]["sources"] == {}


def test_small_int8_model_misses_the_latency_budget_the_user_gave_exit_3():
    # 5.3 M operations at ESP-NN's 39 Mops/s is about 136 ms, over a 100 ms budget (read in
    # place from flash, it fits the esp32's RAM)
    code, out, err = memcore_cli("check", model("kws_dscnn_int8.tflite"), "--device", "esp32", "--weights-in",
                                 "flash", "--max-latency", "100ms")
    assert code == 3, err
    assert "FITS, BUT MISSES ITS BUDGET" in out and "DOES NOT FIT" not in out
    assert "recommended arena" in out and "KiB" in out
    assert "budgets: latency 100 ms (--max-latency)" in out
    code, report = check_json(model("kws_dscnn_int8.tflite"), "--device", "esp32", "--weights-in", "flash",
                              "--max-latency", "0.1s")
    assert code == 3 and report["verdict"] == "misses_budget" and report["limiting_resource"] == "latency"
    assert report["resources"]["latency"]["limit"] == 0.1 and not report["resources"]["latency"]["fits"]
    assert report["resources"]["ram"]["fits"] and report["headroom_bytes"] > 0
    assert report["budgets"]["sources"] == {"latency_seconds": "--max-latency"}


def test_small_int8_model_fits_a_laxer_budget_exit_0():
    code, report = check_json(model("mnist_cnn_int8.tflite"), "--device", "esp32")
    assert code == 0 and report["verdict"] == "fits"


def test_float32_resnet_does_not_fit_the_esp32_and_says_what_would():
    code, out, err = memcore_cli("check", model("resnet8_float32.tflite"), "--device", "esp32")
    assert code == 1, err
    assert "DOES NOT FIT" in out
    assert "What would change the verdict (each one checked)" in out
    # the board offered is one of the same family (MicroPython on an ESP32), never a Cortex-M
    assert "quantise float32 → int8" in out and "esp32-psram" in out and "cortex-m4" not in out


@pytest.mark.parametrize("name", ["kws_dscnn_float32.tflite", "kws_dscnn_int8.tflite", "mnist_cnn_int8.tflite",
                                  "resnet8_float32.tflite", "resnet8_int8.tflite", "tiny_mlp_float32.tflite"])
@pytest.mark.parametrize("device", ["esp32", "esp32s3", "cortex-m4", "nucleo-l4r5zi"])
def test_json_validates_and_agrees_with_the_exit_code(name, device):
    code, report = check_json(model(name), "--device", device)
    assert report["schema"] == "memcore.report/1"
    assert report["model"] == name and report["device"] == device
    assert report["headroom_bytes"] == report["available_bytes"] - report["required_bytes"]
    assert code == {"fits": 0, "does_not_fit": 1, "misses_budget": 3}[report["verdict"]]
    assert report["arena_lower_bound_bytes"] <= report["arena_best_bytes"] <= report["arena_tflm_bytes"]
    assert report["latency"]["total_seconds"] > 0


def test_json_numbers_are_the_graph_and_tflm_numbers():
    m = memcore.load(model("kws_dscnn_int8.tflite"))
    code, report = check_json(model("kws_dscnn_int8.tflite"), "--device", "esp32", "--weights-in", "flash")
    assert report["weights_bytes"] == m.weight_bytes
    assert report["weights_placement"] == "flash"
    assert report["arena_tflm_bytes"] == m.plan("tflm").arena_bytes == 16000   # TFLM's measured head
    arena = memcore.tflm_arena(m, target="esp32", kernels="optimised")
    assert report["runtime_overhead_bytes"] == arena.tail_bytes
    # At batch 1 with weights in flash, the requirement is exactly TFLM's recommended arena.
    assert report["required_bytes"] == report["recommended_arena_bytes"] == arena.recommended_arena_bytes


def test_a_pinned_available_figure_is_not_called_a_growing_heap():
    # the esp32 profile's 48.8 KiB at boot; a board's 28,696 B block, pinned, is no heap
    # growing from it (the row once said "largest block the heap grows to (48.8 KiB free at boot)")
    code, out, err = memcore_cli("check", model("tiny_mlp_int8.tflite"), "--device", "esp32", "--available-bytes",
                                 "28696")
    assert code == 0, err
    assert re.search(r"^available +28\.0 KiB +in ram$", out, re.M) and "free at boot" not in out


def test_weights_in_ram_count_against_ram_with_their_whole_file():
    # TFLM reads the model in place: loaded, its 50,496-byte file sits in RAM, not only
    # its 24,368 B of weights
    _, flash = check_json(model("kws_dscnn_int8.tflite"), "--weights-in", "flash")
    _, ram = check_json(model("kws_dscnn_int8.tflite"), "--weights-in", "ram")
    assert ram["weights_placement"] == "ram" and ram["weights_bytes"] == flash["weights_bytes"] == 24_368
    assert flash["loaded_model_bytes"] == 0 and ram["loaded_model_bytes"] == 50_496
    assert ram["required_bytes"] == flash["required_bytes"] + 50_496
    code, out, err = memcore_cli("check", model("kws_dscnn_int8.tflite"), "--weights-in", "ram")
    assert code == 1 and re.search(r"^model file loaded +49\.3 KiB +the whole file, in RAM: ", out, re.M)
    assert re.search(r"^required +71\.7 KiB +largest term: the model file loaded$", out, re.M)


def test_more_batch_never_needs_less_memory():
    required = [check_json(model("mnist_cnn_int8.tflite"), "--batch", b)[1]["required_bytes"] for b in (1, 2, 5)]
    assert required == sorted(required) and required[0] < required[-1]


def test_quantise_suggestion_uses_the_real_int8_sibling():
    code, report = check_json(model("resnet8_float32.tflite"), "--device", "esp32")
    assert code == 1
    _, int8 = check_json(model("resnet8_int8.tflite"), "--device", "esp32")
    quantise = [s for s in report["suggestions"] if s["action"].startswith("quantise")]
    assert len(quantise) == 1 and quantise[0]["estimate"] is False
    # the suggestion is the check of the int8 file: the same verdict and margins
    assert quantise[0]["command"].split()[2].endswith("resnet8_int8.tflite")
    assert quantise[0]["headroom_bytes"] == int8["headroom_bytes"] and quantise[0]["verdict"] == int8["verdict"]
    assert quantise[0]["resources"] == int8["resources"]


def test_quantise_without_a_sibling_is_labelled_an_estimate(tmp_path):
    lonely = tmp_path / "resnet8_float32.tflite"
    lonely.write_bytes(model("resnet8_float32.tflite").read_bytes())
    code, report = check_json(lonely, "--device", "esp32")
    quantise = [s for s in report["suggestions"] if s["action"].startswith("quantise")]
    assert quantise and quantise[0]["estimate"] is True and "estimate" in quantise[0]["action"]


def test_suggestions_cover_flash_psram_and_batch():
    code, report = check_json(model("resnet8_int8.tflite"), "--device", "esp32", "--weights-in", "ram",
                              "--batch", "3")
    assert code == 1
    actions = " | ".join(s["action"] for s in report["suggestions"])
    assert "weights in flash" in actions and "esp32-psram" in actions
    flash = next(s for s in report["suggestions"] if "flash" in s["action"])
    assert flash["headroom_bytes"] > report["headroom_bytes"]


def test_smaller_batch_suggestion_fits():
    esp32 = profile("esp32")
    report = check(memcore.load(model("mnist_cnn_int8.tflite")), esp32, batch=40)
    assert not report.fits
    smaller = [s for s in report.suggestions if s.action.startswith("a smaller batch")]
    assert len(smaller) == 1 and smaller[0].fits


def test_fitting_model_has_no_suggestions():
    _, report = check_json(model("tiny_mlp_int8.tflite"))
    assert report["verdict"] == "fits" and report["suggestions"] == []


def test_si_flag_switches_to_decimal_units():
    _, binary, _ = memcore_cli("check", model("kws_dscnn_int8.tflite"))
    _, decimal, _ = memcore_cli("check", model("kws_dscnn_int8.tflite"), "--si")
    assert "KiB" in binary and "kB" not in binary
    assert "kB" in decimal and "KiB" not in decimal


@pytest.mark.parametrize("argv, needle", [
    (["check", "no/such/model.tflite"], "cannot read"),
    (["check", "MODEL", "--device", "no-such-board"], "unknown device"),
    (["check", "MODEL", "--device-file", "no/such/file.toml"], "No such file"),
    (["check", "MODEL", "--batch", "0"], "--batch"),
    (["check", "MODEL", "--batch", "two"], "--batch"),
    (["check", "MODEL", "--battery-life", "30d"], "needs --battery"),
    (["check", "MODEL", "--max-latency", "soon"], "--max-latency"),
    (["check", "MODEL", "--battery", "lots"], "--battery"),
])
def test_bad_arguments_give_one_line_and_exit_2(argv, needle):
    argv = [str(model("tiny_mlp_int8.tflite")) if a == "MODEL" else a for a in argv]
    code, out, err = memcore_cli(*argv)
    assert code == 2
    assert needle in err
    assert "Traceback" not in err
    assert len([line for line in err.splitlines() if "error" in line]) == 1


def test_unreadable_and_garbage_files_exit_2(tmp_path):
    garbage = tmp_path / "garbage.tflite"
    garbage.write_bytes(b"\x00" * 64)
    code, out, err = memcore_cli("check", garbage)
    assert code == 2 and err.startswith("memcore check: error:") and len(err.strip().splitlines()) == 1
    code, out, err = memcore_cli("check", tmp_path)      # a folder, not a file
    assert code == 2 and err.startswith("memcore check: error:")


def test_the_memory_table_says_when_the_board_cannot_run_its_own_check():
    # tiny_mlp_int8 needs 1,152 B (TFLM's arena, its weights read in place), and its check
    # on the board a block of a few KB whatever the model (the report's head, the
    # planners' and the reader's state): at 1,500 B available the model fits and its
    # check does not
    path = str(model("tiny_mlp_int8.tflite"))
    report = check(memcore.load(path), profile("esp32"), weights_placement="flash", available_bytes=1_500,
                   suggest=False).to_json()
    assert report["verdict"] == "fits" and report["check_scratch_bytes"] > 1_500
    assert ("the check itself", report["check_scratch_bytes"],
            "more than available: the board cannot check this file itself at boot", 0) in memory_rows(report)
    fits = check(memcore.load(path), profile("esp32"), weights_placement="flash", available_bytes=4_096,
                 suggest=False).to_json()
    assert ("the check itself", fits["check_scratch_bytes"],
            "the one block memcore's check of this file takes on the board", 0) in memory_rows(fits)
