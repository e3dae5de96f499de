#!/usr/bin/env bash
# Builds TensorFlow Lite Micro from an unpacked source tree and links our measuring
# program (oracle_main.cc) against it, for one named target ABI.
#
#   tools/tflm_oracle/build.sh TARGET [TFLM_SRC] [BUILD_DIR]
#
# TARGET    armhf | armhf-esp-nn | xtensa-esp-nn | cortex-m | cortex-m-cmsis-nn | x86_64-src |
#           i386 | riscv32
# TFLM_SRC  the unpacked tflite-micro/ folder (default $TFLM_SRC, else unpacked from
#           /work/shared/tflm/*.tar.gz into BUILD_DIR/src)
# BUILD_DIR where objects and the program go (default build/tflm-oracle/TARGET)
#
# Environment: JOBS (parallel compiles, default 2), COMPRESSION (1 = -DUSE_TFLM_COMPRESSION,
# the default, as the PyPI wheel is built; 0 = off), OPT (default -O1: sizes do not depend on it, and it compiles fast), CMSIS_NN_SRC
# (CMSIS-NN checkout, cortex-m-cmsis-nn only), ESP_TFLM_SRC and ESP_NN_SRC (armhf-esp-nn
# and xtensa-esp-nn only: an espressif/esp-tflite-micro and an espressif/esp-nn checkout; the first is the
# TFLM tree, so TFLM_SRC is not used), EXTRA_DEFINES (appended to the library's
# flags), PROG_DEFINES (the measuring program's only: -DTFLM_ORACLE_ALLOCLOG for a build
# of the alloclog-patched source), TFLM_TARBALL (default: the subset tarball in
# ../shared/tflm beside the repository, else /work/shared/tflm).
#
# Prints the path of the program and writes BUILD_DIR/build-info.json (compiler,
# version, flags) that the measuring driver copies into each truth file's header.
# Objects are reused when newer than their source, so a rebuild after a change to one
# TFLM .cc recompiles only that file (headers are not tracked: start clean after a
# header change).
# The whole script is one block, read before it runs, so editing this file while a
# build is running cannot derail that build.
{
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
target=${1:?usage: build.sh TARGET [TFLM_SRC] [BUILD_DIR]}
src=${2:-${TFLM_SRC:-}}
out=${3:-build/tflm-oracle/$target}
jobs=${JOBS:-2}
compression=${COMPRESSION:-1}
opt=${OPT:--O1}
mkdir -p "$out"
out=$(cd "$out" && pwd)

esp=0
case $target in armhf-esp-nn|xtensa-esp-nn) esp=1 ;; esac
if [ "$esp" = 1 ]; then
  src=${ESP_TFLM_SRC:?$target needs ESP_TFLM_SRC (an espressif/esp-tflite-micro checkout)}
  # esp-tflite-micro builds TFLM without USE_TFLM_COMPRESSION (its CMakeLists.txt).
  compression=0
fi
if [ -z "$src" ]; then
  repo=$(cd "$here/../.." && pwd)
  tarball=${TFLM_TARBALL:-$(ls "$repo"/../shared/tflm/tflite-micro-*-subset.tar.gz \
    /work/shared/tflm/tflite-micro-*-subset.tar.gz 2>/dev/null | head -1 || true)}
  [ -n "$tarball" ] || { echo "build.sh: no TFLM_SRC given and no TFLM tarball in ../shared/tflm" >&2; exit 2; }
  if [ ! -f "$out/src/tflite-micro/LIBRARY_SOURCES.txt" ]; then
    mkdir -p "$out/src" && tar xzf "$tarball" -C "$out/src"
  fi
  src=$out/src/tflite-micro
fi
src=$(cd "$src" && pwd)
dl=$src/tensorflow/lite/micro/tools/make/downloads
if [ "$esp" = 1 ]; then
  [ -f "$src/tensorflow/lite/micro/kernels/esp_nn/conv.cc" ] || { echo "build.sh: $src is not an esp-tflite-micro tree" >&2; exit 2; }
  dl=$src/third_party
else
  [ -f "$src/LIBRARY_SOURCES.txt" ] || { echo "build.sh: $src has no LIBRARY_SOURCES.txt" >&2; exit 2; }
fi

