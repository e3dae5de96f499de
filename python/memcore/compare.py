"""Where can this model run: one check per known device, with SPEC 4's three verdicts.

A card says "runs here" when the model fits and answers within the device's latency
budget, "will not fit" with how many times too big (the C verdict's ratio of required
to available memory), or "too slow here" with the time it needs."""
from dataclasses import dataclass

from memcore.check import CheckReport, check
from memcore.devices import verdict
from memcore.units import format_seconds


@dataclass(frozen=True)
class Card:
    report: CheckReport
    status: str              # "runs", "will_not_fit" or "too_slow"
    times_too_big: float     # required / available (from the C verdict)

    @property
    def device(self):
        return self.report.device

    def headline(self):
        """The short verdict for a table cell."""
        if self.status == "will_not_fit":
            return "won't fit %.3g×" % self.times_too_big
        if self.status == "too_slow":
            return "too slow"
        return "runs here"

    def explanation(self):
        """The full sentence for a card."""
        if self.status == "will_not_fit":
            return "will not fit: %.3g times bigger than the memory available" % self.times_too_big
        if self.status == "too_slow":
            return "too slow here: needs %s, budget %s" % (format_seconds(self.report.latency.total_seconds),
                                                           format_seconds(self.report.profile.latency_budget_seconds))
        return "runs here: answers in %s" % format_seconds(self.report.latency.total_seconds)


def card(model, profile, batch=1, kernels="optimised"):
    report = check(model, profile, batch, kernels, suggest=False)
    raw = verdict(report.required_bytes, profile.device(kernels, report.weights_placement))
    if not report.fits:
        status = "will_not_fit"
    elif not report.within_latency_budget:
        status = "too_slow"
    else:
        status = "runs"
    return Card(report, status, raw.times_too_big)


def compare(model, profiles, batch=1, kernels="optimised"):
    """Cards for `model` on every profile, in the profiles' order."""
    return [card(model, p, batch, kernels) for p in profiles.values()]
