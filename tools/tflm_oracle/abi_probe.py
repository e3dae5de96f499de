"""Sizes and alignments of the structures TFLM's tail is made of, on one target ABI,
read from the compiler without running anything.

    python tools/tflm_oracle/abi_probe.py BUILD_DIR [--out abi.json]

BUILD_DIR is a folder build.sh made (its build-info.json gives the compiler, the exact
flags and the TFLM source; the sources probed are TFLM's LIBRARY_SOURCES.txt, or for an
esp-tflite-micro tree, which has none, the ones build.sh compiled).  For every library source that takes sizeof() of a type (each kernel's OpData, the
allocator objects, ...), a probe translation unit includes that .cc itself, so that
anonymous-namespace types are in scope, and names, for each type T,

    oracle_show<n, sizeof(T), alignof(T)> oracle_probe_n;

of a template that is declared and never defined.  Compiled with -fsyntax-only (no code
is generated, so a probe costs little more than parsing), the compiler reports each such
line as an error that spells the instantiated template, "oracle_show<n, 40, 4>": the
numbers are the compiler's own, for the target ABI, and nothing is run or linked, so it
works the same for every cross compiler.  Private nested types (MicroResourceVariable,
GreedyMemoryPlanner's BufferRequirements) are reached by compiling their probe with
`private` defined as `public` after the standard headers.  A type name that does not
resolve at namespace scope (a template parameter such as `T`) gives no such line and
is listed under "not_probed".
"""
import argparse
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

PRIMITIVES = {
    "int", "float", "double", "bool", "char", "size_t", "int8_t", "uint8_t", "int16_t",
    "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t", "std::int64_t",
}

# Structures the tail is built from, probed in one TU that includes their headers.
CORE_HEADERS = [
    "tensorflow/lite/c/common.h",
    "tensorflow/lite/c/builtin_op_data.h",
    "tensorflow/lite/micro/micro_common.h",
    "tensorflow/lite/micro/micro_allocator.h",
    "tensorflow/lite/micro/micro_allocation_info.h",
    "tensorflow/lite/micro/recording_micro_allocator.h",
    "tensorflow/lite/micro/arena_allocator/single_arena_buffer_allocator.h",
    "tensorflow/lite/micro/arena_allocator/recording_single_arena_buffer_allocator.h",
    "tensorflow/lite/micro/arena_allocator/persistent_arena_buffer_allocator.h",
    "tensorflow/lite/micro/arena_allocator/non_persistent_arena_buffer_allocator.h",
    "tensorflow/lite/micro/memory_planner/greedy_memory_planner.h",
    "tensorflow/lite/micro/memory_planner/linear_memory_planner.h",
    "tensorflow/lite/micro/memory_planner/non_persistent_buffer_planner_shim.h",
    "tensorflow/lite/micro/micro_resource_variable.h",
    "tensorflow/lite/micro/micro_interpreter.h",
    "tensorflow/lite/micro/micro_interpreter_graph.h",
    "tensorflow/lite/micro/micro_interpreter_context.h",
    "tensorflow/lite/micro/compression.h",
]
CORE_TYPES = [
    "void*", "size_t", "int64_t", "double", "long long", "long double", "TfLiteType",
    "TfLiteStatus", "TfLiteAllocationType", "TfLiteQuantizationType", "TfLiteFusedActivation",
    "TfLitePadding", "TfLiteTensor", "TfLiteEvalTensor", "TfLiteNode", "TfLiteIntArray",
    "TfLiteFloatArray", "TfLiteAffineQuantization", "TfLiteQuantization",
    "TfLiteQuantizationParams", "TfLitePaddingValues", "TfLiteRegistration", "TFLMRegistration",
    "TfLiteContext", "NodeAndRegistration", "internal::ScratchBufferRequest",
    "ScratchBufferHandle", "SubgraphAllocations", "AllocationInfo", "GraphAllocationInfo",
    "MicroAllocator", "RecordingMicroAllocator", "SingleArenaBufferAllocator",
    "RecordingSingleArenaBufferAllocator", "PersistentArenaBufferAllocator",
    "NonPersistentArenaBufferAllocator", "GreedyMemoryPlanner", "LinearMemoryPlanner",
    "NonPersistentMemoryPlannerShim", "MicroResourceVariables", "MicroInterpreter",
    "MicroInterpreterGraph", "MicroInterpreterContext", "CompressionTensorData",
    "LookupTableData", "CompressedTensorList", "RecordedAllocation",
]
# Nested types that sizeof() names unqualified inside their class: probed qualified.
NESTED = {
    "tensorflow/lite/micro/micro_resource_variable.cc":
        ["MicroResourceVariables::MicroResourceVariable"],
    "tensorflow/lite/micro/memory_planner/greedy_memory_planner.cc":
        ["GreedyMemoryPlanner::BufferRequirements", "GreedyMemoryPlanner::ListEntry"],
}
STD_HEADERS = ["algorithm", "array", "cfloat", "climits", "cmath", "complex", "cstdarg",
               "cstddef", "cstdint", "cstdio", "cstdlib", "cstring", "functional",
               "initializer_list", "iterator", "limits", "memory", "new", "numeric",
               "type_traits", "utility"]


def probe_lines(types):
    out = ["template <int index, unsigned long size, unsigned long align> struct oracle_show;"]
    for n, t in enumerate(types):
        out.append(f"oracle_show<{n}, sizeof({t}), alignof({t})> oracle_probe_{n};")
    return out


