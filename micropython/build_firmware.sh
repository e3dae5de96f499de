#!/usr/bin/env bash
# Build MicroPython firmware with the memcore module, from MicroPython's own source.
#
#   micropython/build_firmware.sh TARGET [OUTDIR]
#
# TARGET
#   unix64    the unix port, 64-bit, double-precision floats (the host's width)
#   unix32    the unix port, 32-bit, single-precision floats (an ESP32's width), SSE
#             maths so that the x87 unit's extra precision does not show as a difference
#   qemu-m3   ports/qemu BOARD=MPS2_AN385: Cortex-M3, single-precision floats, the port's
#             own flags (-fsingle-precision-constant -Wdouble-promotion -Werror)
#   qemu-rv32 ports/qemu BOARD=VIRT_RV32: RISC-V rv32imac (the ESP32-C3/C6 core family)
#   all       the four
#   source    build nothing: print the MicroPython source tree used (unpacking it if needed)
# The QEMU boards get a 110 KiB GC heap (an ESP32's free RAM under MicroPython) and the
# board support of micropython/qemu_bsp (a filesystem, Ctrl-C); the unix port takes its
# heap at run time (-X heapsize=110K, what memcore's simulated board passes).
#
# OUTDIR (default: build/firmware in this repository) gets one MicroPython build folder
# per target, OUTDIR/TARGET, holding the image: OUTDIR/TARGET/micropython (unix) or
# OUTDIR/TARGET/firmware.elf (QEMU).  The image's path is the last line printed.
#
# MicroPython's source: $MICROPYTHON_SRC, either a source tree (a clone of the v1.28.0
# tag, no submodules needed) or a release tarball (*.tar.gz, *.tar.xz), which is unpacked
# once into OUTDIR/src; without it, the tarball in ../shared/micropython/ beside this
# repository (or beside a folder above it).  Nothing of MicroPython's is copied into
# this repository.
#
# QEMU_HEAP_BYTES: the QEMU boards' GC heap (default 112640); MEMCORE_MODULE=0: stock
# firmware without the memcore module (for the fallback and the native .mpy module): no
# user C module at all on unix, only the board support (qemu_bsp) on the QEMU boards.
#
# MEMCORE_USERMOD: the memcore module's folder for the unix targets, e.g. an installed
# package's (python -m memcore.usermod); default: this checkout's micropython/.  The QEMU
# targets always use this checkout's, which also holds the board support.
#
# Needs: gcc and make (unix64); gcc-12-multilib or gcc-multilib (unix32);
# gcc-arm-none-eabi + picolibc-arm-none-eabi (qemu-m3); gcc-riscv64-unknown-elf +
# picolibc-riscv64-unknown-elf (qemu-rv32).  JOBS sets make's parallelism (default: CPUs).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 2; }
[ $# -ge 1 ] && [ $# -le 2 ] || usage
target=$1
case $target in unix64|unix32|qemu-m3|qemu-rv32|all|source) ;; *) echo "unknown target: $target" >&2; usage ;; esac
out=$(mkdir -p "${2:-$repo/build/firmware}" && cd "${2:-$repo/build/firmware}" && pwd)
jobs=${JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}

if [ "$target" = all ]; then
  for t in unix64 unix32 qemu-m3 qemu-rv32; do "${BASH_SOURCE[0]}" "$t" "$out"; done
  exit 0
fi

