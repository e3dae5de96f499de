"""What `memcore shrink` saves, proven with TFLM: every shared and corpus model.

    python bench/shrink.py                                  # TFLM's PyPI interpreter (host64)
    python bench/shrink.py --armhf /work/oracles/armhf      # also the 32-bit Arm oracle
    python bench/shrink.py --armhf /work/oracles/armhf --truth tests/corpus/shrunk/armhf.json

For each model memcore shrinks (host64, reference kernels, as the interpreter runs them):
TFLM's measured head before, after with memcore's plan in the file's operator order
(what --no-reorder writes), and after reordering (what shrink writes); the order
search's least peak (`*`: proven, the least of any order: no order's head is below
it); the % of the head saved; the time shrink took; and whether TFLM agrees with memcore
on the shrunk file (head and total measured; allocates at memcore's recommended arena,
fails 16 B below memcore's minimum, each probe in its own process; outputs bit-identical
to the original's on random inputs).  With --armhf, the same file shrunk for the armhf
target is measured by tools/tflm_oracle's armhf program (head and total against memcore's);
--truth writes those measurements, which tests/test_shrink.py checks memcore against.
Models already at their best are counted, not measured (they are written unchanged).
The models of tests/reorder_models.py (orders written poorly on purpose) are included.
"""
import argparse
import hashlib
import json
import pathlib
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tools" / "tflm_oracle"))

import memcore  # noqa: E402
import tflm_oracle  # noqa: E402
from memcore.shrink import shrink  # noqa: E402

ROOMY_ARENA_BYTES = 4 * 1024 * 1024


def models(folder):
    import reorder_models
    found = dict(reorder_models.write_all(folder))
    for folder in (ROOT.parent / "shared" / "models", ROOT / "tests" / "models", ROOT / "tests" / "corpus" / "models"):
        for path in sorted(folder.glob("*.tflite")):
            found.setdefault(path.name, path)
    return list(found.items())


def prove_host64(source, result, folder):
    """TFLM's PyPI interpreter on the shrunk file: (measured before head, after head, all agree?)."""
    out = folder / ("host64_" + source.name)
    out.write_bytes(result.data)
    before, after = tflm_oracle.measure(source), tflm_oracle.measure(out)
    a = result.after
    agrees = (after["ok"] and (after["head"], after["total"]) == (a.head_bytes, a.total_bytes)
              and tflm_oracle.probe(out, a.recommended_arena_bytes) == tflm_oracle.ALLOCATED
              and tflm_oracle.probe(out, a.minimum_arena_bytes - 16) != tflm_oracle.ALLOCATED)
    want = tflm_oracle.outputs(source, 1, folder / "want.npz")
    got = tflm_oracle.outputs(out, 1, folder / "got.npz", arena_bytes=a.recommended_arena_bytes)
    same = len(got) == len(want) and all(g.dtype == w.dtype and g.tobytes() == w.tobytes() for g, w in zip(got, want))
    return before.get("head"), after.get("head"), agrees, same


