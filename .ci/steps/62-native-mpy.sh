# memcore.mpy, the native module, on stock firmware (no user C module): built by
# `memcore firmware-module` from the installed package for x64, armv7m, armv6m and
# rv32imc; the unix port (64-bit), QEMU's Cortex-M3 (MPS2_AN385) and RISC-V (VIRT_RV32)
# boards built from MicroPython's pinned source with MEMCORE_MODULE=0; on each, the
# firmware suite and `memcore hil` with the board's .mpy deployed (--module): zero parity
# differences, and the boot report must say "native-mpy".  test_agreement checks every 4th
# model on the QEMU boards (the Cortex-M3's UART is slow, as in step 60; step 60 checks every
# model on RISC-V with the same C code built in).  firmware_tests/test_board_docs.py
# is left out: the docs' recipes build firmware with the C module, and their deploys
# copy the device scripts only (step 60 runs them on each firmware).  Then the largest
# block left after the boot check on the Cortex-M3 at 110 KiB, per route
# (bench/largest_block.py): the C module's and the fallback's checks must run; the .mpy's
# routes are measured and printed beside the C module's block less the .mpy's size.
set -euo pipefail
python -c 'import memcore, elftools, ar' 2>/dev/null || pip install -q '.[test]'
fw=build/firmware-stock
mpy=build/mpy
export JOBS=${JOBS:-2} # make -j2: CI runs on two cores
# memcore firmware-module from the installed package finds no ../shared beside it: the
# tree build_firmware.sh unpacks
MICROPYTHON_SRC=$(micropython/build_firmware.sh source "$fw")
export MICROPYTHON_SRC
work=$(mktemp -d)
source .ci/lib/sim.sh

declare -A build_s bytes image suite_s hil_s
for arch in x64 armv7m armv6m rv32imc; do
  start=$(now)
  memcore firmware-module --arch $arch -o "$mpy/$arch" --jobs "$JOBS" --json >"$work/mpy-$arch.json"
  build_s[$arch]=$(since "$start")
  bytes[$arch]=$(python -c 'import json, sys; print(json.load(open(sys.argv[1]))["bytes"])' "$work/mpy-$arch.json")
  echo "memcore.mpy for $arch: ${bytes[$arch]} B in ${build_s[$arch]} s"
done

declare -A arch_of=([unix64]=x64 [qemu-m3]=armv7m [qemu-rv32]=rv32imc)
build_stock() { # target outdir [heap bytes]
  local start log="$work/build-$1-${3:-default}.log"
  start=$(now)
  QEMU_HEAP_BYTES=${3:-112640} MEMCORE_MODULE=0 micropython/build_firmware.sh $1 "$2" >"$log" 2>&1 ||
    { tail -n 40 "$log" >&2; exit 1; }
  echo "$1 (stock, heap ${3:-110 KiB}): built in $(since "$start") s: $(tail -n 1 "$log")" >&2
  tail -n 1 "$log"
}
# The boards as released with an ESP32's 110 KiB heap: memcore hil, and the largest block.
# The firmware suite's boards get the heap the C module's board has free: on these ports
# the .mpy's code lives in the GC heap, so 110 KiB plus its size (rounded up to a KiB);
# the suite's models and boot-check cases are sized to the C module's board.
for target in unix64 qemu-m3 qemu-rv32; do
  image[$target]=$(build_stock $target "$fw")
done
declare -A suite_image
for target in qemu-m3 qemu-rv32; do
  mpy_bytes=${bytes[${arch_of[$target]}]}
  heap=$((112640 + (mpy_bytes + 1023) / 1024 * 1024))
  suite_image[$target]=$(build_stock $target "$fw-suite" $heap)
done

run_suite() { # target module board-options...
  local target=$1 module=$2
  shift 2
  local start suite=(--ignore firmware_tests/test_board_docs.py)
  [ $target != unix64 ] && suite+=(--model-stride 4)
  [ -n "${suite_firmware:-}" ] && suite+=(--firmware "$suite_firmware")
  start=$(now)
  python -m pytest -q -p no:cacheprovider firmware_tests "$@" --module "$module" "${suite[@]}" \
    >"$work/suite-$target.log" 2>&1 || { tail -n 80 "$work/suite-$target.log"; exit 1; }
  tail -n 1 "$work/suite-$target.log"
  suite_s[$target]=$(since "$start")
  start=$(now)
  memcore hil "$@" --module "$module" --report "$work/hil-$target.json" --transcripts "$work/transcripts"
  hil_s[$target]=$(since "$start")
  python -c 'import json, sys; b = json.load(open(sys.argv[1]))["board"]
assert b["implementation"] == "native-mpy", b' "$work/hil-$target.json"
}

echo "== unix64 (stock): firmware suite and memcore hil with memcore.mpy (x64)"
# 3 KiB more heap than step 60's 110K: the .mpy's names are interned in the heap when it
# loads (2,880 B on this 64-bit port; the C module's are in ROM), and the suite's scaling
# models are sized to the block the C module's board leaves
run_suite unix64 "$mpy/x64/memcore.mpy" --micropython "${image[unix64]}" --heapsize 113K

