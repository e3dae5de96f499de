# The adversarial generators (tests/adversarial/hostile*.py: mutated TFLite files, ONNX
# mutants, operand-shape and attribute mutants, hostile device files, tampered descriptors on CPython
# and MicroPython, forged vector runs for `memcore hil`, forged boot output for `memcore
# monitor`) with a fixed seed other than the tests' and 3 times their counts: about 4,800
# attempts in 60 to 90 s (mostly the fake boards' serial timing).  Prints attempts and
# outcomes per generator and fails on any traceback, false "ok", "fits" for a tampered
# input or refusal of a valid one.  Longer runs: python bench/adversarial.py --scale 50.
set -euo pipefail
pip install -q '.[test]'
python bench/adversarial.py --scale 3 --seed 2
