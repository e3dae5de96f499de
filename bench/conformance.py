"""How closely memcore reproduces TFLM's arena on the conformance corpus.

    python bench/conformance.py                                    # host64 truth
    python bench/conformance.py tests/corpus/truth/host64.json --summary

For every model in a truth file (written by tests/corpus/measure_*.py from TFLM itself),
prints memcore's head, tail, total and recommended arena beside the measured ones, then
the summary: head / tail / total exact on how many models, whether the recommended arena
is at least the measured minimum everywhere, whether it is within 5 % or 256 B of it, and
which models memcore refuses and why.  Nothing here is a pass/fail check; it is the
picture a user would get.
"""
import argparse
import collections
import json
import pathlib
import sys

import memcore

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEFAULT_TRUTH = ROOT / "tests" / "corpus" / "truth" / "host64.json"
SLACK_FRACTION, SLACK_BYTES = 0.05, 256

# The truth file's header names its target and kernels (else its name is the target and
# the kernels are the reference ones).  The one place that says how memcore is asked for
# a target's arena (before memcore named targets it was
#   memcore.tflm_arena(model, pointer_bytes=8)  for host64).
TARGETS = ("host64", "armhf", "cortex-m", "riscv32", "esp32")


def memcore_arena(model, target, kernels="reference"):
    return memcore.tflm_arena(model, target=target, kernels=kernels)


def model_path(key):
    if key.startswith("models/"):
        return ROOT / "tests" / key
    return ROOT / "tests" / "corpus" / "models" / key


def evaluate(key, truth, target, kernels="reference"):
    """One row: memcore's numbers (or its refusal) next to the measured ones."""
    row = {"key": key, "truth": truth, "refused": None, "arena": None}
    try:
        model = memcore.load(model_path(key))
        model.plan("tflm")
        row["arena"] = memcore_arena(model, target, kernels)
    except memcore.MemcoreError as e:
        row["refused"] = str(e).replace(str(model_path(key)) + ": ", "")
    return row


def within_slack(recommended, minimum):
    return minimum <= recommended <= max(minimum * (1 + SLACK_FRACTION), minimum + SLACK_BYTES)


def print_table(rows, out):
    fmt = "%-44s %8s %8s %7s %7s %8s %8s %8s %8s  %s"
    print(fmt % ("model", "head", "TFLM", "tail", "TFLM", "total", "TFLM", "recomm.", "minimum", "notes"), file=out)
    for r in rows:
        t, a = r["truth"], r["arena"]
        if t["error"]:
            note = "TFLM refuses: " + t["error"].splitlines()[0][:70]
            if a is not None:
                note += "; memcore gives numbers"
            print(fmt % (r["key"], "", "", "", "", "", "", "", "", note), file=out)
            continue
        if a is None:
            print(fmt % (r["key"], "-", t["head"], "-", t["tail"], "-", t["total"], "-",
                         t["minimum_arena_bytes"], "refused: " + r["refused"][:80]), file=out)
            continue
        notes = []
        if a.recommended_arena_bytes < t["minimum_arena_bytes"]:
            notes.append("BELOW MINIMUM by %d" % (t["minimum_arena_bytes"] - a.recommended_arena_bytes))
        elif not within_slack(a.recommended_arena_bytes, t["minimum_arena_bytes"]):
            notes.append("+%d over" % (a.recommended_arena_bytes - t["minimum_arena_bytes"]))
        if getattr(a, "upper_bound", False):
            notes.append("upper bound (estimated operators)")
        if getattr(a, "estimated_kinds", ()):
            notes.append("estimated: " + ",".join(a.estimated_kinds))
        own_minimum = getattr(a, "minimum_arena_bytes", None)
        if own_minimum is not None and own_minimum != t["minimum_arena_bytes"]:
            notes.append("memcore's minimum %d" % own_minimum)

        def mark(mine, theirs):
            return "%d%s" % (mine, "" if mine == theirs else "*")
        print(fmt % (r["key"], mark(a.head_bytes, t["head"]), t["head"], mark(a.tail_bytes, t["tail"]), t["tail"],
                     mark(a.total_bytes, t["total"]), t["total"], a.recommended_arena_bytes,
                     t["minimum_arena_bytes"], "; ".join(notes)), file=out)


