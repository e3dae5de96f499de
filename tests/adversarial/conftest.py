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


def assert_clean(tally, category):
    """No traceback, no false "ok", no "fits" for a tampered input in `category`."""
    assert sum(tally.counts[category].values()) > 0, "no attempts in %s" % category
    assert tally.bad[category] == [], "\n\n".join(tally.bad[category][:5])
