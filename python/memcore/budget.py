"""The deployment budget — parameters + batch activations + runtime vs a limit."""
from dataclasses import dataclass
from typing import Optional

from memcore import _lowlevel as ll
from memcore._memcore import lib

TERMS = {lib.MC_TERM_PARAMETERS: "parameters", lib.MC_TERM_ACTIVATIONS: "activations",
         lib.MC_TERM_RUNTIME: "runtime"}


@dataclass(frozen=True)
class Budget:
    required_bytes: int
    headroom_bytes: int          # limit - required; negative: does not fit
    parameter_bytes: int
    activation_bytes: int
    runtime_bytes: int
    dominant: str                # "parameters", "activations" or "runtime"
    fits: bool
    max_batch: Optional[int]     # None: not even batch 0 fits; 2**63-1: no batch limit


def _max_batch(raw):
    return None if raw.max_batch < 0 else raw.max_batch


def budget(parameters, bytes_per_parameter, batch, activation_bytes_per_example, runtime_bytes,
           limit_bytes):
    """required = parameters x bytes_per_parameter + batch x activation_bytes_per_example
    + runtime_bytes, against limit_bytes.  bytes_per_parameter may be 0.5 (int4)."""
    raw = ll.budget(ll.count("parameters", parameters),
                    ll.bits("bytes_per_parameter", bytes_per_parameter),
                    ll.count("batch", batch),
                    ll.count("activation_bytes_per_example", activation_bytes_per_example),
                    ll.count("runtime_bytes", runtime_bytes),
                    ll.count("limit_bytes", limit_bytes))
    return Budget(raw.required_bytes, raw.headroom_bytes, raw.parameter_bytes, raw.activation_bytes,
                  raw.runtime_bytes, TERMS[raw.dominant], bool(raw.fits), _max_batch(raw))


def max_batch(parameters, bytes_per_parameter, activation_bytes_per_example, runtime_bytes,
              limit_bytes):
    """The largest batch that fits limit_bytes, or None when the fixed part alone does not."""
    return budget(parameters, bytes_per_parameter, 0, activation_bytes_per_example, runtime_bytes,
                  limit_bytes).max_batch