def summary(rows, target, out, title="models TFLM runs"):
    runs = [r for r in rows if not r["truth"]["error"]]
    given = [r for r in runs if r["arena"] is not None]
    n, g = len(runs), len(given)

    def count(pred):
        return sum(1 for r in given if pred(r["truth"], r["arena"]))

    def line(what, k):
        print("  %-32s %3d of %d  (%d of the %d memcore gives numbers for)" % (what, k, n, k, g), file=out)
    below = [r for r in given if r["arena"].recommended_arena_bytes < r["truth"]["minimum_arena_bytes"]]
    print("\nConformance of memcore %s on %d %s (%s):" % (memcore.__version__, n, title, target), file=out)
    print("  %-32s %3d of %d" % ("memcore gives numbers for", g, n), file=out)
    line("head exact", count(lambda t, a: a.head_bytes == t["head"]))
    line("tail exact", count(lambda t, a: a.tail_bytes == t["tail"]))
    line("total exact", count(lambda t, a: a.total_bytes == t["total"]))
    if given and hasattr(given[0]["arena"], "minimum_arena_bytes"):
        line("minimum exact", count(lambda t, a: a.minimum_arena_bytes == t["minimum_arena_bytes"]))
    line("recommended >= minimum", g - len(below))
    line("recommended within 5% or 256 B",
         count(lambda t, a: within_slack(a.recommended_arena_bytes, t["minimum_arena_bytes"])))
    for r in below:
        print("    below the minimum: %s by %d B" % (
            r["key"], r["truth"]["minimum_arena_bytes"] - r["arena"].recommended_arena_bytes), file=out)
    reasons = collections.Counter(_reason(r["refused"]) for r in runs if r["refused"])
    if reasons:
        print("  refused by memcore although TFLM runs them (first reason given):", file=out)
        for reason, k in reasons.most_common():
            print("    %3d  %s" % (k, reason), file=out)
    refused_by_tflm = [r for r in rows if r["truth"]["error"]]
    if refused_by_tflm:
        also = sum(1 for r in refused_by_tflm if r["arena"] is None)
        print("  models TFLM refuses: %d; memcore refuses %d of them" % (len(refused_by_tflm), also), file=out)
        for r in refused_by_tflm:
            print("    %s: %s" % (r["key"], "memcore refuses: " + r["refused"][:90] if r["refused"]
                                  else "memcore GIVES NUMBERS"), file=out)


def _reason(message):
    """A refusal's message without the details that differ per model (tensor names, numbers)."""
    if "unsupported operator" in message:
        return "unsupported operator " + message.split(":", 2)[-1].strip()
    if "dynamic or unknown shape" in message:
        return "dynamic or unknown shape"
    if "subgraphs" in message:
        return "several subgraphs"
    return message[:100]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("truth", nargs="?", default=str(DEFAULT_TRUTH), help="truth file (default: host64)")
    ap.add_argument("--summary", action="store_true", help="print the summary only")
    args = ap.parse_args(argv)
    path = pathlib.Path(args.truth)
    data = json.loads(path.read_text())
    target = data["header"].get("target", path.stem)
    kernels = data["header"].get("kernels", "reference")
    if target not in TARGETS:
        sys.exit("%s: no memcore target for truth file %s" % (path, target))
    truth = data["models"]
    rows = [evaluate(key, entry, target, kernels) for key, entry in sorted(truth.items())]
    if not args.summary:
        print_table(rows, sys.stdout)
    summary(rows, target, sys.stdout)
    shared = [r for r in rows if r["key"].startswith("models/")]
    if shared:
        summary(shared, target, sys.stdout, "shared models (tests/models)")


if __name__ == "__main__":
    main()
