"""Every shared vector (the board runs the same files) holds on the host."""
import pathlib

import pytest

import memcore
from memcore import vectors

FILES = sorted((pathlib.Path(__file__).parent / "vectors").glob("*.json"))
CASES = [(f.stem, c) for f in FILES for c in vectors.load(f)["cases"]]


@pytest.mark.parametrize("name,case", CASES, ids=["%s:%s" % (n, c["name"]) for n, c in CASES])
def test_vector_holds_on_host(name, case):
    function = vectors.load(pathlib.Path(__file__).parent / "vectors" / (name + ".json"))["function"]
    got = vectors.outcome(memcore, function, case)
    assert vectors.differences(vectors.expected_outcome(case), got) == []


def test_every_device_side_function_has_vectors():
    assert {f.stem for f in FILES} >= {"budget", "max_batch", "latency", "roofline", "plan"}


def test_errors_are_memcore_errors_naming_the_argument():
    with pytest.raises(memcore.MemcoreError, match="batch"):
        memcore.budget(10, 4, -1, 8, 12, 100)
