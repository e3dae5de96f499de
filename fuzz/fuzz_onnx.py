"""atheris target: mutated bytes into the ONNX importer (memcore.onnx_import).

The only acceptable outcomes are a Model (which must then also plan, both strategies)
or memcore.MemcoreError; any other exception, a crash or a hang is a finding.
`check(data)` is also what tests/test_fuzz_corpus.py replays, without atheris, over
every file in fuzz/corpus/onnx/.

    python fuzz/fuzz_onnx.py -max_total_time=20 -timeout=10 /tmp/new fuzz/corpus/onnx
"""
import sys

import atheris_or_none  # atheris, or replay without it (fuzz/atheris_or_none.py)

with atheris_or_none.instrument(["memcore"], enabled=__name__ == "__main__"):
    import memcore
    from memcore.onnx_import import load_onnx

NAME = "fuzz.onnx"


def check(data: bytes):
    """Load `data` as an .onnx file; returns the Model or None (a MemcoreError)."""
    try:
        model = load_onnx(NAME, bytes(data))
    except memcore.MemcoreError as e:
        assert str(e).startswith(NAME + ": "), "error does not name the file: %s" % e
        return None
    for strategy in ("tflm", "best"):
        try:
            model.plan(strategy)
        except memcore.MemcoreError:
            pass
    return model


if __name__ == "__main__":
    atheris_or_none.main(check, sys.argv)
