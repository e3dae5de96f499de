"""memcore against every committed truth file: TFLM's own measurements of the conformance
corpus (tests/corpus/) and the shared models, per target.

A truth file tests/corpus/truth/<target>.json holds, per model, what TFLM built for that
target reported (head, tail, total, RecordingMicroAllocator's categories) and the smallest
arena it accepted (bisection on the arena size).  Its header may name the target and the
kernels ("target", "kernels"); otherwise the file's name is the target and the kernels
are TFLM's reference kernels.  For every target with truth:
  - the head is exact on every model;
  - the tail and the total are exact on at least 95 % of them;
  - the recommended arena is at least the measured minimum on every model, and within
    5 % or 256 B of it on at least 95 %;
  - memcore's own plan of TFLM's buffers (tensors and kernels' scratch buffers) is never
    larger than TFLM's and never below the lower bound (for a model with an offline
    plan: than TFLM's plan without it; TFLM's head is then the plan around the file's
    offsets);
  - a model memcore refuses is one TFLM refuses too, or one memcore documents it does not
    model (a vendor kernel outside the op table), or an offline plan TFLM would follow
    into corrupted or misaligned activations (docs/bad-input.md), refused with a clear
    error.
Failure messages list every model that differs and by how much (bench/conformance.py
prints the whole table).
"""
import json
import pathlib

import pytest

import memcore

TESTS = pathlib.Path(__file__).resolve().parent
TRUTH_FILES = sorted((TESTS / "corpus" / "truth").glob("*.json"))
SHARE = 0.95
SLACK_FRACTION, SLACK_BYTES = 0.05, 256
# What memcore refuses by design although TFLM runs it (README, docs/bad-input.md).
NOT_MODELLED = ("does not model the optimised kernel",
                # offline plans TFLM runs without checking them (tests/corpus/make_offline.py)
                "offline memory plan", "offline offset")


def model_path(key):
    return TESTS / key if key.startswith("models/") else TESTS / "corpus" / "models" / key


def load_truth(path):
    data = json.loads(path.read_text())
    header = data.get("header", {})
    return header.get("target", path.stem), header.get("kernels", "reference"), data["models"]


def evaluate(truth_path):
    target, kernels, models = load_truth(truth_path)
    rows = []
    for key, t in sorted(models.items()):
        row = {"key": key, "truth": t, "arena": None, "refused": None, "plans": None}
        try:
            model = memcore.load(model_path(key))
            arena = memcore.tflm_arena(model, target=target, kernels=kernels)
            sizes, first, last = ([b[i] for b in arena.buffers] for i in range(3))
            fixed = arena.fixed_offsets if any(at >= 0 for at in arena.fixed_offsets) else None
            tflm = memcore.plan(sizes, first, last, strategy="tflm", fixed=fixed)
            online = memcore.plan(sizes, first, last, strategy="tflm")
            best = memcore.plan(sizes, first, last, strategy="best")
            row["arena"], row["plans"] = arena, (tflm, best, online)
        except memcore.MemcoreError as e:
            row["refused"] = str(e)
        rows.append(row)
    return target, kernels, rows


@pytest.fixture(scope="module", params=TRUTH_FILES, ids=[p.stem for p in TRUTH_FILES])
def conformance(request):
    return evaluate(request.param)


def _runs(rows):
    """Models TFLM runs and memcore gives numbers for."""
    return [r for r in rows if not r["truth"].get("error") and r["arena"] is not None]


def _diffs(rows, what, mine, theirs):
    return "\n".join("  %-46s memcore %8d  TFLM %8d  (%+d)" % (r["key"], mine(r), theirs(r), mine(r) - theirs(r))
                     for r in rows) or "  (none)"


def test_there_is_truth_to_check():
    assert TRUTH_FILES, "no truth files under tests/corpus/truth"
    targets = [load_truth(p)[0] for p in TRUTH_FILES]
    assert "host64" in targets


def test_head_exact_on_every_model(conformance):
    target, kernels, rows = conformance
    runs = _runs(rows)
    assert runs
    off = [r for r in runs if r["arena"].head_bytes != r["truth"]["head"]]
    assert not off, "%s/%s: head differs on %d of %d models:\n%s" % (
        target, kernels, len(off), len(runs),
        _diffs(off, "head", lambda r: r["arena"].head_bytes, lambda r: r["truth"]["head"]))


@pytest.mark.parametrize("field", ["tail_bytes", "total_bytes"])
def test_tail_and_total_exact_on_95_percent(conformance, field):
    target, kernels, rows = conformance
    runs = _runs(rows)
    key = field.split("_")[0]
    off = [r for r in runs if getattr(r["arena"], field) != r["truth"][key]]
    exact = len(runs) - len(off)
    assert exact >= SHARE * len(runs), "%s/%s: %s exact on %d of %d models (< 95 %%):\n%s" % (
        target, kernels, key, exact, len(runs),
        _diffs(off, key, lambda r: getattr(r["arena"], field), lambda r: r["truth"][key]))


def test_recommended_is_never_below_the_minimum_and_close_to_it(conformance):
    target, kernels, rows = conformance
    runs = [r for r in _runs(rows) if r["truth"].get("minimum_arena_bytes")]
    minimum = lambda r: r["truth"]["minimum_arena_bytes"]  # noqa: E731
    recommended = lambda r: r["arena"].recommended_arena_bytes  # noqa: E731
    below = [r for r in runs if recommended(r) < minimum(r)]
    assert not below, "%s/%s: the recommended arena is below TFLM's minimum on %d models:\n%s" % (
        target, kernels, len(below), _diffs(below, "arena", recommended, minimum))
    loose = [r for r in runs if recommended(r) > max(minimum(r) * (1 + SLACK_FRACTION), minimum(r) + SLACK_BYTES)]
    assert len(runs) - len(loose) >= SHARE * len(runs), \
        "%s/%s: recommended more than 5 %% or 256 B over the minimum on %d of %d models:\n%s" % (
            target, kernels, len(loose), len(runs), _diffs(loose, "arena", recommended, minimum))


def test_best_plan_between_the_bound_and_tflms(conformance):
    target, kernels, rows = conformance
    for r in _runs(rows):
        tflm, best, online = r["plans"]
        assert tflm.arena_bytes == r["arena"].head_bytes, r["key"]
        assert best.lower_bound_bytes <= best.arena_bytes <= online.arena_bytes, r["key"]


def test_refusals_are_tflms_or_documented(conformance):
    target, kernels, rows = conformance
    wrong = [r for r in rows if r["truth"].get("error") and r["arena"] is not None]
    assert not wrong, "%s/%s: TFLM refuses these, memcore gives numbers: %s" % (
        target, kernels, ", ".join(r["key"] for r in wrong))
    undocumented = [r for r in rows if not r["truth"].get("error") and r["refused"] is not None
                    and not any(reason in r["refused"] for reason in NOT_MODELLED)]
    assert not undocumented, "%s/%s: memcore refuses models TFLM runs:\n%s" % (
        target, kernels, "\n".join("  %s: %s" % (r["key"], r["refused"]) for r in undocumented))
    for r in rows:
        if r["refused"] is not None:
            assert str(model_path(r["key"])) in r["refused"]  # one error naming the model
