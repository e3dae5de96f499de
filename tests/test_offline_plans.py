"""Offline-planned models (TFLite's OfflineMemoryAllocation metadata): memcore places
the tensors where the file says, as TFLM does, the rest around them, and refuses a plan
TFLM would follow into corrupted or misaligned activations, naming the tensors.

The plans are written with the flatbuffers library and TFLM's schema (offline_plan.py).
What TFLM itself makes of the corpus's offline-planned models is in the truth files
(tests/test_conformance.py); these tests check what a user can read off the plan."""
import os
import pathlib
import subprocess
import sys

import pytest

import memcore
from cli_helpers import memcore_cli
from offline_plan import plan_of, tensor_count, with_plan
from schema_model import build


def chain(n_ops=3, width=24):
    """A chain of ADDs of a constant: tensor 0 the constant, 1 the input x, then each
    ADD's output; float32 tensors of `width` values (96 bytes), each live with its
    neighbours only."""
    tensors = [((width,), "float32", True)] + [((width,), "float32", False)] * (n_ops + 1)
    ops = [("ADD", [k + 1, 0], [k + 2]) for k in range(n_ops)]
    return build(tensors, ops, inputs=[1], outputs=[n_ops + 1])


def save(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_the_writer_round_trips():
    data = chain()
    n = tensor_count(data)
    offsets = [-1, -1, 96, 0, 96]
    assert plan_of(with_plan(data, offsets)) == (1, 0, n, offsets)


def test_fixed_tensors_sit_where_the_file_says_and_the_head_is_their_highest_end(tmp_path):
    # tensors: 0 the constant, 1 x, 2, 3, 4 y.  A poor but valid plan: no reuse at all.
    offsets = [-1, 0, 96, 192, 288]
    path = save(tmp_path, "stacked.tflite", with_plan(chain(), offsets))
    model = memcore.load(path)
    assert model.offline_offsets == dict(enumerate(offsets))
    plan = model.plan("tflm")
    assert plan.offsets == {1: 0, 2: 96, 3: 192, 4: 288}
    assert plan.arena_bytes == 384  # 288 + 96, not TFLM's own 192 without the plan
    arena = memcore.tflm_arena(model)
    assert arena.head_bytes == 384
    assert arena.fixed_offsets == (0, 96, 192, 288)
    # memcore's own plan of the same buffers still reuses memory
    assert model.plan("best").arena_bytes == 192


def test_a_partial_plan_places_the_rest_around_the_fixed_tensors(tmp_path):
    # x fixed high, y fixed at 0; tensors 2 and 3 planned online: TFLM's first fit
    # around x (live with 2) and y (live with 3).
    offsets = [-1, 96, -1, -1, 0]
    path = save(tmp_path, "partial.tflite", with_plan(chain(), offsets))
    model = memcore.load(path)
    plan = model.plan("tflm")
    assert plan.offsets[1] == 96 and plan.offsets[4] == 0
    life = model.lifetimes()
    for a in plan.offsets:  # no two tensors live together overlap
        for b in plan.offsets:
            if a < b and life[a][0] <= life[b][1] and life[b][0] <= life[a][1]:
                assert plan.offsets[a] + 96 <= plan.offsets[b] or plan.offsets[b] + 96 <= plan.offsets[a], (a, b)
    arena = memcore.tflm_arena(model)
    assert [f for f in arena.fixed_offsets if f >= 0] == [96, 0]


def test_fixed_offsets_in_the_planner():
    # A (32 B, live 0..1) fixed at 32; B (32 B, 1..2) and C (16 B, 0..0) placed largest
    # first at the lowest free offset: B below A, C below A too (B is not live with C).
    p = memcore.plan([32, 32, 16], [0, 1, 0], [1, 2, 0], strategy="tflm", fixed=[32, -1, -1])
    assert p.offsets == [32, 0, 0] and p.arena_bytes == 64
    with pytest.raises(memcore.MemcoreError, match="buffers 0 and 1 are fixed at overlapping offsets"):
        memcore.plan([32, 32], [0, 1], [1, 2], strategy="tflm", fixed=[0, 16])
    # live at different times, the same offset is fine
    assert memcore.plan([32, 32], [0, 2], [1, 3], strategy="tflm", fixed=[0, 0]).arena_bytes == 32


def test_two_overlapping_live_tensors_are_refused_naming_both(tmp_path):
    # tensors 2 and 3 are the input and output of the second ADD: live at once.
    path = save(tmp_path, "overlap.tflite", with_plan(chain(), [-1, 0, 96, 144, 0]))
    with pytest.raises(memcore.MemcoreError) as info:
        memcore.tflm_arena(memcore.load(path))
    assert str(info.value) == (
        "%s: the offline memory plan puts tensor 2 (t2) and tensor 3 (t3) at overlapping offsets (offsets 96 and 144, "
        "96 and 96 bytes), and both are live while operator 1 (ADD) runs: TFLM would corrupt one with the "
        "other (it does not check)" % path)
    # the check (the board's C path) refuses it the same way
    code, out, err = memcore_cli("check", str(path), "--device", "esp32")
    assert code == 2 and "tensor 2 (t2) and tensor 3 (t3) at overlapping offsets" in err


@pytest.mark.parametrize("change, message", [
    (dict(version=2), "an offline memory plan of version 2; TFLM's format"),
    (dict(subgraph=1), "an offline memory plan for subgraph 1"),
    (dict(count=4), "an offline memory plan of 4 offsets for its 5 tensors; TFLM refuses it too"),
    (dict(truncate=4), "whose buffer (2) is missing or shorter than its header and offsets"),
])
def test_a_plan_in_another_format_is_refused(tmp_path, change, message):
    path = save(tmp_path, "bad.tflite", with_plan(chain(), [-1, 0, 96, 0, 96], **change))
    with pytest.raises(memcore.MemcoreError, match="^%s: .*" % path) as info:
        memcore.load(path)
    assert message in str(info.value)


@pytest.mark.parametrize("offset, message", [
    (8, "tensor 3 (t3) has offline offset 8, which is not a multiple of 16 bytes"),
    (-16, "tensor 3 (t3) has offline offset -16, which is below -1"),
    (2**31 - 16, "has offline offset 2147483632, which ends past the 2 GiB TFLM's planner addresses"),
])
def test_offsets_outside_the_arena_or_misaligned_are_refused(tmp_path, offset, message):
    path = save(tmp_path, "bad.tflite", with_plan(chain(), [-1, 0, 96, offset, 96]))
    with pytest.raises(memcore.MemcoreError) as info:
        memcore.tflm_arena(memcore.load(path))
    assert message in str(info.value)


def test_an_offset_on_a_constant_is_ignored_as_tflm_ignores_it(tmp_path):
    path = save(tmp_path, "const.tflite", with_plan(chain(), [8, 0, 96, 0, 96]))
    assert memcore.tflm_arena(memcore.load(path)).head_bytes == 192


def test_plan_command_marks_the_offsets_from_the_file(tmp_path):
    path = save(tmp_path, "partial.tflite", with_plan(chain(), [-1, 96, -1, -1, 0]))
    code, out, err = memcore_cli("plan", str(path), "--json")
    assert code == 0, err
    import json
    buffers = {b["tensor"]: b for b in json.loads(out)["buffers"]}
    assert [t for t, b in sorted(buffers.items()) if b["tflm_offset_from_file"]] == [1, 4]
    assert buffers[1]["tflm_offset"] == 96
    code, out, err = memcore_cli("plan", str(path))
    assert "96 (file)" in out and "(file): the offset the model's offline memory plan gives" in out


def test_the_corpus_offline_models_are_what_make_offline_writes(tmp_path):
    corpus = pathlib.Path(__file__).resolve().parent / "corpus"
    env = dict(os.environ)
    if "MEMCORE_SANITIZER_PRELOAD" in env:  # CI's sanitized extension: its runtime first (step 40)
        env["LD_PRELOAD"] = env["MEMCORE_SANITIZER_PRELOAD"]
    done = subprocess.run([sys.executable, str(corpus / "make_offline.py"), "--out", str(tmp_path)],
                          capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    written = sorted(p.name for p in tmp_path.glob("*.tflite"))
    assert written == sorted(p.name for p in (corpus / "models").glob("offline_*.tflite"))
    assert len(written) == 26
    for name in written:
        assert (tmp_path / name).read_bytes() == (corpus / "models" / name).read_bytes(), name
