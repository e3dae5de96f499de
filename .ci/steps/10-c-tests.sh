# The C unit tests, plain and under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
build=$(mktemp -d)
cmake -S . -B "$build/plain" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build/plain" -j2 >/dev/null
ctest --test-dir "$build/plain" --output-on-failure
cmake -S . -B "$build/asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMEMCORE_SANITIZE=ON >/dev/null
cmake --build "$build/asan" -j2 >/dev/null
ctest --test-dir "$build/asan" --output-on-failure
