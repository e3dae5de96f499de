"""Writes BUILD_DIR/build-info.json for build.sh: what was built and with which flags.

The flags are stored twice: as the exact argument list (for abi_probe.py, which
compiles probes with the library's own flags) and as one display string with the
machine's paths replaced by $TFLM_SRC / $BUILD_DIR (for the truth files' headers).
"""
import json
import os
import sys


def main(out, src, here, target, cxx, compression, lib_seconds, prog):
    def lines(name):
        with open(f"{out}/{name}") as f:
            return [w for w in f.read().split("\n") if w]

    espnn = os.environ.get("ESP_NN_SRC")
    espnn = os.path.realpath(espnn) if espnn else None

    def show(words):
        return " ".join(w.replace(src, "$TFLM_SRC").replace(out, "$BUILD_DIR")
                        .replace(espnn or "\0", "$ESP_NN_SRC")
                        .replace(here, "tools/tflm_oracle") for w in words)

    cxxflags, ldflags = lines("cxxflags.txt"), lines("ldflags.txt")
    info = {
        "target": target,
        "compiler": cxx,
        "compiler_version": lines("compiler-version.txt")[0],
        "cxxflags": show(cxxflags),
        "ldflags": show(ldflags),
        "cxxflags_list": cxxflags,
        "compression": compression == "1",
        "library_compile_seconds": int(lib_seconds),
        "tflm_src": src,
        "pch": f"{out}/pch/oracle_pch.h",
        "program": prog,
    }
    with open(f"{out}/build-info.json", "w") as f:
        json.dump(info, f, indent=1)


if __name__ == "__main__":
    main(*sys.argv[1:])
