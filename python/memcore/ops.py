"""Per-operator memory: what each operator computes and what is live while it runs.

"Live while it runs" is the activation buffers whose lifetime covers the operator,
aligned as the planner aligns them: the C planner's lower bound for just those
buffers, so the largest row equals the model's liveness lower bound exactly."""
from dataclasses import dataclass
from typing import List, Tuple

from memcore.planner import plan


@dataclass(frozen=True)
class OperatorRow:
    index: int
    kind: str
    output_shapes: Tuple[Tuple[int, ...], ...]
    macs: int
    weight_bytes: int
    live_bytes: int          # activation bytes alive while it runs (aligned)
    live_buffers: int
    is_peak: bool = False


def live_bytes_at(model, scope, lifetimes=None, alignment=16):
    """(bytes, buffer count) of the planned tensors alive at TFLM scope `scope`
    (operator k runs at scope k + 1)."""
    lifetimes = model.lifetimes() if lifetimes is None else lifetimes
    alive = [i for i, (first, last) in lifetimes.items() if first <= scope <= last]
    if not alive:
        return 0, 0
    sizes = [model.tensors[i].bytes for i in alive]
    # Every buffer overlaps every other at this one scope, so the planner's lower bound
    # is their aligned total.
    return plan(sizes, [0] * len(sizes), [0] * len(sizes), alignment=alignment).lower_bound_bytes, len(alive)


def operator_rows(model) -> List[OperatorRow]:
    lifetimes = model.lifetimes()
    rows = []
    for op in model.operators:
        live, count = live_bytes_at(model, op.index + 1, lifetimes)
        rows.append(OperatorRow(op.index, op.kind, tuple(model.tensors[o].shape for o in op.outputs if o >= 0),
                                op.macs, op.weight_bytes, live, count))
    if rows:
        peak = max(rows, key=lambda r: r.live_bytes).index
        rows = [OperatorRow(**{**r.__dict__, "is_peak": r.index == peak}) for r in rows]
    return rows