# ---- the source --------------------------------------------------------------------
source_tree() {
  local src=${MICROPYTHON_SRC:-}
  if [ -z "$src" ]; then
    local dir=$repo
    while [ -z "$src" ] && [ "$dir" != / ]; do
      dir=$(dirname "$dir")
      src=$(ls "$dir"/shared/micropython/*.tar.* 2>/dev/null | head -n 1 || true)
    done
    [ -n "$src" ] || { echo "no MicroPython source: set MICROPYTHON_SRC to a v1.28.0 tree or tarball" >&2; exit 2; }
  fi
  if [ -d "$src" ]; then
    [ -f "$src/py/mkenv.mk" ] || { echo "$src is not a MicroPython source tree (no py/mkenv.mk)" >&2; exit 2; }
    (cd "$src" && pwd)
    return
  fi
  [ -f "$src" ] || { echo "MICROPYTHON_SRC=$src: no such file or folder" >&2; exit 2; }
  local unpacked="$out/src/$(basename "$src" | sed 's/\.tar\..*$//; s/\.tgz$//')"
  if [ ! -f "$unpacked/.unpacked" ]; then
    rm -rf "$unpacked" && mkdir -p "$unpacked"
    tar -xf "$src" -C "$unpacked" --strip-components=1
    touch "$unpacked/.unpacked"
  fi
  [ -f "$unpacked/py/mkenv.mk" ] || { echo "$src does not hold a MicroPython source tree" >&2; exit 2; }
  echo "$unpacked"
}
mpy=$(source_tree)
if [ "$target" = source ]; then
  echo "$mpy"
  exit 0
fi
# MicroPython names its version after `git describe` in its tree; an unpacked tarball has
# no .git, and git would find the repository around OUTDIR instead (this one, by default):
# stop it at the tree's top, so the firmware says v1.28.0.
export GIT_CEILING_DIRECTORIES
GIT_CEILING_DIRECTORIES=$(dirname "$mpy")

# ---- the build ---------------------------------------------------------------------
build="$out/$target"
# The snapshot has no git submodules: leave out what needs them (btree, TLS, ffi) and
# the frozen micropython-lib manifest.
common=(-j"$jobs" BUILD="$build" FROZEN_MANIFEST= USER_C_MODULES="$here")
unix=(-C "$mpy/ports/unix" VARIANT=standard MICROPY_PY_BTREE=0 MICROPY_PY_SSL=0 MICROPY_PY_FFI=0)
if [ -n "${MEMCORE_USERMOD:-}" ]; then
  unix+=(USER_C_MODULES="$(cd "$MEMCORE_USERMOD" && pwd)")  # after common's: the last one counts
fi
qemu_heap=${QEMU_HEAP_BYTES:-112640} # 110 KiB: an ESP32's MicroPython heap once grown (QEMU_HEAP_BYTES=57344: its 56 KiB at boot)
# MEMCORE_MODULE=0: stock firmware (the QEMU boards' support only, no memcore module), the
# board the pure-Python fallback runs on (bench/largest_block.py measures its heap)
if [ "${MEMCORE_MODULE:-1}" = 0 ]; then
  mkdir -p "$out/stock-modules"
  ln -sfn "$here/qemu_bsp" "$out/stock-modules/qemu_bsp"
  common+=(USER_C_MODULES="$out/stock-modules")
  unix+=(USER_C_MODULES=) # after common's: the unix port as released
fi

case $target in
unix64)
  make "${common[@]}" "${unix[@]}"
  image="$build/micropython" ;;
unix32)
  cflags="-m32 -msse2 -mfpmath=sse -DMICROPY_FLOAT_IMPL=MICROPY_FLOAT_IMPL_FLOAT"
  # Debian's gcc-multilib links /usr/include/asm to the native asm headers (they serve
  # -m32 too); gcc-12-multilib, the one installable beside the armhf cross compiler,
  # does not: point at them ourselves when <asm/errno.h> is missing for -m32.
  if ! echo '#include <asm/errno.h>' | gcc -m32 -E - >/dev/null 2>&1; then
    cflags="$cflags -idirafter /usr/include/$(gcc -print-multiarch)"
  fi
  make "${common[@]}" "${unix[@]}" CFLAGS_EXTRA="$cflags" LDFLAGS_EXTRA=-m32
  image="$build/micropython" ;;
qemu-m3)
  make -C "$mpy/ports/qemu" "${common[@]}" BOARD=MPS2_AN385 MICROPY_HEAP_SIZE=$qemu_heap
  image="$build/firmware.elf" ;;
qemu-rv32)
  extra=()
  # The port compiles for rv32imac_zicsr; a toolchain without a multilib of that name
  # (Debian 12's gcc 12) would link the rv64 C library and libgcc: name the rv32imac one
  # for the link (the same code; only the ISA string's spelling differs).
  if [ "$(riscv64-unknown-elf-gcc -march=rv32imac_zicsr -mabi=ilp32 -print-multi-directory)" = . ]; then
    extra=(LIBS=-march=rv32imac)
  fi
  make -C "$mpy/ports/qemu" "${common[@]}" BOARD=VIRT_RV32 MICROPY_HEAP_SIZE=$qemu_heap "${extra[@]}"
  image="$build/firmware.elf" ;;
esac

case $target in
unix*)
  size "$image"
  if [ "${MEMCORE_MODULE:-1}" = 0 ]; then
    # stock: no memcore built in (the build folder has no memcore.mpy or .py to find)
    if (cd "$build" && "$image" -c "import memcore" 2>/dev/null); then echo "memcore is built in" >&2; exit 1; fi
  else
    "$image" -c "import memcore; assert memcore.version()[0]"
  fi ;;
qemu-m3) arm-none-eabi-size "$image" ;;
qemu-rv32) riscv64-unknown-elf-size "$image" ;;
esac
echo "$image"
