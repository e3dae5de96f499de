"""The adversarial suite: every kind of untrusted input, generated (hostile.py), with a
bounded count per category so the whole suite stays well under three minutes.  The
attempts and outcomes of each category are printed at the end of the run."""
import pytest

from hostile import Tally

_TALLY = Tally()


@pytest.fixture(scope="session")
def tally():
    return _TALLY


def pytest_terminal_summary(terminalreporter):
    if _TALLY.counts:
        terminalreporter.section("adversarial inputs: attempts and outcomes per category")
        terminalreporter.write_line(_TALLY.table())

