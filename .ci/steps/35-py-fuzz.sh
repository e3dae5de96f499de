# Fuzzing the model importers with atheris (fuzz/fuzz_tflite.py, fuzz/fuzz_onnx.py):
# a Model or a MemcoreError are the only acceptable outcomes of any bytes.
# 1. Each target replays its committed corpus (seeds + every input that once crashed).
# 2. Each fuzzes for FUZZ_SECONDS (default 20) from those seeds; new inputs go to a
#    scratch corpus, so the committed one is only read.
# atheris ships manylinux wheels (CPython 3.8-3.11 here); no clang needed to install.
# See bench/fuzz.md for long runs.
set -euo pipefail
scratch=$(mktemp -d)
seconds=${FUZZ_SECONDS:-20}
pip install -q . atheris

for kind in tflite onnx; do
  target=fuzz/fuzz_$kind.py
  # Replay: each corpus file run once; any finding exits non-zero.
  timeout 300 python "$target" -timeout=10 fuzz/corpus/$kind/* >"$scratch/$kind-replay.log" 2>&1 ||
    { tail -40 "$scratch/$kind-replay.log"; exit 1; }
  echo "$kind: replayed $(ls fuzz/corpus/$kind | wc -l) corpus files"
  mkdir -p "$scratch/corpus-$kind"
  status=0
  timeout $((seconds + 120)) python "$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$scratch/$kind-" "$scratch/corpus-$kind" fuzz/corpus/$kind \
    >"$scratch/$kind-fuzz.log" 2>&1 || status=$?
  grep -E '^(stat::number_of_executed_units|Done)' "$scratch/$kind-fuzz.log" || true
  if [ "$status" -ne 0 ]; then
    grep -v '^INFO: Instrumenting' "$scratch/$kind-fuzz.log" | tail -60
    echo "$kind: finding (exit $status); the input is above (artifact $scratch/$kind-*)"
    exit 1
  fi
done
