"""Training memory: values held in one training update of a multilayer perceptron."""
from dataclasses import dataclass
from typing import Optional

from memcore import _lowlevel as ll


@dataclass(frozen=True)
class MlpTraining:
    parameters: int
    gradients: int
    optimizer_state: int
    activations: int
    total: int              # values
    total_bytes: int        # at bytes_per_value
    activation_share: float


def mlp_training(inputs, hidden, layers, batch, optimizer_state_per_parameter=0, bytes_per_value=4):
    """Training values for g inputs, L hidden layers of width h and one output."""
    raw = ll.mlp_training(ll.count("inputs", inputs, 1), ll.count("hidden", hidden, 1),
                          ll.count("layers", layers, 1), ll.count("batch", batch),
                          ll.count("optimizer_state_per_parameter", optimizer_state_per_parameter),
                          ll.bits("bytes_per_value", bytes_per_value))
    return MlpTraining(raw.parameters, raw.gradients, raw.optimizer_state, raw.activations, raw.total,
                       raw.total_bytes, raw.activation_share)


def mlp_max_batch(inputs, hidden, layers, budget_values=None, optimizer_state_per_parameter=0,
                  budget_bytes=None, bytes_per_value=4) -> Optional[int]:
    """Largest batch under a budget of values (or of bytes, given bytes_per_value);
    None when not even batch 0 fits."""
    if (budget_values is None) == (budget_bytes is None):
        raise ll.MemcoreError("give exactly one of budget_values and budget_bytes")
    if budget_values is not None:
        amount, width = ll.count("budget_values", budget_values), 0
    else:
        amount, width = ll.count("budget_bytes", budget_bytes), ll.bits("bytes_per_value", bytes_per_value)
    result = ll.mlp_max_batch(ll.count("inputs", inputs, 1), ll.count("hidden", hidden, 1),
                              ll.count("layers", layers, 1), amount,
                              ll.count("optimizer_state_per_parameter", optimizer_state_per_parameter),
                              width)
    return None if result < 0 else result
