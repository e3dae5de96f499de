"""What every adversarial generator shares: the outcomes an attempt can have, their tally
per category, and how a model file is used (what `memcore check` does with it).  See
hostile.py for the outcomes' meaning."""
import collections
import contextlib
import os
import pathlib
import time

import memcore
from memcore import MemcoreError

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODELS = ROOT / "tests" / "models"
FIRMWARE_TESTS = ROOT / "firmware_tests"
DEVICE_DIR = ROOT / "micropython"
BAD = ("traceback", "false_ok", "fits_for_tampered", "refused_valid")
OUTCOMES = ("accepted", "refused") + BAD


class Tally:
    """Attempts and outcomes per category, and the bad ones with what happened."""

    def __init__(self):
        self.counts = collections.defaultdict(collections.Counter)
        self.bad = collections.defaultdict(list)
        self.seconds = collections.Counter()

    def add(self, category, outcome, name, detail=""):
        assert outcome in OUTCOMES, outcome
        self.counts[category][outcome] += 1
        if outcome in BAD:
            self.bad[category].append("%s: %s: %s" % (name, outcome, str(detail)[-600:]))

    def table(self):
        rows = ["%-26s %8s " % ("category", "attempts") + " ".join("%9s" % o[:9] for o in OUTCOMES) + "  seconds"]
        for category in sorted(self.counts):
            c = self.counts[category]
            rows.append("%-26s %8d " % (category, sum(c.values())) + " ".join("%9d" % c[o] for o in OUTCOMES)
                        + "  %7.1f" % self.seconds[category])
        return "\n".join(rows)


def assert_clean(tally, category):
    """No traceback, no false "ok", no "fits" for a tampered input in `category`."""
    assert sum(tally.counts[category].values()) > 0, "no attempts in %s" % category
    assert tally.bad[category] == [], "\n\n".join(tally.bad[category][:5])


@contextlib.contextmanager
def timed(tally, category):
    start = time.monotonic()
    try:
        yield
    finally:
        tally.seconds[category] += time.monotonic() - start


def traceback_text(exc):
    import traceback
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))[-1500:]


def use_model(path):
    """Load, plan and check a model file: what `memcore check` does with it."""
    from memcore.check import check
    from memcore.profiles import profile
    model = memcore.load(path)
    model.plan("tflm")
    check(model, profile("esp32"))
    return model


def model_outcome(tally, category, name, path, must_refuse):
    try:
        use_model(str(path))
    except MemcoreError as exc:
        if str(path) not in str(exc) and os.path.basename(str(path)) not in str(exc):
            tally.add(category, "traceback", name, "MemcoreError without the file's name: %s" % exc)
        else:
            tally.add(category, "refused", name)
        return
    except Exception as exc:  # noqa: BLE001 - any other exception is the finding
        tally.add(category, "traceback", name, traceback_text(exc))
        return
    tally.add(category, "false_ok" if must_refuse else "accepted", name, "loaded")

