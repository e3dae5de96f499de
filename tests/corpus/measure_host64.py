"""Measures TFLM's arena for every corpus model on this 64-bit host, with the PyPI
`tflite-micro` interpreter (tests/tflm_oracle.py), and writes tests/corpus/truth/host64.json.

    python tests/corpus/measure_host64.py                 # every model, 2 processes
    python tests/corpus/measure_host64.py --only conv_    # re-measure some, keep the rest

Per model (corpus files by name, the shared models of tests/models as "models/<file>"):
  head, tail, total   RecordingMicroAllocator's report after AllocateTensors in a 2 MiB arena
  categories          {name: {used_bytes, requested_bytes, count}}
  minimum_arena_bytes the smallest arena, to the byte, that allocates: galloping from the
                      total, then bisection, in one long-lived child; the answer N is
                      confirmed in fresh children (N allocates, N-1 does not), and so is
                      every probe that crashed (TFLM can crash on a short arena)
  error               null, or what TFLM said when it refused the model
  crashed_probes      arena sizes at which a probe crashed (confirmed in a fresh child)
                      instead of failing cleanly
  searched_in         "worker", or "fresh" when the long-lived child disagreed with fresh
                      ones and the search was redone a child per probe
  above_minimum_ok    the probes just above the minimum (+1, +15) both allocate
"""
import argparse
import concurrent.futures
import json
import pathlib
import platform
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
TESTS = HERE.parent
sys.path.insert(0, str(TESTS))

import tflm_oracle  # noqa: E402

TRUTH = HERE / "truth" / "host64.json"
MEASURE_ARENA_BYTES = 2 * 1024 * 1024


def models():
    """{key: path} of every model measured: the corpus and the shared models."""
    found = {p.name: p for p in sorted((HERE / "models").glob("*.tflite"))}
    found.update({"models/" + p.name: p for p in sorted((TESTS / "models").glob("*.tflite"))})
    return found


def measure_one(path):
    m = tflm_oracle.measure(path, MEASURE_ARENA_BYTES)
    entry = {"head": m.get("head"), "tail": m.get("tail"), "total": m.get("total"),
             "categories": {name: {"used_bytes": u, "requested_bytes": r, "count": c}
                            for name, (u, r, c) in sorted(m["categories"].items())},
             "minimum_arena_bytes": None, "error": m["error"]}
    if not m["ok"]:
        return entry
    probes = []
    minimum, how = tflm_oracle.min_arena_fast(path, m["total"], probes=probes)
    above = [minimum + d for d in (1, 15)]  # fresh children: is the answer a clean edge?
    entry["minimum_arena_bytes"] = minimum
    entry["crashed_probes"] = sorted(n for n, status in probes
                                     if status not in (tflm_oracle.ALLOCATED, tflm_oracle.REFUSED))
    entry["above_minimum_ok"] = all(tflm_oracle.allocates(path, n) for n in above)
    entry["searched_in"] = how
    return entry


def header(command):
    from importlib import metadata
    manifest = json.loads((HERE / "manifest.json").read_text())
    return {"tflite_micro": metadata.version("tflite-micro"),
            "tensorflow": manifest["generator"]["tensorflow"],
            "python": platform.python_version(),
            "platform": "%s %s (%s)" % (platform.system(), platform.machine(), platform.platform()),
            "measure_arena_bytes": MEASURE_ARENA_BYTES,
            "command": command}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", help="measure only models whose key contains this; keep the other entries")
    ap.add_argument("--jobs", type=int, default=2, help="models measured at once (default 2)")
    args = ap.parse_args()
    todo = {k: p for k, p in models().items() if not args.only or args.only in k}
    old = json.loads(TRUTH.read_text()) if args.only and TRUTH.exists() else None
    truth = old["models"] if old else {}
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(measure_one, p): k for k, p in todo.items()}
        for future in concurrent.futures.as_completed(futures):
            key = futures[future]
            truth[key] = entry = future.result()
            print("%-45s head %7s tail %6s total %7s min %7s %s" % (
                key, entry["head"], entry["tail"], entry["total"], entry["minimum_arena_bytes"],
                ("ERROR " + entry["error"].splitlines()[0][:60]) if entry["error"] else ""), flush=True)
    seconds = time.monotonic() - start
    known = models()
    truth = {k: v for k, v in sorted(truth.items()) if k in known}
    command = "python tests/corpus/measure_host64.py" + (" --only %s" % args.only if args.only else "")
    TRUTH.parent.mkdir(exist_ok=True)
    run = dict(header(command), seconds=round(seconds, 1), jobs=args.jobs, measured=len(todo))
    if old:  # a partial run: the full run's header stays, this run is added to its updates
        head = old["header"]
        head.setdefault("updates", []).append({k: run[k] for k in ("command", "measured", "seconds", "tflite_micro")})
    else:
        head = run
    out = {"header": head, "models": truth}
    TRUTH.write_text(json.dumps(out, indent=1) + "\n")
    print("%d models measured in %.0f s; %d in the truth file" % (len(todo), seconds, len(truth)))


if __name__ == "__main__":
    main()
