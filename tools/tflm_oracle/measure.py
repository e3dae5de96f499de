"""Measures TFLM's arena for a folder of models with a program build.sh made, on its
target (natively, under qemu-user, or bare metal under qemu-system), and writes a truth
file: head, tail, total and recording-allocator categories at a roomy arena, and the
minimum arena found by bisection to the byte.

    python tools/tflm_oracle/measure.py --build-dir DIR --models tests/models=models/ \\
        [--models CORPUS_DIR] --out tests/corpus/truth/armhf.json
    python tools/tflm_oracle/measure.py --build-dir DIR --models tests/models=models/ \\
        --check tests/corpus/truth/armhf.json        # re-measure and compare

The minimum arena is the smallest N at which the program's run (allocator creation,
interpreter construction and AllocateTensors) succeeds, with N-1 failing; both are
probed.  Every probe is its own process: TFLM sometimes crashes instead of failing
when the arena is a few bytes short, and a probe that prints no result line counts as
a failure (such sizes are listed under "crashed_probes").  The search starts at the
measured total and gallops away from it, so most models take a handful of probes.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
# The commit of tflite-micro that /work/shared/tflm's subset was taken from (its
# README says 90b983c2; the full hash is that of tensorflow/tflite-micro's history).
TFLM_COMMIT = "90b983c2b3f1480642e040bbd2ddb37b998f3424"
ROOMY_ARENA_BYTES = 4 * 1024 * 1024

# How each target's program is run: {prog} is the program, {args} its arguments (as
# separate words, or as QEMU semihosting "arg=" options on bare metal, where QEMU gives
# the program its command line and file access).
def _semihosting(machine, cpu, qemu="qemu-system-arm", extra=()):
    return [qemu, "-M", machine, *(["-cpu", cpu] if cpu else []), *extra, "-display", "none",
            "-monitor", "none", "-serial", "none", "-semihosting-config",
            "enable=on,target=native,arg=tflm_oracle,{args}", "-kernel", "{prog}"]


RUNNERS = {
    "x86_64-src": ["{prog}", "{args}"],
    "i386": ["{prog}", "{args}"],
    "armhf": ["qemu-arm", "{prog}", "{args}"],
    "armhf-esp-nn": ["qemu-arm", "{prog}", "{args}"],
    "cortex-m": _semihosting("mps2-an385", "cortex-m3"),
    "cortex-m-cmsis-nn": _semihosting("mps2-an386", "cortex-m4"),
    "riscv32": _semihosting("virt", None, "qemu-system-riscv32", ("-bios", "none")),
    # The ESP32's ABI: Xtensa GCC's layouts, on QEMU's LX106 simulator (baremetal/xtensa_sim.c)
    "xtensa-esp-nn": _semihosting("sim", "lx106", "qemu-system-xtensa"),
}


class Runner:
    def __init__(self, target, prog, timeout_seconds=300):
        self.target, self.prog, self.timeout_seconds = target, prog, timeout_seconds
        self.probes = 0
        self._local = threading.local()  # why the calling thread's last run failed

    @property
    def last_failure(self):
        return getattr(self._local, "why", "")

    def command(self, args):
        words = []
        for w in RUNNERS[self.target]:
            if w == "{args}":
                words += args
            elif "{args}" in w:
                for a in args:
                    if "," in a or " " in a:
                        raise ValueError(f"{a}: a bare-metal run cannot pass ',' or ' '")
                words.append(w.replace("{args}", ",".join("arg=" + a for a in args)))
            else:
                words.append(w.replace("{prog}", self.prog))
        return words

    def run_args(self, args):
        """The program's JSON result line, or None when it printed none (a crash)."""
        self.probes += 1
        try:
            done = subprocess.run(self.command(args), capture_output=True, text=True,
                                  timeout=self.timeout_seconds)
        except subprocess.TimeoutExpired:
            self._local.why = f"timed out after {self.timeout_seconds} s"
            return None
        tail = (done.stdout + done.stderr).strip().splitlines()[-1:] or [""]
        self._local.why = f"exit status {done.returncode}: {tail[0][:160]}"
        # QEMU writes a bare-metal program's semihosting console to its stderr.
        for line in (done.stdout + "\n" + done.stderr).splitlines():
            if line.startswith('{"ok"') or line.startswith('{"target"'):
                return json.loads(line)
        return None

    def run(self, model, arena_bytes):
        return self.run_args([model, str(arena_bytes)])

    def abi(self):
        return self.run_args(["--abi"])


