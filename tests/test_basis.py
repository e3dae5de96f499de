"""Numbers that say what they are: every figure resting on an assumed profile figure is
marked an estimate, in JSON ("basis") and in the text ("~"); the sources are listed."""
import json
import re

import pytest

from cli_helpers import cli_json, memcore_cli, model
from memcore import basis
from memcore.commands.devices import figure_bases
from memcore.profiles import builtin_profiles


def check(*argv):
    code, out, err = memcore_cli("check", *argv, "--json")
    return json.loads(out)


def test_every_built_in_figure_states_its_basis_and_source():
    for name, p in builtin_profiles().items():
        for key, (b, source) in figure_bases(p):
            assert b in basis.BASES, (name, key)
            assert source and "no basis given" not in source, (name, key)


def test_float32_rates_copied_from_int8_are_estimates_int8_fitted_ones_published():
    f32 = check(model("kws_dscnn_float32.tflite"), "--device", "esp32")
    i8 = check(model("kws_dscnn_int8.tflite"), "--device", "esp32")
    assert f32["latency"]["basis"]["compute_seconds"] == "estimate"
    assert i8["latency"]["basis"]["compute_seconds"] == "published"
    # the 100 µs setup per request is assumed, so the total is an estimate on both
    assert i8["latency"]["basis"]["setup_seconds"] == i8["latency"]["basis"]["total_seconds"] == "estimate"
    assert f32["basis"]["energy_joules"] == "estimate" and i8["basis"]["available_bytes"] == "measured"
    code, out, err = memcore_cli("check", model("kws_dscnn_float32.tflite"), "--device", "esp32")
    compute = next(line for line in out.splitlines() if line.startswith("compute"))
    assert re.search(r"~\d", compute)
    code, out, err = memcore_cli("check", model("kws_dscnn_int8.tflite"), "--device", "esp32")
    compute = next(line for line in out.splitlines() if line.startswith("compute"))
    assert "~" not in compute and re.search(r"total +~", out)
    assert "~: an estimate" in out and "memcore devices --verbose --device esp32" in out


@pytest.mark.parametrize("device", list(builtin_profiles()))
def test_every_marked_figure_is_an_estimate_and_every_estimate_marked(device):
    """The text's "~" and the JSON's basis say the same, on every board."""
    data = check(model("kws_dscnn_float32.tflite"), "--device", device, "--max-latency", "1s")
    code, out, err = memcore_cli("check", model("kws_dscnn_float32.tflite"), "--device", device, "--max-latency",
                                 "1s")
    rows = {line.split()[0]: line for line in out.splitlines() if line.split()}
    for part in ("compute", "setup"):
        b = data["latency"]["basis"].get(part + "_seconds")
        shown = next(v for k, v in rows.items() if k == part)
        assert ("~" in shown) == (b == "estimate"), (device, part, shown)
    ram = data["resources"].get("ram") or data["resources"].get("psram")
    assert ram["basis"]["limit"] == data["basis"]["available_bytes"]
    available = rows["available"]
    assert ("~" in available) == (data["basis"]["available_bytes"] == "estimate"), available


def test_a_fetch_inside_the_fitted_rates_says_so_instead_of_a_zero_time():
    data = check(model("kws_dscnn_int8.tflite"), "--device", "esp32")
    assert data["latency"]["fetch_seconds"] == 0 and data["latency"]["fetch_in_rates"] is True
    code, out, err = memcore_cli("check", model("kws_dscnn_int8.tflite"), "--device", "esp32")
    fetch = next(line for line in out.splitlines() if line.startswith("fetch"))
    assert "in compute" in fetch and "0.00" not in fetch and "inside the rates" in fetch
    # the arena in PSRAM: that traffic is not in the rates, so it has a time of its own
    psram = check(model("kws_dscnn_int8.tflite"), "--device", "esp32-psram")
    assert psram["latency"]["fetch_seconds"] > 0 and psram["latency"]["fetch_in_rates"] is False
    code, out, err = memcore_cli("check", model("kws_dscnn_int8.tflite"), "--device", "esp32-psram")
    fetch = next(line for line in out.splitlines() if line.startswith("fetch"))
    assert re.search(r"\d (ms|µs)", fetch) and "reading weights and activations" in fetch
    assert not re.search(r"\b0\.00 ns", out)


def test_an_operators_time_is_an_estimate_and_unresolved_below_a_microsecond():
    code, out, err = memcore_cli("ops", model("kws_dscnn_int8.tflite"), "--device", "esp32s3")
    softmax = next(line for line in out.splitlines() if "SOFTMAX" in line)
    assert "~<1 µs" in softmax and " ns" not in out
    conv = next(line for line in out.splitlines() if " CONV_2D " in line)
    assert re.search(r"~\d+(\.\d+)? ms", conv)
    _, data, _ = cli_json("ops", model("kws_dscnn_int8.tflite"), "--device", "esp32s3")
    assert all(row["basis"]["seconds"] == "estimate" for row in data["layers"])
    assert data["layers"][-1]["seconds"] < 1e-6      # the number is kept whole in JSON


