"""The four places almost every model ends up — a teaching view: data centre, local
server, phone and microcontroller, each one memory size, one read speed and one
latency budget, and the three verdicts (runs here, will not fit, too slow here).

These are for `memcore verdicts` and memcore.verdict(); the microcontroller views
(`check`, `compare`, `report`) use the truer board profiles of memcore.profiles, where
"esp32" is an ESP32 under MicroPython.  Here the 0.5 MB row is "microcontroller".

MB are 10^6 bytes; "GB/s" converts MB with 1,024 (read_ms = MB / 1024 / GBps x 1000),
so 1 GB/s here is 1.024e9 bytes/s (docs/formulas.md, "Where it runs").
"""
from dataclasses import dataclass

from memcore import _lowlevel as ll
from memcore._memcore import lib

MB = 10**6
GB_PER_S = 1024 * MB

STATUS = {lib.MC_VERDICT_RUNS: "runs", lib.MC_VERDICT_WILL_NOT_FIT: "will_not_fit",
          lib.MC_VERDICT_TOO_SLOW: "too_slow"}


@dataclass(frozen=True)
class Device:
    name: str
    description: str
    memory_bytes: int
    read_bytes_per_second: float
    ops_per_second: float           # achieved: peak x efficiency
    overhead_seconds: float         # fixed per request
    latency_budget_seconds: float   # must answer within

    def _fields(self):
        return dict(memory_bytes=ll.count("memory_bytes", self.memory_bytes),
                    read_bytes_per_second=ll.rate("read_bytes_per_second", self.read_bytes_per_second),
                    ops_per_second=ll.rate("ops_per_second", self.ops_per_second),
                    overhead_seconds=ll.rate("overhead_seconds", self.overhead_seconds, allow_zero=True),
                    latency_budget_seconds=ll.rate("latency_budget_seconds", self.latency_budget_seconds))


# The four places.  Memory, read speed and latency budget are the teaching table's
# (docs/formulas.md); the arithmetic rates are peak x efficiency estimates, sourced per line.
_BUILTIN = (
    # One large accelerator: 80 GB HBM2e at 2,039 GB/s is an A100 80GB SXM; 312 TFLOP/s
    # dense FP16 tensor peak at 50 % achieved.
    Device("datacentre", "data centre (one large accelerator)", 80_000 * MB, 2_039 * GB_PER_S,
           312e12 * 0.5, 0.0, 0.500),
    # A workstation card with 8 GB at 200 GB/s; ~20 TFLOP/s FP16 peak at 50 %.
    Device("server", "local server (workstation card)", 8_000 * MB, 200 * GB_PER_S, 20e12 * 0.5, 0.0, 0.100),
    # One app's share of a phone: LPDDR5 at 50 GB/s; a ~4 TOPS NPU at 25 % achieved.
    Device("phone", "phone (one app's share)", 1_500 * MB, 50 * GB_PER_S, 4e12 * 0.25, 0.0, 0.050),
    # A microcontroller (an ESP32): 0.5 MB, 0.2 GB/s; one 240 MHz Xtensa LX6 core at about
    # one multiply-add (2 ops) per cycle with optimised int8 kernels, 50 % achieved.
    Device("microcontroller", "microcontroller (an ESP32)", 500_000, 0.2 * GB_PER_S, 240e6 * 2 * 0.5, 0.0, 0.010),
)


def devices():
    """The built-in devices by name."""
    return {d.name: d for d in _BUILTIN}


@dataclass(frozen=True)
class Verdict:
    status: str            # "runs", "will_not_fit" or "too_slow"
    read_seconds: float
    times_too_big: float   # model bytes / device memory

    def explain(self, device: Device) -> str:
        if self.status == "will_not_fit":
            return "will not fit: %.1f times bigger than the memory available" % self.times_too_big
        if self.status == "too_slow":
            return "too slow here: needs %.1f ms to read, budget %.1f ms" % (
                self.read_seconds * 1e3, device.latency_budget_seconds * 1e3)
        return "runs here: reads in %.2f ms" % (self.read_seconds * 1e3)

    def short(self) -> str:
        """A table cell: "runs 0.98 ms", "28x too big", "too slow 120 ms"."""
        if self.status == "will_not_fit":
            return "%.3gx too big" % self.times_too_big
        if self.status == "too_slow":
            return "too slow %.3g ms" % (self.read_seconds * 1e3)
        return "runs %.3g ms" % (self.read_seconds * 1e3)


def verdict(model_bytes, device: Device) -> Verdict:
    raw = ll.verdict(ll.count("model_bytes", model_bytes), device._fields())
    return Verdict(STATUS[raw.status], raw.read_seconds, raw.times_too_big)


# The reference model sizes, in numbers (parameters).
REFERENCE_MODELS = (
    ("wake-word spotter", 0.05e6), ("tiny image classifier", 0.5e6), ("MobileNet", 3.5e6),
    ("ResNet-50", 25e6), ("BERT base", 110e6), ("BERT large", 350e6), ("GPT-2", 1_500e6),
    ("7 B chat model", 7_000e6),
)
