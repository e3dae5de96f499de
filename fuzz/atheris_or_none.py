"""The shared harness of the Python fuzz targets (fuzz/fuzz_*.py).

The targets import this instead of atheris so their `check` functions also load where
atheris is not installed: tests/test_fuzz_corpus.py replays the committed corpora with
plain pytest.  Only `main` needs atheris.
"""
import contextlib

try:
    import atheris
except ImportError:  # replay without atheris
    atheris = None


def instrument(packages, enabled=True):
    """Coverage instrumentation of `packages` imported in the block: only when fuzzing
    (a replay needs none), and never without atheris."""
    if atheris is None or not enabled:
        return contextlib.nullcontext()
    return atheris.instrument_imports(include=list(packages))


def main(check, argv):
    if atheris is None:
        raise SystemExit("atheris is not installed: pip install atheris")

    def one_input(data):
        check(data)

    atheris.Setup(argv, one_input)
    atheris.Fuzz()