def minimum_arena(runner, model, total_bytes):
    """Smallest arena that allocates, probing each size in its own process."""
    crashes = []

    def ok(n):
        r = runner.run(model, n)
        if r is None:
            crashes.append(n)
        return bool(r and r["ok"])

    if ok(total_bytes):
        hi, step = total_bytes, 1
        lo = hi - step
        while lo > 0 and ok(lo):
            hi, step = lo, step * 2
            lo = max(hi - step, 0)
    else:
        lo, step = total_bytes, 1
        hi = lo + step
        while not ok(hi):
            lo, step = hi, step * 2
            hi = lo + step
            if step > (1 << 30):
                raise RuntimeError(f"{model}: no arena up to {hi} bytes allocates")
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi, sorted(set(crashes))


def measure_model(runner, path, roomy_bytes, src_prefix):
    start = time.time()
    first = runner.run(path, roomy_bytes)
    entry = {"head": None, "tail": None, "total": None, "categories": None,
             "minimum_arena_bytes": None, "crashed_probes": [], "above_minimum_ok": None,
             "error": None,
             "arena_bytes_measured": roomy_bytes}
    if first is None:
        entry["error"] = (f"crashed at {roomy_bytes} bytes without a result "
                          f"({runner.last_failure})")
    elif not first["ok"]:
        # TFLM's messages carry __FILE__: keep them independent of where it was unpacked.
        text = " ".join(first["error"].replace(src_prefix, "").split())
        entry["error"] = f"{first['stage']}: {text}"
    else:
        for k in ("head", "tail", "total", "categories"):
            entry[k] = first[k]
        entry["minimum_arena_bytes"], entry["crashed_probes"] = minimum_arena(
            runner, path, first["total"])
        # Success must not depend on the arena's size modulo an alignment: spot-check
        # sizes above the minimum, across a 16-byte period.
        entry["above_minimum_ok"] = all(
            (r := runner.run(path, entry["minimum_arena_bytes"] + d)) is not None and r["ok"]
            for d in (1, 2, 3, 5, 8, 13, 16))
    entry["seconds"] = round(time.time() - start, 2)
    return entry


def collect(models_args):
    """[(key, path)] from DIR[=PREFIX] arguments, keyed PREFIX + file name."""
    found = []
    for arg in models_args:
        folder, _, prefix = arg.partition("=")
        for name in sorted(os.listdir(folder)):
            if name.endswith(".tflite"):
                found.append((prefix + name, os.path.abspath(os.path.join(folder, name))))
    return found


