"""Per-allocation logs of TFLM's arena, from a build of the alloclog-patched source.

    python tools/tflm_oracle/measure_alloclog.py --build-dir PATCHED_BUILD \\
        --truth tests/corpus/truth/armhf.json --models tests/models=models/ \\
        --out-dir /work/handoff/alloclog/armhf

For each model, runs the patched program once at the arena size the truth file was
measured at, keeps its "@alloc" event lines, and writes OUT_DIR/<model>.json with the
events, the tail grouped by phase, the scratch-buffer requests and the final plan of
every buffer (tensors and scratch buffers, with offsets).  The patched build's head,
tail, total and categories must equal the truth file's (the unpatched build's); a model
where they differ is reported and makes the run fail.  See the README.md written beside
the logs for the fields.
"""
import argparse
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure import Runner, collect  # noqa: E402

README = """# TFLM per-allocation logs ({target})

Development data for the op table: one JSON per model, produced by
`tools/tflm_oracle/measure_alloclog.py` from TFLM (commit {commit}, compression {compression})
patched by `tools/tflm_oracle/alloclog_patch.py` (hooks that only print; the head, tail,
total and categories of every log equal the unpatched build's truth file,
`tests/corpus/truth/{target}.json`, which `matches_unpatched` records).
Built with: `{compiler}` `{cxxflags}`.

Offsets are bytes from the start of the arena (16-byte aligned).  The tail grows down from
the end: `tail_used` is the tail's size after an allocation.

Fields of each file:
- `model`, `target`, `arena_bytes`: what was run.
- `result`: head, tail, total, categories as the truth file has them.
- `matches_unpatched`: the patched build's numbers equal the truth file's.
- `events`: every hook call in order.  Each has `i` (order), `ev`, `phase` (the step of
  preparation it happened in), `subgraph`/`op`/`op_name` (the operator for init/prepare
  phases, -1/"" otherwise), and per event:
  - `persistent`: a tail allocation: `bytes` requested, `align`, `offset` of the new
    block, `tail_used` after it (the difference to the previous `tail_used` minus `bytes`
    is alignment padding).
  - `persistent_failed`: a tail allocation that did not fit (only when the arena is short).
  - `temp`: a temporary allocation above the head: `bytes`, `align`, `offset`, `temp_end`.
    `temp_free` (its `offset`) and `temp_reset` (temporaries dropped, `head`) end them.
  - `head_resize`: the head (planned area / scratch-request list) set to `bytes` with
    `align`; `head` is its new end.
  - `tensor_struct`: a TfLiteTensor about to be made (`kind` temp in Prepare, persistent
    for the interpreter's inputs/outputs), for `tensor` of `tensor_subgraph`; the
    temp/persistent events that follow belong to it (the struct, then quantization data).
  - `scratch_request`: RequestScratchBufferInArena: `bytes`, `buffer_index`, with the
    requesting op in `op`/`op_name` (phase `prepare`).
  - `subgraph_tensors`, `allocation_info`: what the memory planner is given: tensor
    counts per subgraph, `count` of AllocationInfo entries (tensors of every subgraph in
    order, then the scratch buffers), the scratch request count, and
    `greedy_per_buffer_bytes` (GreedyMemoryPlanner's bookkeeping per buffer, taken as a
    temporary from the rest of the arena while planning).
  - `planner_arena`: the bytes of free arena lent to the planner as a temporary.
  - `plan_failed`: the planner could not take every buffer (its bookkeeping did not fit
    in `planner_arena_bytes`); only when the arena is short.
  - `planned`/`not_planned`: each AllocationInfo entry: `info_index`, `bytes`,
    `first_created`/`last_used` (op indices), `offline_offset`, and for planned ones the
    `offset` in the head.
  - `plan_size`: the planner's head size (`bytes`).
- `below_minimum`: the run one byte below the truth's minimum arena: `ok` (false), the
  `failed` allocation events (what ran out first, in which phase), `last_events`.
- `tail_by_phase`: tail bytes (with padding) per phase, in order of first appearance.
- `scratch_requests`: [{{op, op_name, bytes, buffer_index, offset}}].
- `buffers`: the final plan: [{{kind: tensor|scratch, subgraph, tensor | scratch_index,
  bytes, first_created, last_used, offset (null when not planned in the head)}}].

Phases: `setup`, `create_allocator`, `resource_variables`, `interpreter_constructor`,
`allocate_tensors`, `start_model_allocation[:part]`, `parse_op_data` (op k's builtin
data), `init` / `prepare` / `finish_prepare` (op k), `finish_model_allocation[:part]`,
`input_tensors`, `output_tensors`, `reset`, `done`.
"""


def parse_events(stdout):
    events, result = [], None
    for line in stdout.splitlines():
        try:
            if line.startswith("@alloc "):
                events.append(json.loads(line[len("@alloc "):]))
            elif line.startswith('{"ok"'):
                result = json.loads(line)
        except json.JSONDecodeError:
            # A crash can cut the last line short; what came before it still stands.
            events.append({"ev": "truncated_line", "text": line[:200]})
    return events, result


