# The Python test suite (tests/ only) once against a build of the cffi extension with
# AddressSanitizer + UndefinedBehaviorSanitizer, in a virtual environment of its own.
# firmware_tests/ is left out: it drives MicroPython boards, not the extension.
set -euo pipefail
work=$(mktemp -d)
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g -O1"

# Build from a copy of the tracked files: the repository's build/ folder holds the plain
# extension from earlier steps, and setuptools would reuse it as "up to date".
git ls-files -z | xargs -0 cp --parents -t "$work"
python3 -m venv "$work/venv"
(cd "$work" && MEMCORE_CFLAGS="$san" MEMCORE_LDFLAGS="-fsanitize=address,undefined" \
  "$work/venv/bin/python" -m pip install -q --no-cache-dir '.[test]')
so=$(find "$work/venv" -name '_memcore*.so')
# grep reads ldd's whole listing: `grep -q` would stop at the first match, and under
# pipefail the SIGPIPE that ldd may then get fails the step (seen once in CI).
ldd "$so" | grep libasan >/dev/null || { echo "$so is not built with AddressSanitizer"; exit 1; }

# CPython is not built with ASan, so its runtime must be preloaded; libstdc++ too,
# or ASan's __cxa_throw interceptor finds no real one when a C++ extension (matplotlib,
# onnx) throws.  CPython keeps objects alive at exit by design: no leak checking.
# LD_PRELOAD is dropped once pytest's process has started, so that children (cmake,
# chromium, the tflite-micro oracle, MicroPython) run as they do unsanitized; a child
# that loads the extension (a documented `python -m memcore...` command) gets it back from
# MEMCORE_SANITIZER_PRELOAD.  --capture=sys leaves file descriptor 2 alone, so a
# sanitizer report reaches the log even when it ends the process.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libstdc++.so)" \
  "$work/venv/bin/python" -c '
import os, sys, pytest
# (kept for the tests whose children load this same extension: test_docs, test_offline_plans)
os.environ["MEMCORE_SANITIZER_PRELOAD"] = os.environ.pop("LD_PRELOAD")
sys.exit(pytest.main(["tests", "-q", "-x", "-p", "no:cacheprovider", "--capture=sys"]))
'
