"""Verdicts a user can act on: one verdict naming the resource that runs out first (RAM,
PSRAM, flash against the model's partition, time against the budget, the battery), exit
status 0 / 1 / 3, suggestions that are the check run again on the changed
configuration, energy and battery life from the profile's datasheet figures, and one
weights placement default for check, export and the board."""
import json
import shlex
import tomllib
from importlib import resources

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import memcore
from cli_helpers import memcore_cli, model, validate
from memcore.check import Budgets, check
from memcore.profiles import builtin_profiles, profile

EXIT = {"fits": 0, "does_not_fit": 1, "misses_budget": 3}
SHARED = sorted(p.name for p in model("").glob("*.tflite"))
TOML = tomllib.loads(resources.files("memcore").joinpath("data", "devices.toml").read_text(encoding="utf-8"))


def check_json(*argv):
    code, out, err = memcore_cli("check", *argv, "--json")
    assert code in (0, 1, 3), err
    return code, validate(json.loads(out))


@pytest.fixture(scope="module")
def wide_dense(tmp_path_factory):
    """A float32 fully connected layer 400 → 1024: 1.57 MiB of weights, 5.6 KiB of arena."""
    path = tmp_path_factory.mktemp("flash") / "wide_dense.onnx"
    w = numpy_helper.from_array(np.zeros((1024, 400), np.float32), "w")
    b = numpy_helper.from_array(np.zeros((1024,), np.float32), "b")
    graph = helper.make_graph([helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=1)], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 400])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1024])], [w, b])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    return path


# ---- flash: the model's partition, not the chip --------------------------------------

def test_flash_overflow_exits_1_with_reason_flash_and_a_negative_margin(wide_dense):
    code, report = check_json(wide_dense, "--device", "cortex-m4", "--max-latency", "none")
    assert code == 1 and report["verdict"] == "does_not_fit" and report["limiting_resource"] == "flash"
    flash = report["resources"]["flash"]
    # the model partition of the board's flash map: 0x98000 bytes of the 1 MiB chip
    assert flash["limit"] == 0x98000 < 1024 * 1024
    assert flash["need"] == 4 * (1024 * 400 + 1024)     # the ONNX file's weights stand for the file
    assert flash["margin"] == flash["limit"] - flash["need"] < 0 and not flash["fits"]
    assert report["resources"]["ram"]["fits"] and report["headroom_bytes"] > 0
    _, out, _ = memcore_cli("check", wide_dense, "--device", "cortex-m4", "--max-latency", "none")
    assert out.splitlines()[1].startswith("✘ DOES NOT FIT  flash runs out first: the model file needs 1.57 MiB of "
                                          "the model partition's 608 KiB (996 KiB short)")


def test_esp32_flash_budget_is_its_filesystem_partition():
    esp32 = builtin_profiles()["esp32"]
    vfs = esp32.partition("vfs")
    # the bootloader, the partition table, nvs, phy_init and the ~2 MB MicroPython app take the rest
    assert vfs.kind == "filesystem" and esp32.model_partition_bytes == vfs.size_bytes == 2 * 1024 * 1024
    app = [p for p in esp32.partitions if p.kind == "app"]
    assert len(app) == 1 and app[0].size_bytes >= 1_500_000
    assert sum(p.size_bytes for p in esp32.partitions) <= esp32.regions["flash"].size_bytes


# ---- time: over its budget is exit 3 ---------------------------------------------------

def test_over_the_latency_budget_exits_3_and_without_a_budget_0():
    tiny = model("mnist_cnn_int8.tflite")
    code, report = check_json(tiny, "--device", "esp32", "--max-latency", "1ms")
    latency = report["resources"]["latency"]
    assert code == 3 and report["verdict"] == "misses_budget" and report["limiting_resource"] == "latency"
    assert latency["limit"] == 0.001 and latency["need"] == report["latency"]["total_seconds"] > 0.001
    assert latency["margin"] < 0 and latency["usage"] == pytest.approx(latency["need"] / 0.001)
    code, report = check_json(tiny, "--device", "esp32", "--max-latency", "none")
    assert code == 0 and "latency" not in report["resources"]


def test_the_duty_cycles_period_is_a_latency_limit():
    # 3.6 million an hour is one per millisecond: a request may take no more
    code, report = check_json(model("mnist_cnn_int8.tflite"), "--device", "esp32", "--max-latency", "1s",
                              "--per-hour", "3600000")
    assert code == 3 and report["resources"]["latency"]["limit"] == pytest.approx(0.001)
    # the C check says so, and the suggestion is then a lower duty cycle, which fits
    assert report["latency_limit_is_period"] is True
    (lower,) = [s for s in report["suggestions"] if s["action"].startswith("a lower duty cycle")]
    assert lower["verdict"] == "fits"
    # a budget per request tighter than the period: the period does not limit
    _, by_budget = check_json(model("mnist_cnn_int8.tflite"), "--device", "esp32", "--max-latency", "1ms",
                              "--per-hour", "60")
    assert by_budget["resources"]["latency"]["limit"] == pytest.approx(0.001)
    assert by_budget["latency_limit_is_period"] is False
    assert not any(s["action"].startswith("a lower duty cycle") for s in by_budget["suggestions"])


