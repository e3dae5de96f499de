#!/usr/bin/env bash
# The ESP32's truth, measured on Xtensa: builds the xtensa-esp-nn oracle (esp-tflite-micro's
# TFLM with ESP-NN's plain-ESP32 C kernels, xtensa-lx106-elf-g++ with ESP-IDF's flags, run
# under qemu-system-xtensa -M sim -cpu lx106; see build.sh) and either writes
# tests/corpus/truth/esp32.json or re-measures a sample against it.
#
#   ESP_TFLM_SRC=... ESP_NN_SRC=... COMPILER_RT_SRC=... tools/tflm_oracle/esp32.sh [--check] [BUILD_DIR]
#
# ESP_TFLM_SRC  an espressif/esp-tflite-micro checkout (measured: 99f49e14)
# ESP_NN_SRC    an espressif/esp-nn checkout (measured: d45b843c)
# COMPILER_RT_SRC  LLVM's compiler-rt (llvm-mirror/compiler-rt 69445f09 or LLVM's
#               compiler-rt/): its lib/builtins stand in for what Debian's LX106 libgcc lacks
# --check       re-measure the shared models and the first corpus model of each operator
#               family (as CI step 70 does on armhf) and fail on any difference; without
#               it, measure every shared and corpus model and write the truth file, with
#               each kernel's scratch requests from the alloclog build (as esp32-esp-nn.json)
# None of these sources can be reached from CI (only PyPI and Debian), so CI does not run
# this; tests/test_conformance.py checks memcore against the committed file.
# Times on 2 shared cores: the library ~8-10 minutes, the whole corpus ~40 minutes, --check
# ~4 minutes.  Needs: gcc-xtensa-lx106, picolibc-xtensa-lx106-elf, libstdc++-arm-none-eabi-dev
# (headers only), qemu-system-misc.
# The whole script is one block, read before it runs (as build.sh), so editing it while a
# measurement runs cannot derail that run.
{
set -euo pipefail
check=0
if [ "${1:-}" = --check ]; then check=1; shift; fi
build=${1:-build/tflm-oracle/xtensa-esp-nn}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
for v in ESP_TFLM_SRC ESP_NN_SRC COMPILER_RT_SRC; do
  [ -n "${!v:-}" ] || { echo "esp32.sh: set $v (see the comment at the top)" >&2; exit 2; }
done
# Each tree's commit: from its git history, else from ESP_TFLM_COMMIT, ESP_NN_COMMIT,
# COMPILER_RT_COMMIT (an exported tree has no history).
commit() { git -C "$1" log -1 --format='%H' 2>/dev/null || echo "${!2:?esp32.sh: $1 is not a git checkout: set $2}"; }
JOBS=${JOBS:-2} bash "$here/build.sh" xtensa-esp-nn "" "$build" >/dev/null
cd "$repo"
truth=tests/corpus/truth/esp32.json
if [ "$check" = 1 ]; then
  sample=$(mktemp -d)
  bash "$here/family_sample.sh" "$sample"
  python3 "$here/measure.py" --build-dir "$build" --jobs "${JOBS:-2}" \
    --models tests/models=models/ --models "$sample" --check "$truth"
  exit
fi
# Struct sizes and alignments at compile time, for the header (abi_compile_time)
python3 "$here/abi_probe.py" "$build" >/dev/null
python3 "$here/measure.py" --build-dir "$build" --jobs "${JOBS:-2}" \
  --models tests/models=models/ --models tests/corpus/models \
  --header target=esp32 --header kernels=optimised --header oracle_target=xtensa-esp-nn \
  --header "tflm_commit=$(commit "$ESP_TFLM_SRC" ESP_TFLM_COMMIT)" \
  --header "tflm_source=espressif/esp-tflite-micro $(commit "$ESP_TFLM_SRC" ESP_TFLM_COMMIT), its own copy of TFLM" \
  --header "esp_nn_commit=$(commit "$ESP_NN_SRC" ESP_NN_COMMIT)" \
  --header "esp_nn_source=espressif/esp-nn $(commit "$ESP_NN_SRC" ESP_NN_COMMIT)" \
  --header "compiler_rt_source=compiler-rt $(commit "$COMPILER_RT_SRC" COMPILER_RT_COMMIT), lib/builtins" \
  --header "abi=Xtensa (xtensa-lx106-elf-g++ 12.2: 4-byte pointers and enums, int64_t and double aligned to 8, as on the ESP32's LX6)" \
  --out "$truth"
# Each kernel's scratch requests, from the alloclog-patched copy of the same tree: only four
# library sources change, so the patched build reuses the others' objects (copied with
# their time stamps); its head, tail, total and categories must equal the file's.
patched=$build-alloclog
rm -rf "$patched" && mkdir -p "$patched"
python3 "$here/alloclog_patch.py" "$ESP_TFLM_SRC" "$patched/src"
cp -a "$build/obj" "$build/pch" "$patched/"
ESP_TFLM_SRC=$patched/src PROG_DEFINES=-DTFLM_ORACLE_ALLOCLOG JOBS=${JOBS:-2} \
  bash "$here/build.sh" xtensa-esp-nn "" "$patched" >/dev/null
python3 "$here/measure_alloclog.py" --build-dir "$patched" --truth "$truth" \
  --models tests/models=models/ --models tests/corpus/models --out-dir "$patched/logs"
python3 "$here/add_scratch_requests.py" "$truth" "$patched/logs"
# add_scratch_requests.py has appended the alloclog steps to the command; say which script
# ran it all (the alloclog build dir is $BUILD_DIR-alloclog)
python3 - "$truth" <<'PY'
import json, sys
path = sys.argv[1]
data = json.load(open(path))
h = data["header"]
h["command"] = ("ESP_TFLM_SRC=... ESP_NN_SRC=... COMPILER_RT_SRC=... tools/tflm_oracle/esp32.sh, "
                "which runs: " + h["command"].replace("$ALLOCLOG_BUILD_DIR", "$BUILD_DIR-alloclog"))
open(path, "w").write(json.dumps(data, indent=1) + "\n")
PY
exit 0
}
