"""Generated models with many tensors or operators, checked by the board's C module at
its 110 KiB heap: the board's report agrees with the host's `memcore check` on the arena,
the overhead, the verdict and the memory the check itself took (check_scratch_bytes,
from the C core on both); a file whose operator lacks an input is refused on the board
naming the file and the operator, as the host names them.

The counts are those whose check fits the simulated unix64 board's heap (its largest free
block is some 29-33 KB after boot, micropython/README.md's table, the rest in fragments
of a few KB); bench/check_scaling.py takes the generators to 100,000.  That the check of
a larger model needs more than the board has, although the host says the model fits, is
a known limit (docs/planner.md): the board then says so, MemoryError naming the file and
the block the check asked for, the host's check_scratch_bytes."""
import re
import sys

import pytest

import memcore
from boardkit import REPO
from memcore import descriptor
from memcore.check import check
from memcore.hil import lines
from memcore.hil.deploy import deploy
from memcore.hil.parity import board_files
from memcore.profiles import profile

sys.path.insert(0, str(REPO / "tests"))
import scaling_models  # noqa: E402

AVAILABLE = 90_000
AGREED = ("tensors", "operators", "buffers", "arena_tflm_bytes", "arena_best_bytes", "runtime_overhead_bytes",
          "recommended_arena_bytes", "required_bytes", "headroom_bytes", "verdict")
MODELS = {"chain-60": scaling_models.relu_chain(60), "chain-80": scaling_models.relu_chain(80),
          "chain-100": scaling_models.relu_chain(100), "unused-180": scaling_models.unused_tensors(180),
          "fan-95": scaling_models.fan_out(95),
          "unused-100": scaling_models.unused_tensors(100), "fan-60": scaling_models.fan_out(60),
          "fan-75": scaling_models.fan_out(75)}


def edited(name, edit):
    from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema
    model = scaling_models.model_of(name)
    found = edit(model, schema)
    return found, scaling_models.to_bytes(model)


def missing_filter():
    """mnist_cnn_int8 whose first CONV_2D has no filter (its input 1 is -1)."""
    def edit(model, schema):
        graph = model.subgraphs[0]
        k = next(i for i, op in enumerate(graph.operators)
                 if model.operatorCodes[op.opcodeIndex].builtinCode == schema.BuiltinOperator.CONV_2D)
        graph.operators[k].inputs = [graph.operators[k].inputs[0], -1, graph.operators[k].inputs[2]]
        return k
    return edited("mnist_cnn_int8.tflite", edit)


def huge_input():
    """tiny_mlp_float32 with an input of 2^60 bytes: a size in 64 bits, no arena's."""
    def edit(model, schema):
        graph = model.subgraphs[0]
        graph.tensors[graph.inputs[0]].shape = [1 << 20, 1 << 20, 1 << 18]
        return graph.inputs[0]
    return edited("tiny_mlp_float32.tflite", edit)


@pytest.fixture(scope="module")
def on_board(board):
    deploy(board.repl, {n: p for n, p in board_files().items() if not n.startswith("memcore_vectors_data/")})
    board.reset()  # as at boot (memcore.mpy's code is one heap block)
    if not board.repl.exec("import memcore_boot\n"
                           "print(memcore_boot.reads_models(memcore_boot.memcore))").strip().endswith("True"):
        pytest.skip("stock firmware: this board has no C module to read a model file with")
    return board


def board_check(board, name, files):
    deploy(board.repl, files)
    board.reset()  # as at boot
    out = board.repl.exec("import memcore_boot\ntry:\n    memcore_boot.check(%r, available=%d)\n"
                          "except Exception as e:\n    print(memcore_boot.error_line(e))\n" % (name, AVAILABLE),
                          timeout_s=120)
    board.repl.exec("import os\nfor f in %r:\n    os.remove(f)\n" % sorted(files))
    objects, _, bad = lines.parse(out)
    assert bad == [] and len(objects) == 1, out[-2000:]
    return objects[0][1]


@pytest.mark.parametrize("stem", sorted(MODELS))
def test_board_checks_a_large_model_as_the_host_does(on_board, tmp_path, stem):
    path = tmp_path / (stem + ".tflite")
    path.write_bytes(MODELS[stem])
    model = memcore.load(str(path))
    host = check(model, profile("esp32"), available_bytes=AVAILABLE, suggest=False).to_json()
    files = {path.name: MODELS[stem], stem + ".json": descriptor.dumps(descriptor.describe(model, profile("esp32")))
             .encode()}
    got = board_check(on_board, path.name, files)
    assert got["schema"] == lines.REPORT, got
    assert {k: got[k] for k in AGREED} == {k: host[k] for k in AGREED}
    assert scratch_agrees(on_board, host["check_scratch_bytes"], got["check_scratch_bytes"])


