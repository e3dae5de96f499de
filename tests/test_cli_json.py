"""`--json` on every command: the one document on stdout validates against the schema it
names (python/memcore/data/schemas/, docs/json-output.md), its numbers are the ones the
API computes, and an error is one memcore.error/1 object with the exit status unchanged."""
import json
import pathlib

import pytest

import memcore
from cli_helpers import cli_json, memcore_cli, model, schemas, validate
from memcore.profiles import builtin_profiles


def test_every_command_has_json_and_a_schema():
    from memcore.cli import build_parser
    from memcore.jsonout import SCHEMAS

    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices
    for name, sub in commands.items():
        assert any("--json" in a.option_strings for a in sub._actions), name
        assert SCHEMAS[name] in schemas(), name
    assert SCHEMAS["error"] in schemas()


def test_every_schema_is_valid_json_schema():
    import jsonschema
    for s in schemas().values():
        jsonschema.Draft202012Validator.check_schema(s)


@pytest.mark.parametrize("name", ["kws_dscnn_int8.tflite", "resnet8_float32.tflite", "tiny_mlp_int8.tflite"])
def test_check_json_has_the_per_layer_table(name):
    code, report, _ = cli_json("check", model(name), "--device", "esp32")
    m = memcore.load(model(name))
    layers = report["layers"]
    assert [r["operator"] for r in layers] == [op.kind for op in m.operators]
    peaks = [r for r in layers if r["is_peak"]]
    assert len(peaks) == 1 and peaks[0]["index"] == report["peak_operator"]
    assert peaks[0]["live_bytes"] == max(r["live_bytes"] for r in layers) == report["arena_lower_bound_bytes"]
    assert sum(r["macs"] for r in layers) == report["macs"] == m.macs
    assert sum(r["operations"] for r in layers) == report["operations"] == m.operations
    assert all(0 <= r["arena_share"] <= 1 for r in layers)
    # Each operator's compute is its operations at the device's rate: they add up to the request's.
    assert sum(r["compute_seconds"] for r in layers) == pytest.approx(report["latency"]["compute_seconds"], rel=1e-9)
    assert sum(r["fetch_seconds"] for r in layers) <= report["latency"]["fetch_seconds"] * (1 + 1e-9)


def test_ops_json_matches_check_json():
    _, ops, _ = cli_json("ops", model("resnet8_int8.tflite"), "--device", "cortex-m4")
    _, check, _ = cli_json("check", model("resnet8_int8.tflite"), "--device", "cortex-m4")
    assert ops["layers"] == check["layers"]
    assert ops["request_seconds"] == check["latency"]["total_seconds"]


def test_compare_json_has_every_device():
    code, data, _ = cli_json("compare", model("resnet8_int8.tflite"), "--max-latency", "100ms")
    assert code == 0
    assert [d["device"] for d in data["devices"]] == list(builtin_profiles())
    statuses = {d["device"]: d["status"] for d in data["devices"]}
    assert statuses["esp32"] == "will_not_fit" and statuses["esp32s3"] == "runs" and statuses["esp32-psram"] == "too_slow"
    assert {d["latency_budget_seconds"] for d in data["devices"]} == {0.1}
    # no budget given: every board that holds it runs it
    code, data, _ = cli_json("compare", model("resnet8_int8.tflite"))
    assert code == 0 and {d["device"]: d["status"] for d in data["devices"]}["esp32-psram"] == "runs"
    assert {d["latency_budget_seconds"] for d in data["devices"]} == {None}
    for d in data["devices"]:
        assert d["report"]["device"] == d["device"]


def test_plan_json_lists_every_buffer_like_print_memory_plan():
    m = memcore.load(model("kws_dscnn_int8.tflite"))
    code, data, _ = cli_json("plan", model("kws_dscnn_int8.tflite"))
    assert code == 0
    assert [b["tensor"] for b in data["buffers"]] == list(m.planned_tensors)
    assert data["tflm"]["arena_bytes"] == 16000 == m.plan("tflm").arena_bytes     # TFLM's measured head
    tflm = m.plan("tflm")
    for b in data["buffers"]:
        assert b["tflm_offset"] == tflm.offsets[b["tensor"]]
        assert b["tflm_offset"] + b["bytes"] <= data["tflm"]["arena_bytes"]
    assert data["identical"] is True and data["picture"] is None