def test_devices_verbose_lists_each_figures_basis_and_source():
    code, out, err = memcore_cli("devices", "--verbose", "--device", "cortex-m4")
    assert code == 0
    assert re.search(r"rates\.float32_reference\.\* +estimate +the int8 reference rates", out)
    assert re.search(r"available_bytes +estimate +256 KiB less about 64 KiB", out)
    _, data, _ = cli_json("devices")
    esp32 = next(d for d in data["devices"] if d["name"] == "esp32")
    assert esp32["basis"]["overhead_seconds"]["basis"] == "estimate"
    assert esp32["basis"]["rates.int8_optimised.conv"]["basis"] == "published"
    assert "esp-tflite-micro" in esp32["basis"]["rates.int8_optimised.conv"]["source"]


BOARD = """[my-board]
description = "x"
available_bytes = 900_000
ops_per_second_reference = 2e7
ops_per_second_optimised = 2e8
overhead_seconds = 1e-4
%s
[my-board.regions.ram]
size_bytes = 1_048_576
read_bytes_per_second = 1e9
"""


def test_a_device_files_figures_are_as_given_unless_it_says_estimate(tmp_path):
    plain = tmp_path / "plain.toml"
    plain.write_text(BOARD % "")
    data = check(model("kws_dscnn_int8.tflite"), "--device", "my-board", "--device-file", plain)
    assert data["latency"]["basis"]["total_seconds"] == "published" and "~" not in json.dumps(data["basis"])
    marked = tmp_path / "marked.toml"
    marked.write_text(BOARD % '[my-board.basis]\noverhead_seconds = "estimate: a guess"\n'
                               '"rates.int8_optimised" = "measured: our bench, 2026"\n')
    data = check(model("kws_dscnn_int8.tflite"), "--device", "my-board", "--device-file", marked)
    assert data["latency"]["basis"] == {"fetch_seconds": "published", "compute_seconds": "measured",
                                        "setup_seconds": "estimate", "total_seconds": "estimate"}


@pytest.mark.parametrize("line, needle", [
    ('overhead_seconds = "guessed: by me"', 'basis: overhead_seconds must be "measured: source"'),
    ('overhead_seconds = 3', 'basis: overhead_seconds must be "measured: source"'),
    ('latency = "estimate: x"', "basis: unknown figure 'latency'"),
    ('"rates.int8_fast" = "estimate: x"', "basis: unknown figure 'rates.int8_fast'"),
])
def test_a_bad_basis_line_is_named(tmp_path, line, needle):
    bad = tmp_path / "bad.toml"
    bad.write_text(BOARD % ("[my-board.basis]\n" + line + "\n"))
    code, out, err = memcore_cli("check", model("kws_dscnn_int8.tflite"), "--device", "my-board", "--device-file",
                                 bad)
    assert code == 2 and needle in err and "Traceback" not in err


def test_the_docs_basis_example_loads_and_is_used():
    import pathlib
    from memcore.profiles import profiles_from_toml
    doc = (pathlib.Path(__file__).resolve().parents[1] / "docs" / "device-profiles.md").read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"```toml\n(.*?)```", doc, re.S) if ".basis]" in b)
    found = profiles_from_toml(BOARD % block, "doc.toml")["my-board"]
    assert basis.of(found, "rates.int8_optimised.other")[0] == "estimate"
    assert basis.of(found, "rates.int8_optimised.conv") == ("published", "the vendor's benchmark table, 2025")
    assert basis.of(found, "power.sleep_amps")[0] == "published"


def test_roofline_and_compare_mark_their_estimated_times():
    _, data, _ = cli_json("roofline", model("kws_dscnn_float32.tflite"), "--device", "esp32")
    assert data["points"][0]["basis"]["total_seconds"] == "estimate"
    code, out, err = memcore_cli("roofline", model("kws_dscnn_float32.tflite"), "--device", "esp32")
    assert re.search(r"compute +~\d", out)
    code, out, err = memcore_cli("compare", model("kws_dscnn_int8.tflite"))
    assert re.search(r"^esp32 .* ~\d+ ms \(none\)$", out, re.M) and "~: an estimate" in out


def test_the_report_schema_docs_example_is_what_check_prints(monkeypatch):
    """docs/report-schema.md's abridged example: every field it shows is the real one."""
    import pathlib
    root = pathlib.Path(__file__).resolve().parents[1]
    doc = (root / "docs" / "report-schema.md").read_text(encoding="utf-8")
    command, block = re.search(r"Example \(`memcore (check [^`]+) --json` in tests/models, abridged\):\n\n```json\n"
                               r"(.*?)```", doc, re.S).groups()
    monkeypatch.chdir(root / "tests" / "models")
    real = check(*command.split()[1:])

    def same(shown, got, where):
        if isinstance(shown, dict):
            for key, value in shown.items():
                same(value, got[key], where + "." + key)
        elif isinstance(shown, list):
            assert len(shown) <= len(got), where
            for n, value in enumerate(shown):
                same(value, got[n], "%s[%d]" % (where, n))
        elif isinstance(shown, float):
            assert round(got, 4) == shown, where
        else:
            assert got == shown, where
    same(json.loads(block), real, "report")
