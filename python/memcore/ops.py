"""Per-operator rows: what each operator computes, what is live while it runs, how long
it takes — the table `memcore ops`, `memcore check --layers`, the JSON and the HTML
report show.  The numbers are the C check's (mc_check_op_t, csrc/src/check.c):

- "Live while it runs" is the aligned bytes of the head's buffers whose lifetime covers
  the operator; the first operator with the most is marked the peak.
- Its share of the arena is those bytes over TFLM's planned arena.
- Its time is its operations at its class's rate, plus fetching what it reads that no
  earlier operator wrote (the constants it is first to read, a graph input the first
  time one is read) and writing its outputs.  The rows' times add up to the request's
  time less the fixed setup.
"""
from dataclasses import dataclass
from typing import List, Optional, Tuple



@dataclass(frozen=True)
class OperatorRow:
    index: int
    kind: str
    output_shapes: Tuple[Tuple[int, ...], ...]
    macs: int                # multiply-accumulates per example
    operations: int          # arithmetic operations per example: 2 per MAC plus the others
    weight_bytes: int
    live_bytes: int          # activation bytes alive while it runs (aligned)
    live_buffers: int
    arena_share: float       # live_bytes / TFLM's planned arena (0 when that is empty)
    fetch_bytes: int = 0     # bytes it moves per request (see the module docstring)
    seconds: Optional[float] = None          # its time per request on the device; None without one
    fetch_seconds: Optional[float] = None
    compute_seconds: Optional[float] = None
    is_peak: bool = False

    def to_json(self):
        return {
            "index": self.index, "operator": self.kind,
            "output_shapes": [list(s) for s in self.output_shapes],
            "macs": self.macs, "operations": self.operations, "weight_bytes": self.weight_bytes,
            "live_bytes": self.live_bytes, "live_buffers": self.live_buffers, "arena_share": self.arena_share,
            "fetch_bytes": self.fetch_bytes, "seconds": self.seconds, "fetch_seconds": self.fetch_seconds,
            "compute_seconds": self.compute_seconds, "is_peak": self.is_peak,
            # the request's fitted rates shared out by operation count (memcore.basis)
            "basis": {"seconds": "estimate", "fetch_seconds": "estimate", "compute_seconds": "estimate"},
        }


def rows_from_c(model, c_rows, arena_bytes):
    """OperatorRows of the C check's per-operator rows (mc_check_op_t); numbers per request."""
    rows = []
    for op in model.operators:
        c = c_rows[op.index]
        rows.append(OperatorRow(
            op.index, op.kind, tuple(model.tensors[o].shape for o in op.outputs if o >= 0), c.macs,
            c.operations, c.weights_bytes, c.live_bytes, c.live_buffers,
            c.live_bytes / arena_bytes if arena_bytes else 0.0, c.fetch_bytes, c.seconds, c.fetch_seconds,
            c.compute_seconds, is_peak=bool(c.peak)))
    return rows


def rates(profile, kernels, placement, model):
    """(bandwidth bytes/s, operations/s) `model` runs at on `profile`, from the C check:
    its arena region's read speed, and operations over compute time (the rate of its own
    mix of operator classes)."""
    from memcore.check import check
    report = check(model, profile, 1, kernels, placement, suggest=False)
    return report.bandwidth_bytes_per_second, report.ops_per_second
