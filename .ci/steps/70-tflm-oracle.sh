# TFLM itself on a 32-bit target, built in CI: tools/tflm_oracle builds the TFLM source
# pinned in shared/tflm (beside the checkout) for 32-bit Arm Linux (run under qemu-arm), then re-measures the
# shared models and a sample of the corpus, bisecting each arena to the byte, and fails on
# any difference from the committed truth (tests/corpus/truth/armhf.json), which memcore is
# checked against in the Python tests.  The library build is most of the time (about
# 8 minutes on 2 cores).
set -euo pipefail
# The pinned source: $TFLM_TARBALL, else shared/tflm/ beside this checkout or above it.
tarball=${TFLM_TARBALL:-}
dir=$(pwd)
while [ -z "$tarball" ] && [ "$dir" != / ]; do
  dir=$(dirname "$dir")
  tarball=$(ls "$dir"/shared/tflm/tflite-micro-*-subset.tar.gz 2>/dev/null | head -1 || true)
done
if [ -z "$tarball" ]; then
  echo "70-tflm-oracle: no TFLM source (set TFLM_TARBALL, or put it in ../shared/tflm/)" >&2
  exit 1
fi
build=$(mktemp -d)
TFLM_TARBALL=$tarball JOBS=2 bash tools/tflm_oracle/build.sh armhf "" "$build/armhf" >/dev/null
sample=$build/sample
# Every operator family of the corpus at least once: the first model of each prefix.
bash tools/tflm_oracle/family_sample.sh "$sample"
python3 tools/tflm_oracle/measure.py --build-dir "$build/armhf" --jobs 2 \
  --models tests/models=models/ --models "$sample" --check tests/corpus/truth/armhf.json