# Flags of TFLM's own Makefile that matter for what gets built; see /work/shared/tflm/README.md.
defines=(-DTF_LITE_STATIC_MEMORY -DTF_LITE_DISABLE_X86_NEON -DKERNELS_OPTIMIZED_FOR_SPEED
  -DTF_LITE_USE_CTIME)
[ "$compression" = 1 ] && defines+=(-DUSE_TFLM_COMPRESSION)
includes=(-I"$src" -I"$dl/flatbuffers/include" -I"$dl/gemmlowp" -I"$dl/ruy" -I"$dl/kissfft")
cxxstd=(-std=c++17 -fno-exceptions -fno-rtti -fno-threadsafe-statics)
cstd=(-std=c17)
arch=()
ldflags=()
prog_srcs=("$here/oracle_main.cc")
if [ "$esp" = 1 ]; then
  # esp-tflite-micro has no LIBRARY_SOURCES.txt: the library is its CMakeLists.txt's list,
  # less debug_log.cc (oracle_main.cc has the log) and esp/micro_time.cc (ESP-IDF's timer;
  # the portable micro_time.cc instead), less the microfrontend (no operator of its own),
  # plus what kernels/kernel_runner.cc needs (as TFLM's own list has it).
  m=tensorflow/lite/micro
  sources=$(cd "$src" && {
    for f in flatbuffer_utils memory_helpers micro_allocation_info micro_allocator \
      micro_context micro_interpreter_context micro_interpreter_graph micro_interpreter \
      micro_log micro_op_resolver micro_profiler micro_resource_variable micro_time \
      micro_utils recording_micro_allocator system_setup fake_micro_context mock_micro_graph \
      test_helpers test_helper_custom_ops; do
      echo "$m/$f.cc"; done
    ls $m/kernels/*.cc $m/tflite_bridge/*.cc $m/kernels/esp_nn/*.cc signal/micro/kernels/*.cc \
      signal/src/*.cc signal/src/kiss_fft_wrappers/*.cc
    printf '%s\n' tensorflow/lite/kernels/kernel_util.cc $m/memory_planner/greedy_memory_planner.cc \
      $m/memory_planner/linear_memory_planner.cc \
      $m/arena_allocator/{non_persistent,persistent,recording_single,single}_arena_buffer_allocator.cc \
      tensorflow/lite/core/c/common.cc tensorflow/lite/core/api/{flatbuffer_conversions,tensor_utils}.cc \
      tensorflow/lite/kernels/internal/{common,quantization_util,portable_tensor_utils,tensor_utils,tensor_ctypes}.cc \
      tensorflow/lite/kernels/internal/reference/portable_tensor_utils.cc \
      tensorflow/compiler/mlir/lite/core/api/error_reporter.cc \
      tensorflow/compiler/mlir/lite/schema/schema_utils.cc
  } | grep -v -x -E "$m/kernels/(add|conv|depthwise_conv|fully_connected|mul|pooling|softmax)\.cc" \
    | sort -u)
else
  sources=$(grep -v '^#' "$src/LIBRARY_SOURCES.txt")
fi

case $target in
  armhf|armhf-esp-nn)
    cxx=arm-linux-gnueabihf-g++ cc=arm-linux-gnueabihf-gcc
    ldflags=(-static) ;;
  i386)
    cxx=g++-12 cc=gcc-12
    arch=(-m32)
    ldflags=(-m32 -static)
    # Debian's multilib headers look for <asm/...> under the i386 triplet, which the
    # armhf-compatible multilib packages do not provide.
    mkdir -p "$out/include-i386"
    ln -sfn /usr/include/x86_64-linux-gnu/asm "$out/include-i386/asm"
    includes+=(-I"$out/include-i386") ;;
  x86_64-src)
    cxx=g++ cc=gcc ;;
  cortex-m|cortex-m-cmsis-nn)
    cxx=arm-none-eabi-g++ cc=arm-none-eabi-gcc
    if [ "$target" = cortex-m ]; then
      arch=(-mcpu=cortex-m3 -mthumb -mfloat-abi=soft)
    else
      arch=(-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16)
    fi
    # As TFLM's cortex_m_generic target: no -fno-short-enums, so the bare-metal EABI's
    # 1-byte enums apply.
    arch+=(-mlittle-endian -fsigned-char -fomit-frame-pointer)
    prog_srcs+=("$here/baremetal/startup_arm_m.c")
    ldflags=(-nostartfiles -T "$here/baremetal/mps2.ld" --specs=rdimon.specs
      -Wl,--gc-sections -Wl,--no-warn-rwx-segments) ;;
  riscv32)
    # Debian 12 has a RISC-V bare-metal C and C++ compiler (gcc-riscv64-unknown-elf, with
    # rv32imac/ilp32 multilibs) and C library (picolibc, with semihosting), but no C++
    # library for it.  TFLM needs only libstdc++'s headers (templates; no exceptions, no
    # RTTI, nothing of the library proper): they are borrowed from the arm-none-eabi
    # newlib build of the same GCC version, and the two ABI hooks a C++ program needs
    # come from baremetal/cxx_support.cc.  Struct layouts are the compiler's: the ilp32
    # ABI, not the borrowed headers, decides them.
    cxx=riscv64-unknown-elf-g++ cc=riscv64-unknown-elf-gcc
    libcxx=/usr/include/newlib/c++/12.2.1
    arch=(--specs=picolibc.specs -march=rv32imac -mabi=ilp32 -mcmodel=medany -funsigned-char)
    includes+=(-isystem "$libcxx" -isystem "$libcxx/arm-none-eabi")
    # As TFLM's riscv32_generic target.
    defines+=(-DTF_LITE_USE_GLOBAL_CMATH_FUNCTIONS -DTF_LITE_USE_GLOBAL_MIN
      -DTF_LITE_USE_GLOBAL_MAX)
    cxxstd+=(-fno-use-cxa-atexit)
    prog_srcs+=("$here/baremetal/cxx_support.cc")
    # QEMU virt: RAM at 0x80000000, where -bios none starts; 4 MiB for code, 60 for data.
    ldflags=(--crt0=semihost --oslib=semihost -Wl,--defsym=__flash=0x80000000
      -Wl,--defsym=__flash_size=0x00400000 -Wl,--defsym=__ram=0x80400000
      -Wl,--defsym=__ram_size=0x03c00000 -Wl,--defsym=__stack_size=0x10000) ;;
  xtensa-esp-nn)
    # The ESP32's ABI from Debian's Xtensa compiler (gcc-xtensa-lx106, GCC 12.2: the
    # ESP8266's LX106 core; Xtensa GCC lays out data the same for the ESP32's LX6: 4-byte
    # pointers and enums, 8-byte types aligned to 8), run under qemu-system-xtensa -M sim
    # -cpu lx106.  As ESP-IDF compiles every component: -mlongcalls (also needed here:
    # TFLM's code is far larger than a direct call's reach), -fno-builtin-memcpy and its
    # kin, -ffunction-sections -fdata-sections -fno-jump-tables -fno-tree-switch-conversion
    # -fstrict-volatile-bitfields (ESP-IDF v5.5), and esp-tflite-micro's own
    # -fno-unwind-tables; not its -O3 (OPT, -O1 here as for every oracle: no size depends
    # on it) nor its -std=gnu++14 (TFLM needs C++17; ESP-IDF's default is newer still).
    # -mtext-section-literals keeps each function's constants beside it (one RAM region
    # holds everything).  The C library is picolibc;
    # libstdc++'s headers are borrowed from arm-none-eabi's newlib build of the same GCC
    # (templates only; layouts are the compiler's), as for riscv32, and
    # baremetal/cxx_support.cc has the two C++ ABI hooks.  baremetal/xtensa_sim.c is
    # the reset code, QEMU's simcall semihosting (argv, files, stdout, exit) and the
    # heap; baremetal/xtensa_sim.ld places it all in the simulator's RAM.
    cxx=xtensa-lx106-elf-g++ cc=xtensa-lx106-elf-gcc
    specs=$(dpkg -L picolibc-xtensa-lx106-elf | grep '/picolibc.specs$')
    libcxx=/usr/include/newlib/c++/12.2.1
    arch=(--specs="$specs" -mlongcalls -mtext-section-literals -fno-builtin-memcpy
      -fno-builtin-memset -fno-builtin-bzero -fno-builtin-stpcpy -fno-builtin-strncpy
      -ffunction-sections -fdata-sections -fno-jump-tables -fno-tree-switch-conversion
      -fstrict-volatile-bitfields -fno-unwind-tables)
    includes+=(-isystem "$libcxx" -isystem "$libcxx/arm-none-eabi")
    cxxstd+=(-fno-use-cxa-atexit)
    prog_srcs+=("$here/baremetal/cxx_support.cc" "$here/baremetal/xtensa_sim.c")
    # Debian's libgcc for the LX106 lacks most of what GCC's Xtensa lib1funcs.S should
    # put there (32-bit division, 64-bit multiply, soft-float add/sub/mul/div and
    # conversions; the core has no FPU or divider): compiler-rt's portable C builtins
    # stand in (COMPILER_RT_SRC, a checkout of llvm-mirror/compiler-rt or LLVM's
    # compiler-rt/; the same IEEE arithmetic, none of it decides a size).  No
    # libstdc++ either, so the C driver links.
    crt=${COMPILER_RT_SRC:?xtensa-esp-nn needs COMPILER_RT_SRC (compiler-rt, for lib/builtins)}
    crt=$(cd "$crt" && pwd)
    crt_srcs=$(for f in adddf3 addsf3 subdf3 subsf3 muldf3 mulsf3 divdf3 extendsfdf2 \
      truncdfsf2 fixdfsi fixunssfsi fixunsdfsi floatsidf floatsisf floatunsidf floatunsisf \
      divsi3 udivsi3 umodsi3 divdi3 udivdi3 umoddi3 udivmoddi4 muldi3 fp_mode; do
      echo "lib/builtins/$f.c"; done)
    link=$cc
    ldflags=(-nostartfiles -T "$here/baremetal/xtensa_sim.ld" -Wl,--gc-sections
      -Wl,--no-warn-rwx-segments -Wl,--start-group -lm -lc -lgcc -Wl,--end-group) ;;
  *) echo "build.sh: unknown target $target" >&2; exit 2 ;;
esac

if [ "$target" = cortex-m-cmsis-nn ]; then
  cmsis=${CMSIS_NN_SRC:?cortex-m-cmsis-nn needs CMSIS_NN_SRC (an ARM-software/CMSIS-NN checkout)}
  cmsis=$(cd "$cmsis" && pwd)
  kdir=tensorflow/lite/micro/kernels
  [ -d "$src/$kdir/cmsis_nn" ] || { echo "build.sh: $src/$kdir/cmsis_nn is missing" >&2; exit 2; }
  # TFLM's specialisation mechanism: a kernel in kernels/cmsis_nn/ replaces the
  # reference kernel of the same file name.
  repl=$(cd "$src/$kdir/cmsis_nn" && ls *.cc)
  for f in $repl; do sources=$(printf '%s\n' "$sources" | sed "s#^$kdir/$f\$#$kdir/cmsis_nn/$f#"); done
  # As TFLM's Makefile with OPTIMIZED_KERNEL_DIR=cmsis_nn (ext_libs/cmsis_nn.inc): the
  # int8/int16 kernels only, no float16/float32 CMSIS-NN functions.
  defines+=(-DCMSIS_NN -DARM_NN_ENABLE_F16=0 -DARM_NN_ENABLE_F32=0)
  includes+=(-I"$cmsis" -I"$cmsis/Include")
  cmsis_srcs=$(cd "$cmsis" && find Source -name '*.c' | grep -v -e '_f16\.c$' -e '_f32\.c$' \
    -e '/arm_nntables_flt\.c$' | sort)
fi

if [ "$esp" = 1 ]; then
  espnn=${ESP_NN_SRC:?$target needs ESP_NN_SRC (an espressif/esp-nn checkout)}
  espnn=$(cd "$espnn" && pwd)
  # As esp-tflite-micro's CMakeLists.txt (-DESP_NN) with ESP-NN's default Kconfig choice
  # (NN_OPTIMIZED) on the plain ESP32 (CONFIG_IDF_TARGET_ESP32): esp_nn.h then maps every
  # function to its "generic optimised" C version (esp_nn_generic_opt.h); no S3/P4
  # assembly.  esp/esp_timer.h stands in for ESP-IDF's timer (the kernels' profiling).
  defines=(-DTF_LITE_STATIC_MEMORY -DTF_LITE_DISABLE_X86_NEON -DTF_LITE_USE_CTIME -DESP_NN=1
    -DCONFIG_NN_OPTIMIZED=1 -DCONFIG_IDF_TARGET_ESP32=1)
  includes+=(-I"$espnn/include" -I"$espnn/src/common" -I"$here/esp")
  # ESP-NN's CMakeLists.txt c_srcs: the ANSI C and generic optimised files.
  espnn_srcs=$(cd "$espnn" && ls src/*/*_ansi.c src/*/*_opt.c | sort)
fi

cflags_common=("${arch[@]}" "$opt" "${defines[@]}" ${EXTRA_DEFINES:-} "${includes[@]}")

# xargs runs each compile in its own shell: arrays do not export, so pass them flattened
export cc cxx
export CSTD="${cstd[*]}" CXXSTD="${cxxstd[*]}" CFLAGS_COMMON="${cflags_common[*]}"

list=$out/objects.txt
: >"$list"
{
  for s in $sources; do echo "$src/$s $out/obj/${s%.*}.o"; done
  if [ "$target" = cortex-m-cmsis-nn ]; then
    for s in $cmsis_srcs; do echo "$cmsis/$s $out/obj/cmsis-nn/${s%.*}.o"; done
  fi
  if [ "$esp" = 1 ]; then
    for s in $espnn_srcs; do echo "$espnn/$s $out/obj/esp-nn/${s%.*}.o"; done
  fi
  if [ -n "${crt_srcs:-}" ]; then
    for s in $crt_srcs; do echo "$crt/$s $out/obj/compiler-rt/${s%.*}.o"; done
  fi
} >"$list"

start=$(date +%s)
# One precompiled header for the whole library (see pch.h): about 3x less compile time.
mkdir -p "$out/pch"
if ! cmp -s "$here/pch.h" "$out/pch/oracle_pch.h" || [ ! -f "$out/pch/oracle_pch.h.gch" ]; then
  cp "$here/pch.h" "$out/pch/oracle_pch.h"
  $cxx "${cxxstd[@]}" "${cflags_common[@]}" -x c++-header "$out/pch/oracle_pch.h" \
    -o "$out/pch/oracle_pch.h.gch"
fi
export PCH="-include $out/pch/oracle_pch.h -Winvalid-pch"
xargs -P "$jobs" -L 1 bash -c '
  s=$0 o=$1
  [ -f "$o" ] && [ "$o" -nt "$s" ] && exit 0
  mkdir -p "$(dirname "$o")"
  case $s in
    *.c) exec $cc $CSTD $CFLAGS_COMMON -c "$s" -o "$o" ;;
    *) exec $cxx $CXXSTD $CFLAGS_COMMON $PCH -c "$s" -o "$o" ;;
  esac' <"$list"
lib_seconds=$(( $(date +%s) - start ))

objs=$(awk '{print $2}' "$list")
prog=$out/tflm_oracle
case $target in cortex-m*|riscv32|xtensa*) prog=$out/tflm_oracle.elf ;; esac
prog_objs=()
for s in "${prog_srcs[@]}"; do
  o=$out/prog/$(basename "${s%.*}").o
  mkdir -p "$out/prog"
  case $s in
    *.c) $cc "${cstd[@]}" "${cflags_common[@]}" -c "$s" -o "$o" ;;
    *) $cxx "${cxxstd[@]}" "${cflags_common[@]}" ${PROG_DEFINES:-} \
         -DTFLM_ORACLE_TARGET="\"$target\"" -c "$s" -o "$o" ;;
  esac
  prog_objs+=("$o")
done
# shellcheck disable=SC2086
${link:-$cxx} "${arch[@]}" "${prog_objs[@]}" $objs "${ldflags[@]}" -lm -o "$prog"

printf '%s\n' "${cxxstd[@]}" "${cflags_common[@]}" >"$out/cxxflags.txt"
printf '%s\n' "${ldflags[@]}" >"$out/ldflags.txt"
$cxx --version | head -1 >"$out/compiler-version.txt"
python3 "$here/build_info.py" "$out" "$src" "$here" "$target" "$cxx" "$compression" \
  "$lib_seconds" "$prog"
echo "$prog"
exit 0
}
