"""Where can this model run: the check on every board profile, one card each.

A card's status is the check's verdict on that board: "runs" (fits and meets its
budgets), "will_not_fit" (memory or flash short) or "too_slow" (fits but misses the
latency budget; "battery" when the battery budget is the one missed).  How far over is
the limiting resource's need / limit, from the C check, so a card never says "won't
fit" with a ratio below 1."""
from dataclasses import dataclass

from memcore.check import CheckReport, check
from memcore.render import _RESOURCE_WORDS, resource_detail


@dataclass(frozen=True)
class Card:
    report: CheckReport
    status: str              # "runs", "will_not_fit", "too_slow" or "battery"
    times_over: float        # the limiting resource's need / limit (> 1 when it is short)

    @property
    def device(self):
        return self.report.device

    @property
    def times_too_big(self):
        return self.times_over if self.status == "will_not_fit" else 0.0

    def headline(self):
        """The short verdict for a table cell."""
        resource = _RESOURCE_WORDS[self.report.limiting_resource]
        if self.status == "will_not_fit":
            return "won't fit (%s %.3g×)" % (resource, self.times_over)
        if self.status == "too_slow":
            return "too slow (%.3g×)" % self.times_over
        if self.status == "battery":
            return "battery short (%.3g×)" % self.times_over
        return "runs here"

    def explanation(self):
        """The full sentence for a card."""
        r = self.report
        res = r.resources.get(r.limiting_resource)
        words = resource_detail(r.limiting_resource, res.to_json(), _card_data(r)) if res else ""
        first = "%s runs out first: %s" % (_RESOURCE_WORDS[r.limiting_resource], words)
        if self.status == "will_not_fit":
            return "will not fit: " + first
        if self.status in ("too_slow", "battery"):
            return "fits, but misses its budget: " + first
        return "runs here: answers in %s; %s is the tightest" % (_seconds(r), _RESOURCE_WORDS[r.limiting_resource])


def _seconds(r):
    from memcore.units import format_seconds
    return format_seconds(r.latency.total_seconds)


def _card_data(r):
    b = r.budgets
    return {"budgets": {"inferences_per_hour": b.inferences_per_hour or None,
                        "battery_life_seconds": b.battery_life_seconds or None},
            "model_partition": r.profile.model_partition}


def card(model, profile, batch=1, kernels="optimised", budgets=None):
    report = check(model, profile, batch, kernels, suggest=False, budgets=budgets)
    res = report.resources.get(report.limiting_resource)
    if report.verdict == "does_not_fit":
        status = "will_not_fit"
    elif report.verdict == "misses_budget":
        status = "battery" if report.limiting_resource == "battery" else "too_slow"
    else:
        status = "runs"
    return Card(report, status, res.usage if res is not None else 0.0)


def compare(model, profiles, batch=1, kernels="optimised", budgets=None):
    """Cards for `model` on every profile, in the profiles' order."""
    return [card(model, p, batch, kernels, budgets) for p in profiles.values()]
