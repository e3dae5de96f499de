#!/usr/bin/env bash
# The sample of the corpus that CI step 70 and esp32.sh --check re-measure: every operator
# family of the corpus at least once (the first model of each file-name prefix), copied
# into DIR.
#   tools/tflm_oracle/family_sample.sh DIR
set -euo pipefail
sample=${1:?usage: family_sample.sh DIR}
corpus=$(cd "$(dirname "$0")/../../tests/corpus/models" && pwd)
mkdir -p "$sample"
for f in "$corpus"/*.tflite; do
  family=$(basename "$f" | cut -d_ -f1)
  [ -e "$sample/.$family" ] && continue
  touch "$sample/.$family"
  cp "$f" "$sample/"
done
