"""Writes the corpus's offline-planned models: existing corpus models with an
OfflineMemoryAllocation plan added (tests/offline_plan.py, through memcore's own writer,
memcore.tflite_write, which memcore shrink uses), and adds them to COVERAGE.md's rows.  Runs in memcore's test venv:

    python tests/corpus/make_offline.py
    python tests/corpus/make_offline.py --out DIR   # the models into DIR, COVERAGE.md untouched

Valid plans, on models with and without kernel scratch buffers and variable tensors:
  offline_full_<base>     every planned tensor at memcore's own offsets (variables above)
  offline_partial_<base>  every other planned tensor there, the rest -1 (TFLM places them)
  offline_poor_<base>     every planned tensor at its own offset, stacked: no reuse at all
Invalid plans, on resnet_block_i8 (TFLM runs most of them, silently wrong):
  offline_bad_overlap_, _misaligned_, _negative_, _past2g_, _count_, _version_,
  _subgraph_, _truncated_
The offsets are inputs, chosen with memcore's planner; what TFLM makes of them is
measured (measure_host64.py, tools/tflm_oracle), never computed here.
"""
import argparse
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import memcore  # noqa: E402
import offline_plan  # noqa: E402

MODELS = HERE / "models"
VALID_BASES = ("resnet_block_i8", "tconv_decoder_i8", "unet_small_i8", "lstm_fused_i8", "svdf_edited_f32",
               "mean_hw_keep_f32")
BAD_BASE = "resnet_block_i8"


def planned(model):
    """Planned tensors (by index) with TFLM's lifetimes, and the variables."""
    life = model.lifetimes()
    return life, [t.index for t in model.tensors if t.is_variable]


def plans(base):
    path = MODELS / (base + ".tflite")
    data = path.read_bytes()
    model = memcore.load(path)
    n = offline_plan.tensor_count(data)
    best = model.plan("best")
    life, variables = planned(model)
    top = best.arena_bytes
    full = [-1] * n
    for t, at in best.offsets.items():
        full[t] = at
    for v in variables:  # above every activation: state lives all the time
        full[v] = top
        top += -(-model.tensors[v].bytes // 16) * 16
    partial = list(full)
    for k, t in enumerate(sorted(best.offsets)):
        if k % 2:
            partial[t] = -1
    poor, at = [-1] * n, 0
    for t in sorted(best.offsets) + variables:
        poor[t] = at
        at += -(-model.tensors[t].bytes // 16) * 16
    yield "offline_full_" + base, offline_plan.with_plan(data, full)
    yield "offline_partial_" + base, offline_plan.with_plan(data, partial)
    yield "offline_poor_" + base, offline_plan.with_plan(data, poor)


def bad_plans():
    path = MODELS / (BAD_BASE + ".tflite")
    data = path.read_bytes()
    model = memcore.load(path)
    n = offline_plan.tensor_count(data)
    best = model.plan("best")
    full = [-1] * n
    for t, at in best.offsets.items():
        full[t] = at
    life = model.lifetimes()
    # two tensors live at the same time: an operator's input and its output
    op = next(o for o in model.operators if o.inputs and o.inputs[0] in life and o.outputs[0] in life)
    overlap = list(full)
    overlap[op.inputs[0]] = overlap[op.outputs[0]] = 0
    misaligned, negative, past2g = list(full), list(full), list(full)
    first = min(best.offsets)
    misaligned[first] += 8
    negative[first] = -16
    past2g[first] = 2 ** 31 - 16
    yield "offline_bad_overlap_" + BAD_BASE, offline_plan.with_plan(data, overlap)
    yield "offline_bad_misaligned_" + BAD_BASE, offline_plan.with_plan(data, misaligned)
    yield "offline_bad_negative_" + BAD_BASE, offline_plan.with_plan(data, negative)
    yield "offline_bad_past2g_" + BAD_BASE, offline_plan.with_plan(data, past2g)
    yield "offline_bad_count_" + BAD_BASE, offline_plan.with_plan(data, full[:-1])
    yield "offline_bad_version_" + BAD_BASE, offline_plan.with_plan(data, full, version=2)
    yield "offline_bad_subgraph_" + BAD_BASE, offline_plan.with_plan(data, full, subgraph=1)
    yield "offline_bad_truncated_" + BAD_BASE, offline_plan.with_plan(data, full, truncate=8)


def add_to_coverage(names):
    """Each new model joins the rows (operator kinds, structures) of the model it is
    made from, so COVERAGE.md's claims hold for it too."""
    path = HERE / "COVERAGE.md"
    lines = path.read_text().splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"(\| \S+ \| )(.*)( \|)$", line) or re.match(r"(- .*: )(.*)()$", line)
        if not m:
            continue
        files = m.group(2).split()
        added = [new + ".tflite" for new, base in names if base + ".tflite" in files and new + ".tflite" not in files]
        if added:
            lines[i] = m.group(1) + " ".join(sorted(files + added)) + m.group(3)
    bullet = "- offline memory plans (OfflineMemoryAllocation: full, partial, poor, invalid): "
    lines = [l for l in lines if not l.startswith(bullet)]
    at = next(i for i, l in enumerate(lines) if l.startswith("## Structures and parameters")) + 2
    while at < len(lines) and lines[at].startswith("- "):
        at += 1
    lines.insert(at, bullet + " ".join(sorted(new + ".tflite" for new, _ in names)))
    path.write_text("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=pathlib.Path, help="write the models here and leave COVERAGE.md alone")
    args = ap.parse_args()
    out = args.out or MODELS
    out.mkdir(parents=True, exist_ok=True)
    names = []
    for base in VALID_BASES:
        for name, data in plans(base):
            names.append((name, base))
            (out / (name + ".tflite")).write_bytes(data)
    for name, data in bad_plans():
        names.append((name, BAD_BASE))
        (out / (name + ".tflite")).write_bytes(data)
    if args.out is None:
        add_to_coverage(names)
    print("wrote %d models to %s" % (len(names), out))


if __name__ == "__main__":
    main()
