"""Generated models with many tensors or operators, checked by the board's C module at
its 110 KiB heap: the board's report agrees with the host's `memcore check` on the arena,
the overhead, the verdict and the memory the check itself took (check_scratch_bytes,
from the C core on both); a file whose operator lacks an input is refused on the board
naming the file and the operator, as the host names them.

The board's check needs no more of its memory than the model it approves: for RELU
chains, fan-outs, untouched tensors, constant tensors (of rank 2, 4, 6 and 8) and chains of
dense layers with their weights, the largest model the host says fits in the block the
board measures (some 32 KB on the simulated unix64 board, micropython/README.md's table,
the rest of its heap in fragments of a few KB) is checked on the board as on the host.
A model whose check needs more than the board has is refused with MemoryError naming
the file and the block the check asked for.
bench/check_scaling.py takes the generators to 100,000."""
import re
import sys

import pytest

import memcore
from boardkit import REPO, scratch_agrees
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


def board_check(board, name, files, available=AVAILABLE):
    """The board's report line for the file `name` among `files`, at boot; available:
    the bytes the check is told it may use, None for what the board measures."""
    deploy(board.repl, files)
    board.reset()  # as at boot
    given = "" if available is None else ", available=%d" % available
    out = board.repl.exec("import memcore_boot\ntry:\n    memcore_boot.check(%r%s)\n"
                          "except Exception as e:\n    print(memcore_boot.error_line(e))\n" % (name, given),
                          timeout_s=120)
    board.repl.exec("import os\nfor f in %r:\n    os.remove(f)\n" % sorted(files))
    objects, _, bad = lines.parse(out)
    assert bad == [] and len(objects) == 1, out[-2000:]
    return objects[0][1]


@pytest.mark.parametrize("stem", sorted(MODELS))
def test_board_checks_a_large_model_as_the_host_does(on_board, tmp_path, stem):
    files = with_descriptor(stem, MODELS[stem], tmp_path)
    host = check(memcore.load(str(tmp_path / (stem + ".tflite"))), profile("esp32"), available_bytes=AVAILABLE,
                 suggest=False).to_json()
    got = board_check(on_board, stem + ".tflite", files)
    assert got["schema"] == lines.REPORT, got
    assert {k: got[k] for k in AGREED} == {k: host[k] for k in AGREED}
    assert scratch_agrees(on_board, host, got)


def test_a_check_no_heap_holds_says_what_it_needs(on_board, tmp_path):
    """2,000 RELUs: the graph alone needs more than any of the suite's boards has (a heap
    of 110 or 113 KiB): MemoryError names the file and the block the graph is read into,
    not MemoryError alone."""
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
    assert 116 * 1024 < int(found.group(1)) < host["check_scratch_bytes"]


FAMILIES = {"chain": scaling_models.relu_chain, "fan-out": scaling_models.fan_out,
            "unused": scaling_models.unused_tensors, "constants": scaling_models.constant_tensors,
            "constants-rank4": lambda n: scaling_models.constant_tensors(n, (1, 1, 1, 4)),
            "constants-rank6": lambda n: scaling_models.constant_tensors(n, (1, 1, 1, 1, 2, 2)),
            "constants-rank8": lambda n: scaling_models.constant_tensors(n, (1, 1, 1, 1, 1, 1, 2, 2)),
            "dense": scaling_models.dense_chain,
            # operand lists thousands long, which TFLM reads in place in the loaded file
            "packed-copies": scaling_models.packed_copies, "intermediates": scaling_models.intermediates}
# the count past which no model of the family fits a 110 KiB heap's block
MOST = dict.fromkeys(FAMILIES, 2048) | {"packed-copies": 1 << 15, "intermediates": 1 << 15}


def host_check(make, n, available, folder):
    path = folder / ("n%d.tflite" % n)
    path.write_bytes(make(n))
    return check(memcore.load(str(path)), profile("esp32"), available_bytes=available, suggest=False).to_json()


def with_descriptor(stem, data, folder):
    """The model file and its esp32 descriptor, as the board finds them."""
    path = folder / (stem + ".tflite")
    path.write_bytes(data)
    return {path.name: data, stem + ".json": descriptor.dumps(descriptor.describe(memcore.load(str(path)),
                                                                                  profile("esp32"))).encode()}


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_the_largest_model_the_host_says_fits_is_checked_on_the_board(on_board, tmp_path, family):
    """What the board measures it can give a model (memcore_boot's available_bytes, its
    largest free block), then the largest model of the family the host says fits in it
    (fitting is monotone in n: bisection): the board checks that model itself, reading
    the file, as the host does, and its check needs no more than the host's figure."""
    make = FAMILIES[family]
    first = board_check(on_board, "small.tflite", with_descriptor("small", make(1), tmp_path), available=None)
    assert first["schema"] == lines.REPORT, first
    available = first["available_bytes"]
    lo, hi = 1, MOST[family]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        fits = host_check(make, mid, available, tmp_path)["verdict"] == "fits"
        lo, hi = (mid, hi) if fits else (lo, mid)
    got = board_check(on_board, "largest.tflite", with_descriptor("largest", make(lo), tmp_path), available=None)
    assert got["schema"] == lines.REPORT, got  # not MemoryError: the check fit
    host = host_check(make, lo, got["available_bytes"], tmp_path)
    assert {k: got[k] for k in AGREED} == {k: host[k] for k in AGREED}
    assert host["check_scratch_bytes"] <= host["required_bytes"]
    assert scratch_agrees(on_board, host, got)


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
