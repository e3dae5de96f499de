"""atheris target: mutated bytes into the TFLite importer (memcore.tflite).

The only acceptable outcomes are a Model (which must then also plan, both strategies,
and size a TFLM arena) or memcore.MemcoreError; any other exception, a crash or a hang
is a finding.  `check(data)` is also what tests/test_fuzz_corpus.py replays, without
atheris, over every file in fuzz/corpus/tflite/.

    python fuzz/fuzz_tflite.py -max_total_time=20 -timeout=10 /tmp/new fuzz/corpus/tflite
"""
import sys

import atheris_or_none  # atheris, or replay without it (fuzz/atheris_or_none.py)

with atheris_or_none.instrument(["memcore", "tflite"], enabled=__name__ == "__main__"):
    import memcore
    from memcore.tflite import load_tflite
    from memcore.tflm import tflm_arena

NAME = "fuzz.tflite"


def check(data: bytes):
    """Load `data` as a .tflite file; returns the Model or None (a MemcoreError)."""
    try:
        model = load_tflite(NAME, bytes(data))
    except memcore.MemcoreError as e:
        assert str(e).startswith(NAME + ": "), "error does not name the file: %s" % e
        return None
    _use(model)
    return model


def _use(model):
    """What every caller does next with a loaded model: plan it and size TFLM's arena."""
    for strategy in ("tflm", "best"):
        try:
            model.plan(strategy)
        except memcore.MemcoreError:
            pass
    try:
        tflm_arena(model)
    except memcore.MemcoreError:
        pass


if __name__ == "__main__":
    atheris_or_none.main(check, sys.argv)