def header(info, abi_path, runtime_abi, command, roomy_bytes):
    abi = json.load(open(abi_path)) if abi_path and os.path.exists(abi_path) else None
    facts = None
    if abi:
        core = abi["core"]
        pick = ["TfLiteTensor", "TfLiteEvalTensor", "TfLiteNode", "NodeAndRegistration",
                "TFLMRegistration", "TfLiteAffineQuantization", "TfLiteIntArray",
                "internal::ScratchBufferRequest", "ScratchBufferHandle", "AllocationInfo",
                "RecordingMicroAllocator", "GreedyMemoryPlanner",
                "RecordingSingleArenaBufferAllocator", "MicroResourceVariables"]
        facts = {name: core[name] for name in pick if name in core}
        facts["enum (TfLiteType)"] = core.get("TfLiteType")
        facts["int64_t"] = core.get("int64_t")
        facts["double"] = core.get("double")
        facts["void*"] = core.get("void*")
    return {
        "what": "TensorFlow Lite Micro's arena measured by tools/tflm_oracle on this target",
        "target": info["target"],
        "tflm_commit": TFLM_COMMIT,
        "tflm_source": "/work/shared/tflm/tflite-micro-90b983c2-subset.tar.gz",
        "compiler": info["compiler"],
        "compiler_version": info["compiler_version"],
        "cxxflags": info["cxxflags"],
        "ldflags": info["ldflags"],
        "compression": info["compression"],
        "runner": " ".join(RUNNERS[info["target"]]).replace("{prog}", "$BUILD_DIR/" + os.path.basename(info["program"])),
        "arena_bytes_measured": roomy_bytes,
        "abi_compile_time": facts,
        "abi_runtime": runtime_abi,
        "command": command,
        "fields": {
            "head, tail, total": "RecordingSingleArenaBufferAllocator's non-persistent, "
                                 "persistent and total used bytes after AllocateTensors()",
            "categories": "RecordingMicroAllocator's per-category used/requested/count",
            "minimum_arena_bytes": "smallest arena (16-byte aligned start) at which allocator "
                                   "creation, interpreter construction and AllocateTensors() "
                                   "succeed; one byte less fails",
            "crashed_probes": "arena sizes at which the program crashed instead of failing",
            "above_minimum_ok": "minimum + 1, 2, 3, 5, 8, 13 and 16 bytes also succeed",
            "error": "why TFLM refused the model (null when it ran)",
        },
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--models", action="append", required=True, metavar="DIR[=PREFIX]")
    ap.add_argument("--out")
    ap.add_argument("--check", metavar="TRUTH", help="compare with a truth file instead")
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("JOBS", "2")))
    ap.add_argument("--arena-bytes", type=int, default=ROOMY_ARENA_BYTES)
    ap.add_argument("--note", action="append", default=[],
                    help="a line for the header (e.g. where a models folder came from)")
    ap.add_argument("--header", action="append", default=[], metavar="KEY=VALUE",
                    help="set a header field (VALUE as JSON when it parses, else a string): "
                         "e.g. the tflm_commit of a tree other than the shared subset, or the "
                         "memcore target and kernels the file is truth for")
    args = ap.parse_args(argv)
    info = json.load(open(os.path.join(args.build_dir, "build-info.json")))
    runner = Runner(info["target"], info["program"])
    models = collect(args.models)
    start = time.time()
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        entries = dict(zip([k for k, _ in models],
                           pool.map(lambda m: measure_model(runner, m[1], args.arena_bytes,
                                                             info["tflm_src"] + "/"),
                                    models)))
    seconds = time.time() - start

    if args.check:
        truth = json.load(open(args.check))["models"]
        bad = 0
        for key, got in entries.items():
            want = truth.get(key)
            fields = ("head", "tail", "total", "categories", "minimum_arena_bytes", "error")
            if want is None:
                print(f"{key}: not in {args.check}")
                bad += 1
                continue
            for f in fields:
                if got[f] != want[f]:
                    print(f"{key}: {f} measured {got[f]!r}, truth {want[f]!r}")
                    bad += 1
        print(f"{len(entries)} models re-measured on {info['target']} in {seconds:.0f} s "
              f"({runner.probes} runs): {bad} differences")
        return 1 if bad else 0

    build = "tools/tflm_oracle/build.sh " + info["target"] + " $TFLM_SRC $BUILD_DIR && "
    if info["target"] == "armhf-esp-nn":
        build = "ESP_TFLM_SRC=... ESP_NN_SRC=... tools/tflm_oracle/build.sh armhf-esp-nn '' $BUILD_DIR && "
    if info["target"] == "xtensa-esp-nn":
        build = ("ESP_TFLM_SRC=... ESP_NN_SRC=... COMPILER_RT_SRC=... "
                 "tools/tflm_oracle/build.sh xtensa-esp-nn '' $BUILD_DIR && ")
    if os.path.exists(os.path.join(args.build_dir, "abi.json")):
        build += "python tools/tflm_oracle/abi_probe.py $BUILD_DIR && "
    command = (build +
               "python tools/tflm_oracle/measure.py --build-dir $BUILD_DIR " +
               " ".join("--models " + shlex.quote(m) for m in args.models) +
               "".join(" --header " + shlex.quote(h) for h in args.header) +
               " --out " + (args.out or "-"))
    if info["compression"] is False and not info["target"].endswith("-esp-nn"):
        command = "COMPRESSION=0 " + command
    out = {"header": header(info, os.path.join(args.build_dir, "abi.json"), runner.abi(),
                            command, args.arena_bytes),
           "models": entries}
    out["header"]["notes"] = args.note
    for kv in args.header:
        key, _, value = kv.partition("=")
        try:
            out["header"][key] = json.loads(value)
        except ValueError:
            out["header"][key] = value
    out["header"]["measure_seconds"] = round(seconds)
    out["header"]["runs"] = runner.probes
    text = json.dumps(out, indent=1, sort_keys=False) + "\n"
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    print(f"{len(entries)} models on {info['target']} in {seconds:.0f} s ({runner.probes} runs)",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