def test_plan_json_says_when_memcore_s_plan_is_proven_optimal():
    # Attention heads: TFLM's greedy leaves 48 B of holes (256 B against the 208 B that
    # are alive at once); memcore's plan reaches the bound, so it is proven optimal.
    corpus = pathlib.Path(__file__).resolve().parent / "corpus" / "models"
    code, data, _ = cli_json("plan", str(corpus / "multihead_attention_i8.tflite"))
    assert code == 0
    assert (data["tflm"]["arena_bytes"], data["tflm"]["proven_optimal"]) == (256, False)
    assert (data["best"]["arena_bytes"], data["best"]["proven_optimal"]) == (208, True)
    assert data["best"]["lower_bound_bytes"] == 208
    # TFLM's plan costs one step a buffer plus one per placed buffer live beside it;
    # memcore's spends more (its greedy passes and exact search), within the default budget.
    assert len(data["buffers"]) <= data["tflm"]["steps"] < data["best"]["steps"] <= memcore.planner.DEFAULT_STEPS \
        + data["tflm"]["steps"]


def test_roofline_json_batches():
    _, mcu, _ = cli_json("roofline", model("kws_dscnn_int8.tflite"), "--device", "esp32")
    assert [p["batch"] for p in mcu["points"]] == [1] and mcu["streams_one_example"]
    _, chosen, _ = cli_json("roofline", model("mnist_cnn_float32.tflite"), "--device", "esp32", "--batches", "1,3")
    assert [p["batch"] for p in chosen["points"]] == [1, 3]
    # no budget given: none is judged
    assert mcu["latency_budget_seconds"] is None and mcu["points"][0]["within_latency_budget"] is None
    # kws at 5.32 M operations on 39 Mops/s takes 139 ms: over a 100 ms budget.
    _, slow, _ = cli_json("roofline", model("kws_dscnn_int8.tflite"), "--device", "esp32", "--max-latency", "100ms")
    assert slow["points"][0]["within_latency_budget"] is False and slow["latency_budget_from"] == "--max-latency"


def test_devices_and_verdicts_json():
    _, devices, _ = cli_json("devices")
    assert [d["name"] for d in devices["devices"]] == list(builtin_profiles())
    esp32 = next(d for d in devices["devices"] if d["name"] == "esp32")
    # the largest block a 110 KiB MicroPython heap lets one have (bench/largest_block.py)
    assert esp32["available_bytes"] == esp32["available_bytes_at_boot"] == 49_943
    _, verdicts, _ = cli_json("verdicts")
    mobilenet = next(m for m in verdicts["models"] if m["name"] == "MobileNet")
    assert {v["device"]: v["status"] for v in mobilenet["verdicts"]}["microcontroller"] == "will_not_fit"
    assert next(v for v in mobilenet["verdicts"] if v["device"] == "microcontroller")["times_too_big"] == \
        pytest.approx(28.0)


def test_export_json(tmp_path):
    out = tmp_path / "model.json"
    code, data, err = cli_json("export", model("kws_dscnn_int8.tflite"), "-o", out)
    assert code == 0 and data["output"] == str(out)
    assert json.loads(out.read_text()) == data["descriptor"]
    validate(data["descriptor"])
    # Without -o the descriptor itself is the JSON on stdout.
    code, text, err = memcore_cli("export", model("kws_dscnn_int8.tflite"))
    validate(json.loads(text))


def test_report_json(tmp_path):
    page = tmp_path / "r.html"
    code, data, _ = cli_json("report", model("tiny_mlp_int8.tflite"), "-o", page)
    assert code == 0 and page.stat().st_size == data["bytes"]
    assert data["report"]["verdict"] == "fits"


