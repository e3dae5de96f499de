"""The adversarial generators of tests/adversarial/hostile*.py with larger counts than the tests'.

    python bench/adversarial.py [--scale 10] [--seed 1] [--only "hil boards,onnx mutants"]

Prints attempts and outcomes per category (accepted, refused, and the four that must
stay 0: traceback, false_ok, fits_for_tampered, refused_valid), then the first bad attempts
of each category, and exits 1 if there were any.  --scale multiplies the tests' counts;
CI's step .ci/steps/55-adversarial.sh runs --scale 3 --seed 2.
"""
import argparse
import pathlib
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests" / "adversarial"), str(ROOT / "tests")]

import hostile  # noqa: E402

# category: (generator, count in the tests)
CATEGORIES = {
    "tflite mutants": (hostile.tflite_mutants, 150),
    "onnx mutants": (hostile.onnx_mutants, 160),
    "onnx operands": (hostile.onnx_operands, 600),
    "onnx attributes": (hostile.onnx_attributes, 300),
    "device files": (hostile.device_files, 160),
    "descriptors (CPython)": (hostile.descriptors_on_cpython, 120),
    "descriptors (MicroPython)": (hostile.descriptors_on_micropython, 60),
    "hil boards": (hostile.hil_boards, 48),
    "monitor boards": (hostile.monitor_boards, 17),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=10.0, help="times CI's count (default 10)")
    parser.add_argument("--seed", type=int, default=1, help="added to every generator's own seed")
    parser.add_argument("--only", help="comma-separated categories (default: all)")
    args = parser.parse_args()
    chosen = args.only.split(",") if args.only else list(CATEGORIES)
    tally = hostile.Tally()
    for offset, name in enumerate(chosen):
        generator, count = CATEGORIES[name.strip()]
        with tempfile.TemporaryDirectory() as folder:
            kwargs = {"seed": args.seed * 100 + offset} if args.seed != 1 else {}
            generator(tally, max(1, int(count * args.scale)), folder=folder, **kwargs)
        print("%s: done" % name, file=sys.stderr, flush=True)
    print(tally.table())
    bad = {c: b for c, b in tally.bad.items() if b}
    for category, found in bad.items():
        print("\n%s: %d bad attempt(s); the first:\n  %s" % (category, len(found), found[0].replace("\n", "\n  ")))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
