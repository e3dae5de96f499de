"""Latency as fetch + compute + setup, and which upgrade pays."""
from dataclasses import dataclass

from memcore import _lowlevel as ll
from memcore._memcore import lib

PARTS = {lib.MC_PART_FETCH: "fetch", lib.MC_PART_COMPUTE: "compute", lib.MC_PART_SETUP: "setup"}


@dataclass(frozen=True)
class Latency:
    fetch_seconds: float
    compute_seconds: float
    setup_seconds: float
    total_seconds: float
    dominant: str                       # "fetch", "compute" or "setup"
    saving_if_compute_doubled: float    # fraction of total_seconds
    saving_if_bandwidth_doubled: float  # fraction of total_seconds
    saving_seconds_if_compute_doubled: float
    saving_seconds_if_bandwidth_doubled: float

    @property
    def better_upgrade(self):
        """"compute" or "bandwidth": the doubling that saves more time."""
        return ("compute" if self.saving_seconds_if_compute_doubled > self.saving_seconds_if_bandwidth_doubled
                else "bandwidth")


def latency(bytes_moved, operations, bandwidth_bytes_per_second, operations_per_second, overhead_seconds=0.0):
    raw = ll.latency(ll.count("bytes_moved", bytes_moved), ll.count("operations", operations),
                     ll.rate("bandwidth_bytes_per_second", bandwidth_bytes_per_second),
                     ll.rate("operations_per_second", operations_per_second),
                     ll.rate("overhead_seconds", overhead_seconds, allow_zero=True))
    return from_c(raw)


def from_c(raw):
    """The Latency of an mc_latency_t."""
    return Latency(raw.fetch_seconds, raw.compute_seconds, raw.setup_seconds, raw.total_seconds,
                   PARTS[raw.dominant], raw.saving_if_compute_doubled, raw.saving_if_bandwidth_doubled,
                   raw.saving_seconds_if_compute_doubled, raw.saving_seconds_if_bandwidth_doubled)