for target in qemu-m3 qemu-rv32; do
  echo "== $target (stock, the C module board's free heap): firmware suite and memcore hil with memcore.mpy (${arch_of[$target]}) over the emulated UART"
  start_sim "${suite_image[$target]}" "$work/sim-$target-suite.log"
  suite_firmware=${suite_image[$target]} run_suite $target "$mpy/${arch_of[$target]}/memcore.mpy" --port "$port"
  stop_sim "$work/sim-$target-suite.log"

  echo "== $target (stock, 110 KiB heap): memcore hil with memcore.mpy"
  start_sim "${image[$target]}" "$work/sim-$target.log"
  memcore hil --port "$port" --module "$mpy/${arch_of[$target]}/memcore.mpy" --report "$work/hil-$target-110k.json" \
    >/dev/null
  python -c 'import json, sys; r = json.load(open(sys.argv[1]))
assert r["status"] == "ok" and not r["differences"] and r["board"]["implementation"] == "native-mpy", r["status"]' \
    "$work/hil-$target-110k.json"
  echo "${arch_of[$target]} memcore.mpy at 110 KiB: memcore hil, 0 differences"
  if [ $target = qemu-m3 ]; then
    # an armv6m module loads on an armv7m board too (MicroPython accepts an older Arm arch)
    memcore hil --port "$port" --module "$mpy/armv6m/memcore.mpy" --report "$work/hil-armv6m.json" >/dev/null
    python -c 'import json, sys; r = json.load(open(sys.argv[1]))
assert r["status"] == "ok" and not r["differences"] and r["board"]["implementation"] == "native-mpy", r["status"]' \
      "$work/hil-armv6m.json"
    echo "armv6m memcore.mpy on the Cortex-M3 at 110 KiB: memcore hil, 0 differences"
  fi
  stop_sim "$work/sim-$target.log"
done

echo "== the largest block after the boot check on the Cortex-M3 (110 KiB heap), per route"
c_image=build/firmware/qemu-m3/firmware.elf # step 60's; built here when this step runs alone
if [ ! -f "$c_image" ]; then
  micropython/build_firmware.sh qemu-m3 build/firmware >"$work/build-c-m3.log" 2>&1 ||
    { tail -n 40 "$work/build-c-m3.log"; exit 1; }
fi
start=$(now)
python bench/largest_block.py --firmware "$c_image" --routes c+tflite,c+descriptor --json >"$work/block-c.json"
python bench/largest_block.py --firmware "${image[qemu-m3]}" --module "$mpy/armv7m/memcore.mpy" \
  --routes mpy+tflite,mpy+descriptor,fallback --json >"$work/block-mpy.json"
python - "$work/block-c.json" "$work/block-mpy.json" "${bytes[armv7m]}" <<'EOF'
import json, sys
c, mpy, size = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
routes = dict(c, **mpy)
for route, r in sorted(routes.items()):
    print("%-15s %-10s available %s B, left after the check %s B, boot check: %s"
          % (route, r["implementation"], r["available_bytes"], r["after_check_bytes"], r.get("error") or r["verdict"]))
# The C module's and the fallback's boot checks must run at 110 KiB.  memcore.mpy's is
# measured, not held to a floor: on this port its code lives in the GC heap, and since
# the core grew (every subgraph, resource variables, the exact planner) the armv7m module
# leaves too little of a 110 KiB heap for the boot scripts (micropython/README.md).
for route in ("c+tflite", "c+descriptor", "fallback"):
    assert "error" not in routes[route], (route, routes[route])
# The esp32 profile promises a model the smallest of these blocks (devices.toml), so that
# the host's "fits" holds on every route: a route that leaves less breaks that promise.
from memcore.profiles import profile
promised = profile("esp32").available_bytes
least = min(routes[route]["available_bytes"] for route in ("c+tflite", "c+descriptor", "fallback"))
print("esp32 profile: available %d B; the least of the routes that must run %d B" % (promised, least))
assert promised <= least, "the esp32 profile promises %d B, a route measures %d B" % (promised, least)
for kind in ("tflite", "descriptor"):
    floor = c["c+" + kind]["after_check_bytes"] - size
    got = mpy["mpy+" + kind]
    print("mpy+%s: %s (the C module's block less the .mpy's %d B: %d B)"
          % (kind, got.get("error") or "%d B left" % got["after_check_bytes"], size, floor))
EOF
echo "largest-block runs: $(since "$start") s"

echo "== native .mpy: target, arch, .mpy bytes, build s, firmware suite s, memcore hil s, parity"
for target in unix64 qemu-m3 qemu-rv32; do
  arch=${arch_of[$target]}
  parity=$(python -c 'import json, sys; r = json.load(open(sys.argv[1]))
print(r["status"], r["cases"], "cases", len(r["differences"]), "differences,", r["board"]["implementation"])' \
    "$work/hil-$target.json")
  printf '%-10s %-8s %6s %6s %7s %6s  %s\n' $target $arch "${bytes[$arch]}" "${build_s[$arch]}" \
    "${suite_s[$target]}" "${hil_s[$target]}" "$parity"
done
