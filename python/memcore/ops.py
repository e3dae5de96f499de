"""Per-operator rows: what each operator computes, what is live while it runs, how long
it takes — the table `memcore ops`, `memcore check --layers`, the JSON and the HTML
report show.

- "Live while it runs" is the aligned bytes of the planned buffers whose lifetime covers
  the operator, from the C core's mc_live_bytes over the lifetimes the planner takes;
  the largest row is the model's liveness lower bound exactly, and it is marked the peak.
- Its share of the arena is those bytes over TFLM's planned arena.
- Its time is the C core's latency (mc_latency) of the operator alone: its operations at
  the device's rate, plus fetching what it reads that no earlier operator wrote (its
  weights, and a graph input the first time one is read) and writing its outputs.  The
  rows' times add up to the request's time less the fixed setup.
"""
from dataclasses import dataclass
from typing import List, Optional, Tuple

from memcore.latency import latency
from memcore.planner import live_bytes


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
        }


def rates(profile, kernels, placement):
    """(bandwidth bytes/s, operations/s) a deployment runs at: the slower of the regions
    the weights and the activations sit in (as memcore.check assumes), and the op rate
    of the kernels used."""
    bandwidth = min(profile.weights_bandwidth(placement), profile.regions[profile.arena_region].read_bytes_per_second)
    return bandwidth, profile.ops_per_second(kernels)


def live_per_operator(model, alignment=16):
    """memcore.LiveBytes over the model's planned tensors, in the planner's steps
    (TFLM scope + 1: operator k is step k + 2)."""
    lifetimes = model.lifetimes()
    indices = list(lifetimes)
    return live_bytes([model.tensors[i].bytes for i in indices], [lifetimes[i][0] + 1 for i in indices],
                      [lifetimes[i][1] + 1 for i in indices], n_steps=len(model.operators) + 2,
                      alignment=alignment)


def _fetch_bytes(model, op, batch, seen_inputs):
    """What `op` moves per request: its weights once, its outputs and the graph inputs
    it is the first to read, per example."""
    activations = sum(model.tensors[o].bytes for o in op.outputs if o >= 0 and not model.tensors[o].is_constant)
    for i in op.inputs:
        if i >= 0 and i in model.inputs and i not in seen_inputs:
            seen_inputs.add(i)
            activations += model.tensors[i].bytes
    return op.weight_bytes + batch * activations


def operator_rows(model, profile=None, batch=1, kernels="reference", placement=None) -> List[OperatorRow]:
    """One row per operator of `model`; with a device profile, also each one's time at
    `batch` with `kernels` ("reference" or "optimised", the ones the deployment uses) and
    the weights in `placement`."""
    live = live_per_operator(model)
    arena = model.plan("tflm").arena_bytes
    speeds = rates(profile, kernels, placement or profile.default_weights_placement()) if profile else None
    seen_inputs = set()
    rows = []
    for op in model.operators:
        step = op.index + 2
        fetch = _fetch_bytes(model, op, batch, seen_inputs)
        timing = latency(fetch, batch * op.operations, speeds[0], speeds[1], 0.0) if speeds else None
        rows.append(OperatorRow(
            op.index, op.kind, tuple(model.tensors[o].shape for o in op.outputs if o >= 0), op.macs,
            op.operations, op.weight_bytes, live.bytes[step], live.buffers[step],
            live.bytes[step] / arena if arena else 0.0, fetch,
            timing.total_seconds if timing else None, timing.fetch_seconds if timing else None,
            timing.compute_seconds if timing else None, is_peak=step == live.peak_step))
    if rows and not any(r.is_peak for r in rows):
        # The peak falls outside every operator (a buffer no operator touches): mark the
        # operator with the most bytes live instead.
        peak = max(rows, key=lambda r: r.live_bytes).index
        rows = [OperatorRow(**{**r.__dict__, "is_peak": r.index == peak}) for r in rows]
    return rows
