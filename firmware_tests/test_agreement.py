"""One check, host and board alike: for every shared model and every conformance-corpus
model (the control-flow and resource-variable ones of corpus/control too), the board's report line and `memcore check MODEL --device esp32 --available-bytes N
--json` agree, for the same N, on the arena TFLM plans, memcore's, TFLM's overhead, the
arena to give TFLM, the memory required, the headroom and the verdict.

A board with memcore's C module checks the model file itself (memcore.check over the
file, with the device and deployment from the descriptor beside it); stock firmware (the
PyPI unix port by default) checks from the descriptor alone.  Whichever board runs this
suite (the PyPI unix port, a unix build with --micropython, a QEMU firmware on --port), it
makes the check its way and the host's answer must be its answer.  A model the host
refuses must be refused on the board too.
"""
import json

import pytest

import memcore
from boardkit import REPO
from memcore import descriptor
from memcore.check import check
from memcore.hil import lines
from memcore.hil.deploy import deploy
from memcore.hil.parity import board_files
from memcore.profiles import profile

AGREED = ("arena_tflm_bytes", "arena_best_bytes", "runtime_overhead_bytes", "recommended_arena_bytes",
          "required_bytes", "headroom_bytes", "verdict")
AVAILABLE = 90_000   # bytes: what an ESP32's MicroPython heap lets one block have, about
DEVICE = "esp32"
BATCH_BYTES = 64 * 1024  # files on the board at a time (a QEMU board's RAM filesystem is small)

MODELS = sorted((REPO / "tests" / "models").glob("*.tflite")) + \
    sorted((REPO / "tests" / "corpus" / "models").glob("*.tflite")) + \
    sorted((REPO / "tests" / "corpus" / "control" / "models").glob("*.tflite"))


def host(path):
    """(the host's JSON report, its descriptor), or (None, the error) for a model it refuses."""
    esp32 = profile(DEVICE)
    try:
        model = memcore.load(path)
        return (check(model, esp32, available_bytes=AVAILABLE, suggest=False).to_json(),
                descriptor.describe(model, esp32))
    except memcore.MemcoreError as exc:
        return None, str(exc)


@pytest.fixture(scope="module")
def host_answers(model_stride):
    return {p.name: host(p) for p in MODELS[::model_stride]}


@pytest.fixture(scope="module")
def scripts_on_board(board):
    scripts = {name: path for name, path in board_files().items() if not name.startswith("memcore_vectors_data/")}
    deploy(board.repl, scripts)
    # as at boot: memcore.mpy's code is one heap block (50 KB on a Cortex-M), which the
    # heap the deploying left fragmented cannot give
    board.reset()
    has_module = board.repl.exec("import memcore_boot\n"
                                 "print(memcore_boot.reads_models(memcore_boot.memcore))").strip().endswith("True")
    return board, has_module


def batches(names, size_of):
    batch, total = [], 0
    for name in names:
        if batch and total + size_of(name) > BATCH_BYTES:
            yield batch
            batch, total = [], 0
        batch.append(name)
        total += size_of(name)
    if batch:
        yield batch


_RUN = """
import gc, memcore_boot
for _name in %r:
    gc.collect()
    try:
        memcore_boot.check(_name, available=%d)
    except Exception as _e:
        print(memcore_boot.error_line(_e))
"""


def test_board_and_host_agree_on_every_model(scripts_on_board, host_answers, model_stride):
    board, has_module = scripts_on_board
    # --model-stride N: every Nth model, for a board whose serial line is slow
    models = MODELS[::model_stride]
    stems = [p.name[:-len(".tflite")] for p in models]
    paths = {p.name[:-len(".tflite")]: p for p in MODELS}

    def files_of(stem):
        report, described = host_answers[stem + ".tflite"]
        files = {}
        if has_module:
            files[stem + ".tflite"] = paths[stem].read_bytes()
        if report is not None:
            files[stem + ".json"] = descriptor.dumps(described).encode()
        return files

    checked, refused, mismatches = 0, 0, []
    for batch in batches(stems, lambda s: sum(len(b) for b in files_of(s).values())):
        files = {}
        for stem in batch:
            files.update(files_of(stem))
        deploy(board.repl, files)
        # With the module the board reads the model (and its descriptor for the device);
        # without it, only the descriptor (a refused model has none: the board says so).
        targets = [(s + ".tflite") if has_module else (s + ".json") for s in batch]
        # As at boot: on a heap the deploying has not fragmented.
        board.reset()
        out = board.repl.exec(_RUN % (targets, AVAILABLE), timeout_s=300)
        objects, _, bad = lines.parse(out)
        assert bad == [], bad
        assert len(objects) == len(batch), out[-2000:]
        for stem, (_, obj) in zip(batch, objects):
            report, _ = host_answers[stem + ".tflite"]
            if report is None:
                refused += 1
                if obj["schema"] != lines.REPORT_ERROR:
                    mismatches.append((stem, "the host refuses it, the board reported %s" % obj.get("verdict")))
                continue
            checked += 1
            if obj["schema"] != lines.REPORT:
                mismatches.append((stem, "board error: %s" % obj.get("error")))
                continue
            assert obj["available_bytes"] == AVAILABLE
            for name in AGREED:
                if obj[name] != report[name]:
                    mismatches.append((stem, "%s: board %r, host %r" % (name, obj[name], report[name])))
        board.repl.exec("import os\nfor _f in %r:\n    os.remove(_f)\n" % sorted(files))
    assert mismatches == [], "%d of %d models disagree:\n%s" % (
        len({m[0] for m in mismatches}), checked + refused, "\n".join("%s: %s" % m for m in mismatches[:40]))
    assert checked + refused == len(models)
    # the shared models and the corpus, less what the host refuses
    assert checked >= 200 * len(models) // len(MODELS)


def test_the_cli_is_the_api_the_agreement_test_uses():
    """`memcore check MODEL --device esp32 --available-bytes N --json` is the API call above."""
    import subprocess
    import sys
    for path in MODELS[:3]:
        run = subprocess.run([sys.executable, "-m", "memcore", "check", str(path), "--device", DEVICE,
                              "--available-bytes", str(AVAILABLE), "--json"], capture_output=True, text=True)
        data = json.loads(run.stdout)
        report, _ = host(path)
        assert {k: data[k] for k in AGREED} == {k: report[k] for k in AGREED}
        assert run.returncode == {"fits": 0, "does_not_fit": 1, "misses_budget": 3}[data["verdict"]]