def summarize(events):
    tail_by_phase, last_tail = {}, 0
    for e in events:
        if e["ev"] == "persistent":
            key = e["phase"] if e["op"] < 0 else f"{e['phase']}:{e['op']}:{e['op_name']}"
            tail_by_phase[key] = tail_by_phase.get(key, 0) + e["tail_used"] - last_tail
            last_tail = e["tail_used"]
    counts = [e for e in events if e["ev"] == "subgraph_tensors"]
    info = next((e for e in events if e["ev"] == "allocation_info"), None)
    bounds, start = [], 0
    for c in counts:
        bounds.append((start, start + c["tensors"], c["subgraph_index"]))
        start += c["tensors"]
    planned = {e["info_index"]: e for e in events if e["ev"] in ("planned", "not_planned")}
    buffers = []
    for index in sorted(planned):
        e = planned[index]
        entry = {"bytes": e["bytes"], "first_created": e["first_created"],
                 "last_used": e["last_used"], "offset": e.get("offset")}
        for lo, hi, sg in bounds:
            if lo <= index < hi:
                entry = {"kind": "tensor", "subgraph": sg, "tensor": index - lo, **entry}
                break
        else:
            entry = {"kind": "scratch", "scratch_index": index - start, **entry}
        buffers.append(entry)
    scratch = []
    for e in events:
        if e["ev"] == "scratch_request":
            b = next((x for x in buffers if x["kind"] == "scratch"
                      and x["scratch_index"] == e["buffer_index"]), None)
            scratch.append({"op": e["op"], "op_name": e["op_name"], "bytes": e["bytes"],
                            "buffer_index": e["buffer_index"],
                            "offset": b["offset"] if b else None})
    return tail_by_phase, scratch, buffers, info


def log_model(runner, key, path, truth_entry, out_dir, target):
    arena = truth_entry.get("arena_bytes_measured") or 4 * 1024 * 1024
    done = subprocess.run(runner.command([path, str(arena)]), capture_output=True, text=True,
                          timeout=600)
    events, result = parse_events(done.stdout + "\n" + done.stderr)
    fields = ("head", "tail", "total", "categories")
    if result is None:
        # The unpatched build crashed on it too: keep the events up to the crash.
        same = "crashed" in (truth_entry.get("error") or "")
        summary = "crashed" + ("" if same else " (the unpatched build did not)")
        result = {"ok": False, "error": "crashed without a result line"}
    elif not result["ok"]:
        same = truth_entry.get("error") is not None
        summary = f"refused: {result['error'][:120]}"
    else:
        same = all(result[f] == truth_entry.get(f) for f in fields)
        summary = "ok" if same else "DIFFERS: " + ", ".join(
            f"{f} {result[f]} vs {truth_entry.get(f)}" for f in fields
            if result[f] != truth_entry.get(f))
    tail_by_phase, scratch, buffers, info = summarize(events)
    below = None
    minimum = truth_entry.get("minimum_arena_bytes")
    if minimum:
        # What runs out one byte below the minimum: the allocation that binds.
        short = subprocess.run(runner.command([path, str(minimum - 1)]), capture_output=True,
                               text=True, timeout=600)
        short_events, short_result = parse_events(short.stdout + "\n" + short.stderr)
        below = {"arena_bytes": minimum - 1,
                 "ok": bool(short_result and short_result["ok"]),
                 "failed": [e for e in short_events if e["ev"].endswith("_failed")],
                 "last_events": short_events[-4:]}
    out = {"model": key, "target": target, "arena_bytes": arena,
           "result": {f: result.get(f) for f in fields} if result["ok"] else None,
           "error": result["error"] if not result["ok"] else None,
           "matches_unpatched": same, "allocation_info": info, "below_minimum": below,
           "tail_by_phase": tail_by_phase, "scratch_requests": scratch, "buffers": buffers,
           "events": events}
    name = os.path.basename(key)
    with open(os.path.join(out_dir, name[:-len(".tflite")] + ".json"), "w") as f:
        json.dump(out, f, indent=0)
    return key, same, summary


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--truth", required=True)
    ap.add_argument("--models", action="append", required=True, metavar="DIR[=PREFIX]")
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("JOBS", "2")))
    args = ap.parse_args(argv)
    info = json.load(open(os.path.join(args.build_dir, "build-info.json")))
    truth = json.load(open(args.truth))
    runner = Runner(info["target"], info["program"])
    os.makedirs(args.out_dir, exist_ok=True)
    models = collect(args.models)
    missing = [k for k, _ in models if k not in truth["models"]]
    if missing:
        raise SystemExit(f"not in {args.truth}: {', '.join(missing)}")
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(lambda m: log_model(runner, m[0], m[1], truth["models"][m[0]],
                                                    args.out_dir, info["target"]), models))
    h = truth["header"]
    with open(os.path.join(args.out_dir, "README.md"), "w") as f:
        f.write(README.format(target=info["target"], commit=h["tflm_commit"],
                              compression="on" if h["compression"] else "off",
                              compiler=h["compiler_version"], cxxflags=h["cxxflags"]))
    bad = [r for r in results if not r[1]]
    for key, same, summary in results:
        if not same:
            print(f"{key}: {summary}")
    print(f"{len(results)} logs in {args.out_dir}; {len(bad)} differ from the unpatched build")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