# ---- energy and battery, by hand from the profile --------------------------------------

CLASS = {"CONV_2D": "conv", "TRANSPOSE_CONV": "conv", "DEPTHWISE_CONV_2D": "depthwise",
         "FULLY_CONNECTED": "matmul", "BATCH_MATMUL": "matmul"}


def test_energy_and_battery_life_of_a_shared_model_by_hand():
    path = model("kws_dscnn_int8.tflite")
    board = TOML["cortex-m4"]
    m = memcore.load(path)
    # time: each operator's operations at its class's int8 optimised rate; the board's rates
    # already include its RAM and flash traffic (traffic_in_rates), so nothing is added for it
    rates = board["rates"]["int8_optimised"]
    assert set(board["traffic_in_rates"]) == {"ram", "flash"}
    seconds = sum((2 * op.macs + op.other_ops) / rates[CLASS.get(op.kind, "other")] for op in m.operators)
    seconds += board["overhead_seconds"]
    power = board["power"]
    active, sleep = power["supply_volts"] * power["active_amps"], power["supply_volts"] * power["sleep_amps"]
    tx = power["supply_volts"] * power["radio_tx_amps"]
    # 60 inferences an hour from a CR2032 (220 mAh at 3 V), which must last 30 days
    battery_joules = 0.220 * 3600 * 3.0
    busy = 60 * seconds / 3600
    average = active * busy + sleep * (1 - busy)
    code, report = check_json(path, "--device", "cortex-m4", "--max-latency", "1s", "--per-hour", "60",
                              "--battery", "220mAh@3V", "--battery-life", "30d")
    assert report["latency"]["total_seconds"] == pytest.approx(seconds, rel=1e-9)
    assert report["energy_joules"] == pytest.approx(active * seconds, rel=1e-9)
    assert report["duty_cycle"] == pytest.approx(busy, rel=1e-9)
    assert report["average_watts"] == pytest.approx(average, rel=1e-9)
    assert report["battery_life_seconds"] == pytest.approx(battery_joules / average, rel=1e-9)
    # sending the 490-byte input instead: its air time at the radio's rate, at TX power
    assert report["input_bytes"] == 490
    assert report["radio_seconds"] == pytest.approx(490 / power["radio_bytes_per_second"], rel=1e-12)
    assert report["radio_joules"] == pytest.approx(tx * 490 / power["radio_bytes_per_second"], rel=1e-12)
    # 56 µJ on air against 3.6 mJ of inference: sending is cheaper (the C check decides)
    assert report["cheaper_to_send"] is (tx * 490 / power["radio_bytes_per_second"] < active * seconds) is True
    assert report["cheaper_to_send"] and report["cheaper_to"] == "send"
    # the battery budget: the average power over 30 days against the capacity
    battery = report["resources"]["battery"]
    assert battery["need"] == pytest.approx(average * 30 * 86400, rel=1e-9)
    assert battery["limit"] == pytest.approx(battery_joules)
    assert code == EXIT[report["verdict"]]
    assert battery["fits"] == (battery_joules / average >= 30 * 86400)
    # the most per hour the battery allows: the duty cycle whose average power empties it in 30 days
    allowed = battery_joules / (30 * 86400)
    most = 3600 * (allowed - sleep) / (seconds * (active - sleep))
    assert report["max_inferences_per_hour"] == pytest.approx(min(most, 3600 / seconds), rel=1e-9)


def test_running_out_of_battery_exits_3_with_reason_battery():
    code, report = check_json(model("kws_dscnn_int8.tflite"), "--device", "cortex-m4", "--max-latency", "1s",
                              "--per-hour", "3600", "--battery", "220mAh@3V", "--battery-life", "1y")
    assert code == 3 and report["limiting_resource"] == "battery"
    assert report["resources"]["battery"]["margin"] < 0 < report["resources"]["latency"]["margin"]
    assert report["battery_life_seconds"] < 365 * 86400


def test_power_figures_carry_their_source():
    text = resources.files("memcore").joinpath("data", "devices.toml").read_text(encoding="utf-8")
    for name, board in TOML.items():
        if "power" not in board:
            continue
        block = text[text.index("[%s.power]" % name):]
        block = block[:block.index("\n\n")]
        for line in block.splitlines()[1:]:
            assert "#" in line, (name, line)     # every number with the datasheet it came from


def test_a_battery_life_needs_a_battery():
    code, out, err = memcore_cli("check", model("kws_dscnn_int8.tflite"), "--battery-life", "30d")
    assert code == 2 and "--battery-life needs --battery" in err


# ---- suggestions: each is the check of the configuration it makes ----------------------