def scratch_agrees(board, host_bytes, board_bytes):
    """The board's check_scratch_bytes against the host's (x86-64).  The figure is
    sizeof-based: to the byte on a 64-bit board; on a 32-bit one the core's own state
    (the reader's, the planners', TFLM's model's) holds 4-byte pointers, and the i386 ABI
    aligns int64_t to 4, so it is a little smaller there, never larger: the host's figure
    holds for every board."""
    if board_is_64_bit(board):
        return board_bytes == host_bytes
    return host_bytes * 0.95 < board_bytes <= host_bytes


def test_a_check_no_heap_holds_says_what_it_needs(on_board, tmp_path):
    """2,000 RELUs: the graph alone needs more than any of the suite's boards has (its
    heap, 110 KiB and the .mpy's bytes at most): MemoryError names the file and the block
    the graph is read into, not MemoryError alone."""
    data = scaling_models.relu_chain(2000)
    path = tmp_path / "big.tflite"
    path.write_bytes(data)
    host = check(memcore.load(str(path)), profile("esp32"), suggest=False).to_json()
    got = board_check(on_board, path.name, {path.name: data})
    assert got["schema"] == lines.REPORT_ERROR, got
    found = re.fullmatch(r"MemoryError: big\.tflite: the check needs a free block of (\d+) bytes to read the graph "
                         r"into", got["error"])
    assert found, got["error"]
    # more than any heap here, less than the whole check (the graph's arrays, with the
    # reader's state until they are cut back)
    assert 200_000 < int(found.group(1)) < host["check_scratch_bytes"]


def test_a_check_the_heap_cannot_hold_says_the_hosts_figure(on_board, tmp_path):
    """200 RELUs: the host says the model fits in 29 KB, and its check needs 45 KB in one
    block, more than the unix64 board's largest free block (some 33 KB).  A board with more room
    gives the host's report; a board without it says which block it could not give: the
    one the graph is read into to size the check, or the check's own, the host's
    check_scratch_bytes."""
    data = scaling_models.relu_chain(200)
    path = tmp_path / "chain-200.tflite"
    path.write_bytes(data)
    model = memcore.load(str(path))
    host = check(model, profile("esp32"), available_bytes=AVAILABLE, suggest=False).to_json()
    assert host["verdict"] == "fits" and host["required_bytes"] < 30_000 and host["check_scratch_bytes"] > 40_000
    got = board_check(on_board, path.name, {path.name: data, "chain-200.json": descriptor.dumps(
        descriptor.describe(model, profile("esp32"))).encode()})
    if got["schema"] == lines.REPORT:
        assert {k: got[k] for k in AGREED} == {k: host[k] for k in AGREED}
        return
    found = re.fullmatch(r"MemoryError: chain-200\.tflite: the check needs a free block of (\d+) bytes"
                         r"( to read the graph into| \(check_scratch_bytes\))", got.get("error", ""))
    assert found, got
    if found.group(2) == " to read the graph into":
        assert int(found.group(1)) < host["check_scratch_bytes"]
    else:
        assert scratch_agrees(on_board, host["check_scratch_bytes"], int(found.group(1)))


def board_is_64_bit(board):
    return int(board.repl.exec("import sys\nprint(sys.maxsize)\n").split()[-1]) > 2**32


def test_an_operator_without_its_input_is_named_on_the_board(on_board, tmp_path):
    k, data = missing_filter()
    path = tmp_path / "no-filter.tflite"
    path.write_bytes(data)
    with pytest.raises(memcore.MemcoreError) as host:
        memcore.load(str(path)).plan("tflm")
    assert "operator %d (CONV_2D) lacks an input its TFLM kernel needs" % k in str(host.value)
    got = board_check(on_board, path.name, {path.name: data})
    assert got["schema"] == lines.REPORT_ERROR
    # the host's words, with CONV_2D's builtin code for its name
    assert got["error"] == ("ValueError: no-filter.tflite: operator %d (builtin 3): lacks an input its TFLM "
                            "kernel needs (TFLM's Prepare fails)" % k)


def test_a_tensor_no_arena_holds_is_named_on_the_board(on_board, tmp_path):
    t, data = huge_input()
    path = tmp_path / "huge.tflite"
    path.write_bytes(data)
    with pytest.raises(memcore.MemcoreError) as host:
        check(memcore.load(str(path)), profile("esp32"), suggest=False)
    assert "tensor %d" % t in str(host.value) and "TFLM's arena would need more than 2^50 bytes" in str(host.value)
    got = board_check(on_board, path.name, {path.name: data})
    assert got["error"] == "ValueError: huge.tflite: tensor %d: is too large: TFLM's arena would need more than " \
                           "2^50 bytes" % t
