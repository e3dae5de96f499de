# The C core on other targets: the unit tests as 32-bit x86 (-m32) and as 32-bit ARM
# Linux under qemu-user, with output identical to the x86-64 run; and the core alone
# cross-compiled for bare-metal Cortex-M4F and Xtensa LX106 with the strict flags.
set -euo pipefail
build=$(mktemp -d)
strict=(-std=c99 -Wall -Wextra -Werror -pedantic)

# Each test binary's stdout is its check count; every target must print the same.
run_tests() { # name build-dir [emulator...]
  local name=$1 dir=$2
  shift 2
  cmake --build "$dir" -j2 >/dev/null
  for t in "$dir"/test_*; do
    "$@" "$t"
  done >"$build/$name.out"
  echo "$name: $(grep -c ', 0 failed' "$build/$name.out") test programs passed"
}

cmake -S . -B "$build/x86_64" -DCMAKE_BUILD_TYPE=Release >/dev/null
run_tests x86_64 "$build/x86_64"

cmake -S . -B "$build/i386" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS=-m32 >/dev/null
run_tests i386 "$build/i386"

cmake -S . -B "$build/armhf" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/armhf-linux.cmake" >/dev/null
run_tests armhf "$build/armhf" qemu-arm -L /usr/arm-linux-gnueabihf

diff -u "$build/x86_64.out" "$build/i386.out"
diff -u "$build/x86_64.out" "$build/armhf.out"
echo "i386 and armhf results identical to x86-64"

# Bare metal: the core only (no tests, no libc beyond <string.h>, which picolibc supplies).
cortex_m4f=(arm-none-eabi-gcc -specs="$(dpkg -L picolibc-arm-none-eabi | grep '/picolibc.specs$')"
  -mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard -mthumb)
lx106=(xtensa-lx106-elf-gcc -specs="$(dpkg -L picolibc-xtensa-lx106-elf | grep '/picolibc.specs$')")
for target in cortex_m4f lx106; do
  declare -n cc=$target
  mkdir -p "$build/$target"
  for src in csrc/src/*.c; do
    "${cc[@]}" -Os "${strict[@]}" -Icsrc/include -c "$src" -o "$build/$target/$(basename "$src" .c).o"
  done
  echo "$target: core builds at -Os with ${strict[*]}"
done
