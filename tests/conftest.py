"""Shared fixtures for the host test suite."""
import json
import pathlib

import pytest

TESTS = pathlib.Path(__file__).resolve().parent
VECTORS = TESTS / "vectors"


def load_vectors(name):
    """Cases of tests/vectors/<name>.json: the same file the board runs."""
    return json.loads((VECTORS / (name + ".json")).read_text())


@pytest.fixture
def tests_dir():
    return TESTS
