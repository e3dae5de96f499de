"""The boot check on the board: a model that fits in an ESP32's ~110 KB and one that does not.

The descriptors are exported on the host (`memcore export`), deployed with the device
scripts, and the check runs right after a reset, on a fresh heap, as boot.py runs it.
The board's report must say what the host's `memcore check` says for the memory the
board found available (--available-bytes)."""
import pytest

import memcore
from boardkit import REPO
from memcore import descriptor
from memcore.check import check
from memcore.hil import lines
from memcore.hil.deploy import deploy
from memcore.hil.parity import board_files
from memcore.profiles import profile

MODELS = REPO / "tests" / "models"
CASES = [("mnist_cnn_int8.tflite", "ram", "fits"), ("kws_dscnn_float32.tflite", "ram", "does_not_fit")]


def describe(model, placement):
    return descriptor.describe(memcore.load(str(MODELS / model)), placement=placement)


def host_check(model, placement, available_bytes):
    """`memcore check MODEL --device esp32 --weights-in PLACEMENT --available-bytes N --json`"""
    return check(memcore.load(str(MODELS / model)), profile("esp32", None), weights_placement=placement,
                 available_bytes=available_bytes).to_json()


@pytest.fixture(scope="module")
def deployed(board):
    files = {name: path for name, path in board_files().items() if not name.startswith("memcore_vectors_data/")}
    for model, placement, _ in CASES:
        files[model + ".json"] = descriptor.dumps(describe(model, placement)).encode()
    deploy(board.repl, files)
    return board


@pytest.mark.parametrize("model,placement,verdict", CASES, ids=[c[2] for c in CASES])
def test_boot_check(deployed, model, placement, verdict, board_options, real_board):
    board = deployed
    board.reset()  # the check runs at boot, on a heap nothing else has fragmented
    out = board.repl.exec("import memcore_boot\nmemcore_boot.main(%r)" % (model + ".json"), timeout_s=60)
    objects, _, bad = lines.parse(out)
    assert bad == []
    (report,) = [o for _, o in objects if o["schema"] == lines.REPORT]
    host = host_check(model, placement, report["available_bytes"])
    for name in ("weights_bytes", "weights_placement", "loaded_model_bytes", "arena_tflm_bytes", "arena_best_bytes",
                 "arena_lower_bound_bytes", "runtime_overhead_bytes", "recommended_arena_bytes", "required_bytes",
                 "available_bytes", "headroom_bytes"):
        assert report[name] == host[name], name
    # the host's verdict may also be "misses_budget" (fits, too slow): the board checks memory only
    assert report["verdict"] == ("does_not_fit" if host["verdict"] == "does_not_fit" else "fits")
    assert report["host_agrees"] is True and report["memcore_version"] == memcore.version()[0]
    assert report["headroom_bytes"] == report["available_bytes"] - report["required_bytes"]
    assert 0 < report["available_bytes"] <= report["gc_free_bytes"]
    if not real_board and board_options["heapsize"] == "110K":
        assert report["gc_free_bytes"] <= 110 * 1024
    assert report["verdict"] == verdict
    # a model that does not fit is reported, and the board stays up
    assert board.repl.exec("print(1 + 1)").strip() == "2"
