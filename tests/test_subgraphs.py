"""Models of several subgraphs (IF, WHILE, CALL_ONCE, nested control flow, a loop-form
recurrent cell): memcore's TFLM arena against TFLM's own measurement, exactly.

The truth is measured, never computed here: tests/corpus/control/truth/<target>.json
(tests/corpus/make_control.py on this host with the PyPI interpreter; the 32-bit targets
with tools/tflm_oracle), and the main corpus's truth files for its control-flow models.
"""
import json
import pathlib

import pytest

import memcore

TESTS = pathlib.Path(__file__).resolve().parent
CONTROL = TESTS / "corpus" / "control"
CORPUS = TESTS / "corpus"


def cases():
    """(target, kernels, model path, truth entry) of every multi-subgraph model with truth."""
    found = []
    manifest = json.loads((CORPUS / "manifest.json").read_text())["models"]
    several = {k for k, v in manifest.items() if v.get("subgraphs", 1) > 1}
    for path in sorted((CORPUS / "truth").glob("*.json")) + sorted((CONTROL / "truth").glob("*.json")):
        data = json.loads(path.read_text())
        header = data["header"]
        target, kernels = header.get("target", path.stem), header.get("kernels", "reference")
        models = CONTROL / "models" if path.parent.parent == CONTROL else CORPUS / "models"
        for key, entry in sorted(data["models"].items()):
            if models == CONTROL / "models" or key in several:
                found.append(pytest.param(target, kernels, models / key, entry, id="%s-%s" % (path.stem, key)))
    return found


CASES = cases()


def test_there_are_control_flow_models_at_every_target():
    targets = {c.values[0] for c in CASES}
    assert {"host64", "armhf", "cortex-m", "esp32"} <= targets
    assert len({c.values[2].name for c in CASES}) >= 9


@pytest.mark.parametrize("target, kernels, path, truth", CASES)
def test_head_tail_total_and_minimum_exact(target, kernels, path, truth):
    if truth.get("error"):
        pytest.skip("TFLM refuses it: %s" % truth["error"].splitlines()[0])
    model = memcore.load(path)
    assert model.subgraph_count > 1
    arena = memcore.tflm_arena(model, target=target, kernels=kernels)
    assert (arena.head_bytes, arena.tail_bytes, arena.total_bytes) == (truth["head"], truth["tail"], truth["total"])
    assert arena.minimum_arena_bytes == truth["minimum_arena_bytes"]
    assert arena.recommended_arena_bytes >= truth["minimum_arena_bytes"]


def test_a_subgraph_that_calls_itself_is_refused(tmp_path):
    """A WHILE body holding the same WHILE: TFLM would recurse without end while it marks
    lifetimes; memcore follows MC_MAX_NESTING levels and names the operator."""
    import sys
    sys.path.insert(0, str(CORPUS))
    from make_control import Model
    m = Model()
    main, cond, body = m.subgraph(), m.subgraph(), m.subgraph()
    i, i2 = main.tensor([1], "int32"), main.tensor([1], "int32")
    main.op("WHILE", [i], [i2], "WhileOptions", condSubgraphIndex=1, bodySubgraphIndex=2)
    main.io([i], [i2])
    ci, limit, c = cond.tensor([1], "int32"), cond.tensor([1], "int32", [3]), cond.tensor([1], "bool")
    cond.op("LESS", [ci, limit], [c])
    cond.io([ci], [c])
    bi, bi2 = body.tensor([1], "int32"), body.tensor([1], "int32")
    body.op("WHILE", [bi], [bi2], "WhileOptions", condSubgraphIndex=1, bodySubgraphIndex=2)
    body.io([bi], [bi2])
    path = tmp_path / "forever.tflite"
    path.write_bytes(m.build())
    with pytest.raises(memcore.MemcoreError, match=r"operator \d \(WHILE\) calls subgraph \d, .*deeper than 8 levels"):
        memcore.tflm_arena(memcore.load(path))


def test_every_subgraph_is_read():
    """The reader gives every subgraph's tensors and operators, in file order."""
    model = memcore.load(CONTROL / "models" / "control_nested_f32.tflite")
    assert model.subgraph_count == 5
    kinds = [op.kind for op in model.operators]
    assert kinds == ["WHILE", "RELU", "LESS", "ADD", "IF", "CONV_2D", "CONV_2D", "RELU"]
    assert model.inputs == (0, 1, 2)


def test_resource_variables_are_the_firmwares_choice():
    """TFLM's VAR_HANDLE fails its Prepare without MicroResourceVariables, or past their
    count (var_handle.cc): refused naming it.  More variables than the model names only
    grow the tail; the default is one per distinct shared name, as the measured truth's
    interpreter builds it (test_head_tail_total_and_minimum_exact)."""
    model = memcore.load(CONTROL / "models" / "resource_two_f32.tflite")
    for n in (0, 1):
        with pytest.raises(memcore.MemcoreError, match=r"VAR_HANDLE\) names resource variable %d of 2, but the "
                                                       r"interpreter is built with %d" % (n + 1, n)):
            memcore.tflm_arena(model, resource_variables=n)
    default = memcore.tflm_arena(model)
    assert memcore.tflm_arena(model, resource_variables=2).tail_bytes == default.tail_bytes
    more = memcore.tflm_arena(model, resource_variables=10)
    assert more.head_bytes == default.head_bytes and more.tail_bytes > default.tail_bytes
    with pytest.raises(memcore.MemcoreError, match="resource_variables must be 0 to 65534"):
        memcore.tflm_arena(model, resource_variables=-1)
