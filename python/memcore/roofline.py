"""Batching moves the bottleneck from memory to compute."""
from dataclasses import dataclass
from typing import Optional

from memcore import _lowlevel as ll
from memcore._memcore import lib


@dataclass(frozen=True)
class Roofline:
    intensity: float                # ops per byte fetched at this batch
    bound: str                      # "memory" or "compute"
    crossover_batch: Optional[int]  # smallest compute-bound batch; None if none
    ceiling: float                  # ops_per_example / activation_bytes_per_example


def roofline(weight_bytes, activation_bytes_per_example, operations_per_example, machine_ops_per_byte, batch=1):
    raw = ll.roofline(ll.count("weight_bytes", weight_bytes),
                      ll.count("activation_bytes_per_example", activation_bytes_per_example),
                      ll.count("operations_per_example", operations_per_example),
                      ll.rate("machine_ops_per_byte", machine_ops_per_byte),
                      ll.count("batch", batch, 1))
    return from_c(raw)


def from_c(raw):
    """The Roofline of an mc_roofline_t."""
    return Roofline(raw.intensity, "memory" if raw.bound == lib.MC_BOUND_MEMORY else "compute",
                    None if raw.crossover_batch < 0 else raw.crossover_batch, raw.ceiling)
