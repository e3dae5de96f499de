# Fuzzing the C entry points that take arrays, sizes and floats (fuzz/fuzz_*.c).
# 1. Every target built as a plain program (gcc, ASan+UBSan) replays its seed corpus,
#    which includes every input that once crashed or hung: works without libFuzzer.
# 2. With clang's libFuzzer, each target also fuzzes for a bounded time from its seeds.
# FUZZ_SECONDS (default 12) sets the time per target; see bench/fuzz.md for long runs.
set -euo pipefail
build=$(mktemp -d)
seconds=${FUZZ_SECONDS:-12}
san=(-fsanitize=address,undefined -fno-sanitize-recover=all -g -O1)
targets=$(cd fuzz && ls fuzz_*.c | sed 's/\.c$//')

for t in $targets; do
  gcc -std=c99 "${san[@]}" -Icsrc/include "fuzz/$t.c" fuzz/replay.c csrc/src/*.c -lm -o "$build/$t-replay"
  "$build/$t-replay" "fuzz/corpus/${t#fuzz_}"
done

if ! echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' |
     clang -x c -fsanitize=fuzzer - -o "$build/probe" 2>/dev/null; then
  echo "clang with libFuzzer not available: replay only"
  exit 0
fi
for t in $targets; do
  clang "${san[@]}" -fsanitize=fuzzer -Icsrc/include "fuzz/$t.c" csrc/src/*.c -lm -o "$build/$t"
  mkdir -p "$build/corpus-$t"
  # New inputs go to a scratch corpus; the committed seeds are only read.  The fuzzer's
  # own status decides (taken before any filtering: a status read after `| grep || true`
  # is true's, and a finding would pass).
  status=0
  "$build/$t" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=1024 -print_final_stats=1 \
    -artifact_prefix="$build/$t-" "$build/corpus-$t" "fuzz/corpus/${t#fuzz_}" >"$build/$t.log" 2>&1 ||
    status=$?
  grep -E '^(stat::number_of_executed_units|Done)|ERROR|property failed|runtime error' "$build/$t.log" || true
  if [ "$status" -ne 0 ]; then
    tail -n 40 "$build/$t.log"
    for crash in "$build/$t"-crash-* "$build/$t"-timeout-* "$build/$t"-oom-* "$build/$t"-leak-*; do
      [ -f "$crash" ] && { echo "finding: $crash"; od -A x -t x1z "$crash" | head -n 20; }
    done
    exit "$status"
  fi
done