def namespaces_of(text):
    """Namespaces a .cc opens at file level (tflite, tflite::tflm_signal, ...)."""
    found = ["tflite"]
    for inner in re.findall(r"^namespace tflite \{\s*(?://[^\n]*\n\s*)*namespace (\w+) \{", text,
                            re.M):
        found.append(f"tflite::{inner}")
    for inner in re.findall(r"^namespace (\w+) \{", text, re.M):
        if inner not in ("tflite",) and f"tflite::{inner}" not in found:
            found.append(f"tflite::{inner}")
    return found


def builtin_params(src):
    """Every TfLite*Params struct of the builtin-data headers."""
    names = set()
    for rel in ("tensorflow/compiler/mlir/lite/core/c/builtin_op_data.h",
                "tensorflow/lite/core/c/builtin_op_data.h"):
        path = os.path.join(src, rel)
        if os.path.exists(path):
            names.update(re.findall(r"\}\s*(TfLite\w+Params)\s*;", open(path).read()))
    return sorted(names)


def write_tu(path, prelude, body_ns, lines, private_hack):
    with open(path, "w") as f:
        if private_hack:
            for h in STD_HEADERS:
                f.write(f"#include <{h}>\n")
            f.write("#define private public\n#define protected public\n")
        f.write(prelude)
        parts = body_ns.split("::")
        f.write("".join(f"namespace {p} {{\n" for p in parts))
        f.write("\n".join(lines) + "\n")
        f.write("}" * len(parts) + "\n")


def probe_file(info, workdir, key, prelude, namespace, types, private_hack):
    """Probes `types` in one TU: {type: {size, align}}, {type: why not}."""
    types = list(dict.fromkeys(types))
    tu = os.path.join(workdir, key + ".cc")
    write_tu(tu, prelude, namespace, probe_lines(types), private_hack)
    cmd = [info["compiler"], *info["cxxflags_list"], "-w", "-fsyntax-only", "-fmax-errors=0"]
    if not private_hack:
        cmd += ["-include", info["pch"]]
    done = subprocess.run(cmd + [tu], capture_output=True, text=True)
    found = {}
    for m in re.finditer(r"oracle_show<(\d+), (\d+), (\d+)>", done.stderr):
        n, size, align = (int(g) for g in m.groups())
        if n < len(types):
            found[types[n]] = {"size": size, "align": align}
    rejected = {}
    for n, t in enumerate(types):
        if t not in found:
            why = re.search(re.escape(tu) + r":(\d+):\d+: error: (.*)", done.stderr)
            rejected[t] = "does not name a type at namespace scope" if why else "no result"
    return found, rejected


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build_dir")
    ap.add_argument("--out", help="JSON file (default BUILD_DIR/abi.json)")
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("JOBS", "2")))
    args = ap.parse_args(argv)
    info = json.load(open(os.path.join(args.build_dir, "build-info.json")))
    src = info["tflm_src"]
    workdir = os.path.join(args.build_dir, "abi")
    os.makedirs(workdir, exist_ok=True)

    jobs = []
    core_prelude = "".join(f'#include "{h}"\n' for h in CORE_HEADERS)
    jobs.append(("core", core_prelude, "tflite", CORE_TYPES + builtin_params(src), False))
    listing = os.path.join(src, "LIBRARY_SOURCES.txt")
    if os.path.exists(listing):
        sources = [s for s in open(listing).read().split() if s]
    else:
        # esp-tflite-micro has no listing: the TFLM sources build.sh compiled (objects.txt)
        compiled = (line.split()[0] for line in open(os.path.join(args.build_dir, "objects.txt")))
        sources = [os.path.relpath(c, src) for c in compiled
                   if c.endswith(".cc") and c.startswith(src + os.sep)]
    sources += [s for s in info.get("extra_sources", [])]
    for rel in sources:
        text = open(os.path.join(src, rel)).read()
        found = [t for t in re.findall(r"sizeof\((?:struct )?([A-Za-z_][A-Za-z0-9_:]*)\)", text)
                 if t not in PRIMITIVES]
        found += NESTED.get(rel, [])
        if not found:
            continue
        key = re.sub(r"[^A-Za-z0-9]", "_", rel[:-3])
        hack = rel.endswith(("micro_resource_variable.cc",
                                                   "greedy_memory_planner.cc"))
        namespace = namespaces_of(text)[-1] if "tflm_signal" in text else "tflite"
        jobs.append((key, f'#include "{rel}"\n', namespace, found, hack))

    result = {"target": info["target"], "compiler": info["compiler"],
              "compiler_version": info["compiler_version"], "cxxflags": info["cxxflags"],
              "compression": info["compression"], "core": {}, "by_source": {},
              "not_probed": {}}

    def run(job):
        key, prelude, namespace, types, hack = job
        return key, probe_file(info, workdir, key, prelude, namespace, types, hack)

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for key, (sizes, rejected) in pool.map(run, jobs):
            if key == "core":
                result["core"] = sizes
            elif sizes:
                rel = next(j for j in sources if re.sub(r"[^A-Za-z0-9]", "_", j[:-3]) == key)
                result["by_source"][rel] = sizes
            for name, why in rejected.items():
                result["not_probed"].setdefault(key, {})[name] = why
    out = args.out or os.path.join(args.build_dir, "abi.json")
    with open(out, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
    print(out)


if __name__ == "__main__":
    sys.exit(main())
