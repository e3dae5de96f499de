# The ESP32 path, without ESP-IDF: micropython/micropython.cmake as an installed package
# ships it (python -m memcore.usermod --cmake), included the way MicroPython's CMake ports
# include it (MicroPython's own py/usermod.cmake, tests/usermod_cmake/), and every source
# it lists compiled with ESP-IDF's warning flags, -Werror, and the single-precision ports'
# -fsingle-precision-constant -Wdouble-promotion -Wfloat-conversion: by an Xtensa compiler
# (the ESP8266's LX106, the ESP32's instruction-set family) and for a Cortex-M4F (a
# single-precision FPU, as the ESP32 has).  MicroPython's configuration and generated
# headers come from the qemu-m3 build (step 60; built here if missing).  ESP32's own
# compiler (xtensa-esp32-elf-gcc) is neither a Debian nor a PyPI package: ESP-IDF's
# installer downloads it; so the LX106 one stands in for the Xtensa ISA.
# Also: the core compiles to the same object code with and without
# -fsingle-precision-constant, so no float literal changes value on those ports.
set -euo pipefail
python -c 'import memcore' 2>/dev/null || pip install -q '.[test]'
fw=build/firmware
export JOBS=${JOBS:-2}  # make -j2: CI runs on two cores
work=$(mktemp -d)
micropython/build_firmware.sh qemu-m3 "$fw" >"$work/qemu-m3.log" 2>&1 || { cat "$work/qemu-m3.log"; exit 1; }
mpy=$(micropython/build_firmware.sh source "$fw")
usermod=$(python -m memcore.usermod --cmake)
echo "module from the installed package: $usermod"

# ESP-IDF v5's default compile options (tools/cmake/build.cmake) and ports/esp32's own
esp_idf="-ffunction-sections -fdata-sections -Wall -Werror=all -Wno-error=unused-function
  -Wno-error=unused-variable -Wno-error=unused-but-set-variable -Wno-error=deprecated-declarations
  -Wextra -Wno-unused-parameter -Wno-sign-compare -Wno-enum-conversion -std=gnu17
  -Wno-old-style-declaration -O2 -fstrict-volatile-bitfields -fno-jump-tables -fno-tree-switch-conversion
  -Wno-clobbered -Wno-deprecated-declarations -Wno-missing-field-initializers"
single="-Werror -fsingle-precision-constant -Wdouble-promotion -Wfloat-conversion -Wpointer-arith"
# what the qemu-m3 build's generated headers were made with
config="-DMICROPY_FLOAT_IMPL=MICROPY_FLOAT_IMPL_FLOAT -DMICROPY_VFS_LFS2=1 -DNDEBUG"

# The C library's headers: picolibc's, through its specs file (as step 20 and
# bench/footprint.py use it); without it arm-none-eabi-gcc only finds newlib's, which CI
# does not install.
arm_specs="-specs=$(dpkg -L picolibc-arm-none-eabi | grep '/picolibc.specs$')"

check() { # name compiler cpu-flags
  local name=$1 cc=$2 cpu=$3
  cmake -S tests/usermod_cmake -B "$work/$name" -DCMAKE_C_COMPILER="$cc" -DMICROPY_DIR="$mpy" \
    -DUSER_C_MODULES="$usermod" -DMICROPY_CONFIG_DIRS="$mpy/ports/qemu;$PWD/$fw/qemu-m3" \
    -DCHECK_FLAGS="$(echo $cpu $esp_idf $single $config)" >"$work/$name.configure.log" 2>&1 ||
    { cat "$work/$name.configure.log"; exit 1; }
  cmake --build "$work/$name" -j2 -v >"$work/$name.build.log" 2>&1 || { cat "$work/$name.build.log"; exit 1; }
  grep -q -- "-fsingle-precision-constant.*-DNDEBUG" "$work/$name.build.log"  # the flags reached the compiler
  # text of the module and core as compiled here (ESP-IDF's -O2 and -ffunction-sections,
  # before a link drops unused functions): what the module adds to a firmware, at most
  local text
  text=$(find "$work/$name" -path '*memcore_usermod_check.dir*' -name '*.obj' -exec "${cc%gcc}size" -t {} + |
    tail -n 1 | awk '{print $1}')
  echo "$name: $(wc -l <"$work/$name/usermod_sources.txt") sources compile -Werror-clean with ESP-IDF's flags; text $text bytes"
}
check xtensa-lx106 xtensa-lx106-elf-gcc "-mlongcalls -mtext-section-literals"
check cortex-m4f arm-none-eabi-gcc "$arm_specs -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16"

# The CMake listing is exactly the module and the core, as the make file's is, but the
# host's reorder.c (bench/footprint.py's HOST_ONLY); no board support.
module=$(dirname "$usermod")/memcore
core=$(cd "$module/../../csrc/src" && pwd)
(echo "$module/modmemcore.c"; echo "$module/modmemcore_check.c"; ls "$core"/*.c | grep -v '/reorder\.c$') | sort >"$work/expected.txt"
sort "$work/xtensa-lx106/usermod_sources.txt" | sed '/^$/d' >"$work/listed.txt"
diff -u "$work/expected.txt" "$work/listed.txt"
echo "micropython.cmake lists the binding (modmemcore.c, modmemcore_check.c) and the $(ls "$core"/*.c | grep -vc '/reorder\.c$') core sources," \
  "nothing else"

# No float literal in the core changes meaning under -fsingle-precision-constant.
for src in csrc/src/*.c; do
  for variant in plain single; do
    extra=""; [ $variant = single ] && extra="-fsingle-precision-constant"
    arm-none-eabi-gcc "$arm_specs" -mcpu=cortex-m3 -mthumb -Os -std=c99 -Wall -Wextra -Werror -pedantic $extra \
      -Icsrc/include -c "$src" -o "$work/$(basename "$src" .c).$variant.o"
  done
  cmp -s "$work/$(basename "$src" .c).plain.o" "$work/$(basename "$src" .c).single.o" ||
    { echo "$src: -fsingle-precision-constant changes its code: a float literal the core means as double"; exit 1; }
done
echo "the core's code is the same with and without -fsingle-precision-constant"