def prove_armhf(runner, source, folder):
    """The armhf oracle on the file shrunk for armhf: the truth entry, or None if unchanged."""
    result = shrink(source, "armhf", "reference")
    if not result.changed:
        return None
    out = folder / ("armhf_" + source.name)
    out.write_bytes(result.data)
    measured = runner.run(str(out), ROOMY_ARENA_BYTES)
    original = runner.run(str(source), ROOMY_ARENA_BYTES)
    return {"source": source.name, "sha256": hashlib.sha256(result.data).hexdigest(),
            "head": measured["head"] if measured and measured["ok"] else None,
            "total": measured["total"] if measured and measured["ok"] else None,
            "memcore_head": result.after.head_bytes, "memcore_total": result.after.total_bytes,
            "before_head": original["head"] if original and original["ok"] else None,
            "memcore_before_head": result.before.head_bytes}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--armhf", metavar="BUILD_DIR", help="tools/tflm_oracle's armhf build (build-info.json)")
    ap.add_argument("--truth", metavar="FILE", help="write the armhf measurements of the shrunk files here")
    args = ap.parse_args(argv)
    runner = None
    if args.armhf:
        from measure import Runner
        info = json.loads((pathlib.Path(args.armhf) / "build-info.json").read_text())
        runner = Runner(info["target"], info["program"])
    rows, unchanged, refused, truth = [], 0, {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp)
        for name, path in models(folder):
            start = time.time()
            try:
                result = shrink(path, "host64", "reference")
            except memcore.MemcoreError as e:
                why = str(e).split(": ", 1)[-1]
                refused[why[:70]] = refused.get(why[:70], 0) + 1
                continue
            seconds = time.time() - start
            if runner is not None:
                entry = prove_armhf(runner, path, folder)
                if entry:
                    truth[name] = entry
            if not result.changed:
                unchanged += 1
                continue
            before, after, agrees, same = prove_host64(path, result, folder)
            file_order = after
            if result.reordered:   # TFLM on what --no-reorder writes
                plain = shrink(path, "host64", "reference", reorder=False)
                file_order = before
                if plain.changed:
                    (folder / "plain.tflite").write_bytes(plain.data)
                    file_order = tflm_oracle.measure(folder / "plain.tflite").get("head")
            bound = "-" if result.reorder is None else "{:,}{}".format(result.reorder.searched_peak_bytes,
                                                                      "*" if result.reorder.exact else "")
            rows.append((name, before, file_order, after, bound, agrees, same, seconds))
    print("%-40s %9s %9s %9s %9s %7s %6s %7s %7s" % ("model", "head", "plan", "reorder", "least", "saved", "TFLM",
                                                     "outputs", "shrink"))
    for name, before, file_order, after, bound, agrees, same, seconds in sorted(
            rows, key=lambda r: (r[3] or 0) / (r[1] or 1)):
        print("%-40s %9s %9s %9s %9s %6.1f%% %6s %7s %5.0fms" % (
            name[:40], "{:,}".format(before), "{:,}".format(file_order), "{:,}".format(after), bound,
            100.0 * (before - after) / before, "agrees" if agrees else "DIFFERS", "same" if same else "DIFFER",
            1000 * seconds))
    reordered = [r for r in rows if r[2] != r[3]]
    print("%d models: %d shrunk (%d of them reordered; TFLM agrees on %d, same outputs on %d), %d already at their "
          "best, %d refused" % (len(rows) + unchanged + sum(refused.values()), len(rows), len(reordered),
                                sum(r[5] for r in rows), sum(r[6] for r in rows), unchanged, sum(refused.values())))
    for why, count in sorted(refused.items(), key=lambda x: -x[1]):
        print("  refused %3d: %s" % (count, why))
    if runner is not None:
        exact = sum(e["head"] == e["memcore_head"] and e["total"] == e["memcore_total"] for e in truth.values())
        print("armhf: %d files shrunk for armhf, head and total exact on %d" % (len(truth), exact))
        for name, e in sorted(truth.items()):
            print("  %-44s head %6s (memcore %6d) -> %6s (memcore %6d), total %6s (memcore %6d)" % (
                name, e["before_head"], e["memcore_before_head"], e["head"], e["memcore_head"], e["total"],
                e["memcore_total"]))
    if args.truth:
        header = {"what": "TFLM's armhf head and total for the files `memcore shrink --target armhf --kernels "
                          "reference` writes, measured by tools/tflm_oracle (bench/shrink.py --truth)",
                  "build": json.loads((pathlib.Path(args.armhf) / "build-info.json").read_text())["compiler_version"]}
        measured = {name: {k: v for k, v in e.items() if not k.startswith("memcore_")} for name, e in truth.items()}
        pathlib.Path(args.truth).write_text(json.dumps({"header": header, "models": measured}, indent=1,
                                                       sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