def test_monitor_json_from_a_board_on_a_socket(tmp_path):
    import socket
    import threading
    import time

    # the fields micropython/memcore_boot.py prints (the host refuses a report line with others)
    board_report = {"schema": "memcore.report/1", "model": "kws.tflite", "device": "esp32-board",
                    "memcore_version": memcore.__version__, "implementation": "c-module",
                    "firmware": "MicroPython v1.24.1 on 2024-11-29", "source": "descriptor", "weights_bytes": 24368,
                    "weights_placement": "flash", "loaded_model_bytes": 0,
                    "arena_tflm_bytes": 16000, "arena_best_bytes": 16000,
                    "arena_lower_bound_bytes": 16000, "runtime_overhead_bytes": 7088, "runtime_bytes": 7088,
                    "recommended_arena_bytes": 23088, "required_bytes": 23088, "available_bytes": 64000,
                    "headroom_bytes": 40912, "verdict": "fits", "gc_free_bytes": 70000, "idf_largest_free_bytes": None,
                    "host_agrees": True, "check_seconds": 0.012}
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)

    def serve():
        conn, _ = server.accept()
        time.sleep(0.5)   # opening a port drops what arrived before: let the monitor listen first
        conn.sendall(b"I (31) boot: ESP-IDF v5.2\r\n@memcore " + json.dumps(board_report).encode() + b"\r\n")
        conn.recv(1)
        conn.close()
        server.close()

    threading.Thread(target=serve, daemon=True).start()
    code, data, err = cli_json("monitor", "--port", "socket://127.0.0.1:%d" % server.getsockname()[1],
                               "--count", "1", "--seconds", "10", "--transcripts", tmp_path)
    assert code == 0, err
    assert data["reports"] == [board_report]
    assert data["console_lines"] == ["I (31) boot: ESP-IDF v5.2"]


def test_hil_json(tmp_path, monkeypatch):
    from test_bad_input_table import ROOT, _fake_board_url
    import memcore.hil.parity
    monkeypatch.setattr(memcore.hil.parity, "repo_root", lambda: ROOT)
    code, data, err = cli_json("hil", "--port", _fake_board_url("normal"), "--no-deploy", "--vectors", "budget",
                               "--timeout", "5", "--transcripts", tmp_path)
    assert code == 0, err
    assert data["status"] == "ok" and data["cases"] == data["agreed"] > 0


# --- errors under --json ----------------------------------------------------------

@pytest.mark.parametrize("argv, status, needle", [
    (["check", "no/such/model.tflite"], 2, "cannot read the file"),
    (["check", "MODEL", "--device", "no-such-board"], 2, "unknown device"),
    (["check", "MODEL", "--batch", "0"], 2, "--batch"),
    (["ops", "MODEL", "--device-file", "no/such/file.toml"], 2, "No such file or directory"),
    (["plan", "MODEL", "--png", "picture.bmp"], 2, "not a picture format"),
    (["roofline", "MODEL", "--batches", "0"], 2, "--batches"),
    (["compare", "no/such/model.tflite"], 2, "cannot read the file"),
    (["devices", "--device-file", "no/such/file.toml"], 2, "No such file or directory"),
    (["export", "MODEL", "-o", "no/such/folder/model.json"], 2, "cannot write"),
    (["report", "MODEL", "-o", "no/such/folder/r.html"], 2, "cannot write"),
    (["monitor", "--port", "/dev/ttyUSB-memcore-test"], 2, "cannot open"),
    (["verdicts", "--bytes-per-number", "x"], 2, "--bytes-per-number"),
])
def test_errors_under_json_are_one_json_object_on_stdout(argv, status, needle):
    argv = [str(model("tiny_mlp_int8.tflite")) if a == "MODEL" else a for a in argv]
    code, out, err = memcore_cli(*argv, "--json")
    assert code == status
    error = validate(json.loads(out))
    assert error["schema"] == "memcore.error/1" and error["exit_status"] == status
    assert error["command"] == argv[0] and needle in error["error"]
    # the same error is the last line on stderr, with its hint
    assert error["error"] in err.strip().splitlines()[-1]
    if error["hint"]:
        assert error["hint"] in err
    assert "Traceback" not in err and "[Errno" not in out + err
