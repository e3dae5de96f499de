"""cffi builder (API mode) for memcore._memcore, run by setup.py at install time.

The declarations come from csrc/include/memcore.h itself, stripped of what cffi's
parser cannot read.  Plain-number macros stay as they are (array sizes need them;
API mode still checks them against the header at compile time); other integer
macros become `...` so the C compiler, not Python, supplies their values.  API mode
compiles the real header against the declarations, so one that drifted from the C
would fail the build instead of misbehaving.
"""
import glob
import os
import re
import shlex

from cffi import FFI

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INCLUDE = os.path.join(ROOT, "csrc", "include")
SOURCES = sorted(glob.glob(os.path.join(ROOT, "csrc", "src", "*.c")))


def cdef_from_header(path):
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    lines = []
    for line in text.splitlines():
        match = re.match(r"\s*#define\s+(MC_\w+)\s+(\S.*)$", line)
        if match and re.fullmatch(r"\d+", match.group(2).strip()):
            # A plain number stays: arrays are sized with it, and API mode still
            # checks at compile time that the C header agrees.
            lines.append("#define %s %s" % (match.group(1), match.group(2).strip()))
        elif match and not match.group(2).startswith('"'):
            lines.append("#define %s ..." % match.group(1))
        elif line.lstrip().startswith("#") or 'extern "C"' in line or line.strip() == "}":
            continue
        else:
            lines.append(line)
    return "\n".join(lines)


ffibuilder = FFI()
ffibuilder.cdef(cdef_from_header(os.path.join(INCLUDE, "memcore.h")))
ffibuilder.set_source(
    "memcore._memcore",
    '#include "memcore.h"',
    sources=[os.path.relpath(s, ROOT) for s in SOURCES],
    include_dirs=[os.path.relpath(INCLUDE, ROOT)],
    # Extra flags for special builds, e.g. the sanitized one of .ci/steps/40-py-asan.sh:
    # MEMCORE_CFLAGS="-O1 -g -fsanitize=address,undefined" MEMCORE_LDFLAGS="-fsanitize=address,undefined"
    extra_compile_args=["-std=c99"] + shlex.split(os.environ.get("MEMCORE_CFLAGS", "-O2")),
    extra_link_args=shlex.split(os.environ.get("MEMCORE_LDFLAGS", "")),
)

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)