CASES = [
    ("resnet8_float32.tflite", ["--device", "esp32"]),
    ("resnet8_int8.tflite", ["--device", "esp32", "--weights-in", "ram", "--batch", "3"]),
    ("mnist_cnn_int8.tflite", ["--device", "esp32", "--batch", "40"]),
    # the three below miss the 100 ms budget they are given (no profile carries one)
    ("kws_dscnn_int8.tflite", ["--device", "esp32", "--max-latency", "100ms"]),
    ("kws_dscnn_float32.tflite", ["--device", "cortex-m4", "--max-latency", "100ms"]),
    ("resnet8_int8.tflite", ["--device", "nucleo-l4r5zi", "--kernels", "reference", "--max-latency", "100ms"]),
    ("kws_dscnn_int8.tflite", ["--device", "cortex-m4", "--max-latency", "1s", "--per-hour", "3600",
                               "--battery", "220mAh@3V", "--battery-life", "1y"]),
]


@pytest.mark.parametrize("name, argv", CASES)
def test_every_suggestion_is_what_check_says_of_its_configuration(name, argv):
    code, report = check_json(model(name), *argv)
    assert report["verdict"] != "fits" and report["suggestions"]
    for s in report["suggestions"]:
        words = shlex.split(s["command"])
        assert words[:2] == ["memcore", "check"]
        again_code, again = check_json(*words[2:])
        assert again_code == EXIT[again["verdict"]]
        assert (s["verdict"], s["limiting_resource"], s["headroom_bytes"]) == \
            (again["verdict"], again["limiting_resource"], again["headroom_bytes"]), s["action"]
        assert s["resources"] == again["resources"], s["action"]
        assert again["suggestions"] == [] or again["verdict"] != "fits"


def test_a_board_suggestion_stays_in_the_family_and_does_better():
    for name, argv in CASES:
        _, report = check_json(model(name), *argv)
        family = profile(report["device"]).family
        for s in report["suggestions"]:
            words = shlex.split(s["command"])
            board = words[words.index("--device") + 1]
            assert profile(board).family == family, s["action"]      # no ESP32 for a Cortex-M user
            limiting = report["limiting_resource"]
            if board != report["device"] and limiting in s["resources"]:   # (a PSRAM board's arena leaves RAM)
                assert s["resources"][limiting]["usage"] < report["resources"][limiting]["usage"], s["action"]


def test_no_suggestion_contradicts_itself_in_the_terminal():
    code, out, err = memcore_cli("check", model("resnet8_float32.tflite"), "--device", "esp32")
    assert code == 1
    table = out[out.index("What would change the verdict"):]
    for line in table.splitlines()[2:]:
        if line.startswith("  $"):
            continue
        if "  fits  " in line:
            assert "short" not in line and "over" not in line, line


# ---- one default, one option name ------------------------------------------------------

@pytest.mark.parametrize("device", sorted(builtin_profiles()))
def test_check_and_export_default_to_the_same_weights_placement(tmp_path, device):
    board = profile(device)
    for name in SHARED:
        m = memcore.load(model(name))
        try:
            report = check(m, board, suggest=False)
        except memcore.MemcoreError:
            continue
        out = tmp_path / (name + ".json")
        code, _, err = memcore_cli("export", model(name), "--device", device, "-o", out)
        assert code == 0, err
        config = json.loads(out.read_text())["config"]
        assert report.weights_placement == board.default_weights_placement()
        expected = "flash" if report.weights_placement == "flash" else config["arena_region"]
        assert config["weights_region"] == expected, (device, name)
        # and the configuration the board checks with is the host's, budgets included
        host = dict(report.config)
        del host["available_bytes"]
        assert config == host, (device, name)


def test_budgets_reach_the_board(tmp_path):
    out = tmp_path / "model.json"
    code, _, err = memcore_cli("export", model("kws_dscnn_int8.tflite"), "--device", "cortex-m4", "--max-latency",
                               "500ms", "--per-hour", "60", "--battery", "220mAh@3V", "--battery-life", "30d", "-o", out)
    assert code == 0, err
    config = json.loads(out.read_text())["config"]
    assert config["latency_budget_seconds"] == 0.5 and config["inferences_per_hour"] == 60.0
    assert config["battery_joules"] == pytest.approx(0.220 * 3600 * 3) and config["battery_life_seconds"] == 30 * 86400
    report = check(memcore.load(model("kws_dscnn_int8.tflite")), profile("cortex-m4"), suggest=False,
                   budgets=Budgets(0.5, 60.0, 0.220 * 3600 * 3, 30 * 86400.0))
    del report.config["available_bytes"]
    assert config == report.config


def test_device_names_mean_one_thing():
    assert not set(memcore.devices()) & set(builtin_profiles())
    code, out, err = memcore_cli("check", model("tiny_mlp_int8.tflite"), "--device", "phone")
    assert code == 2 and "unknown device 'phone'" in err
