# Real firmware with the memcore module, built from MicroPython's pinned source
# (micropython/build_firmware.sh: $MICROPYTHON_SRC, else ../shared/micropython/*.tar.gz):
# the unix port 64-bit double and 32-bit single, QEMU's Cortex-M3 (MPS2_AN385) and
# RISC-V (VIRT_RV32) boards.  On each, the whole firmware suite and `memcore hil`: the unix
# builds as simulated boards (--micropython), the QEMU boards over their emulated UART,
# on the port `memcore sim --firmware` prints (--port).  `memcore hil` must report zero
# differences under the parity rule on every build.  test_agreement checks all 253 models
# on every build but the Cortex-M3, every 4th there: QEMU's CMSDK UART takes one byte per
# turn of QEMU's main loop (about 6 KB/s, 1.8 MB of models and descriptors: 4 minutes);
# the RISC-V board's 16550 has a FIFO (qemu_bsp turns it on: about 80 KB/s).
set -euo pipefail
python -c 'import memcore' 2>/dev/null || pip install -q '.[test]'
fw=build/firmware
export JOBS=${JOBS:-2}  # make -j2: CI runs on two cores
work=$(mktemp -d)
source .ci/lib/sim.sh

declare -A image build_s suite_s hil_s sizes
for target in unix64 unix32 qemu-m3 qemu-rv32; do
  start=$(now)
  usermod=()
  # unix64 from the installed package's copy of the module: what a firmware builder gets
  [ $target = unix64 ] && usermod=(env MEMCORE_USERMOD="$(python -m memcore.usermod)")
  "${usermod[@]}" micropython/build_firmware.sh $target "$fw" >"$work/build-$target.log" 2>&1 ||
    { tail -n 40 "$work/build-$target.log"; exit 1; }
  build_s[$target]=$(since "$start")
  image[$target]=$(tail -n 1 "$work/build-$target.log")
  sizes[$target]=$(grep -A1 -E '^\s+text\s+data\s+bss' "$work/build-$target.log" | tail -n 1 | awk '{print $1, $2, $3}')
  echo "$target: built in ${build_s[$target]} s: ${image[$target]} (text data bss: ${sizes[$target]})"
done

run_suite() { # target board-options...
  local target=$1
  shift
  local start suite=()
  [ $target = qemu-m3 ] && suite=(--model-stride 4)
  # the image the port's board runs: test_board_docs starts its own `memcore sim --firmware` with it
  [ -n "${suite_firmware:-}" ] && suite+=(--firmware "$suite_firmware")
  start=$(now)
  python -m pytest -q -p no:cacheprovider firmware_tests "$@" "${suite[@]}" >"$work/suite-$target.log" 2>&1 ||
    { tail -n 80 "$work/suite-$target.log"; exit 1; }
  tail -n 1 "$work/suite-$target.log"
  suite_s[$target]=$(since "$start")
  start=$(now)
  memcore hil "$@" --report "$work/hil-$target.json" --transcripts "$work/transcripts"
  hil_s[$target]=$(since "$start")
}

for target in unix64 unix32; do
  echo "== $target: firmware suite and memcore hil (simulated board)"
  run_suite $target --micropython "${image[$target]}"
done

for target in qemu-m3 qemu-rv32; do
  echo "== $target: firmware suite and memcore hil over the emulated UART"
  start_sim "${image[$target]}" "$work/sim-$target.log"
  suite_firmware=${image[$target]} run_suite $target --port "$port"
  stop_sim "$work/sim-$target.log"
done

echo "== firmware: target, build s, text data bss, firmware suite s, memcore hil s, parity"
for target in unix64 unix32 qemu-m3 qemu-rv32; do
  parity=$(python -c 'import json, sys; r = json.load(open(sys.argv[1]))
print(r["status"], r["cases"], "cases", len(r["differences"]), "differences, float_bits", r["board"]["float_bits"])' \
    "$work/hil-$target.json")
  printf '%-10s %6s  %-22s %6s %6s  %s\n' $target "${build_s[$target]}" "${sizes[$target]}" \
    "${suite_s[$target]}" "${hil_s[$target]}" "$parity"
done
