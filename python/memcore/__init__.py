"""memcore: will this model fit on this board, and will it be quick enough?

Every number comes from the C core (csrc/), wrapped with cffi; this package turns
plain Python values into calls and results into dataclasses.
"""
from memcore._lowlevel import version as _version
from memcore.budget import Budget, budget, max_batch
from memcore.devices import Device, Verdict, devices, verdict
from memcore.errors import MemcoreError
from memcore.graph import Model, Operator, Tensor, load
from memcore.latency import Latency, latency
from memcore.layers import Layer, LayerReport, NetworkReport, layer_report, network_report
from memcore.planner import LiveBytes, Plan, live_bytes, plan
from memcore.roofline import Roofline, roofline
from memcore.tflm import Target, TflmArena, target_info, tflm_arena, unknown_ops
from memcore.training import MlpTraining, mlp_max_batch, mlp_training

__version__, API_VERSION = _version()

# `memcore.check(path, device=...)` is the one-call answer (a Report).  The submodule of
# the same name (the check's numbers) is imported first, so that importing it later
# finds it loaded and does not put the module back in place of the function.
import memcore.check as _check_module  # noqa: E402,F401
from memcore.report import Report, check  # noqa: E402


def version():
    """(memcore version string, API version number) of the C core in use."""
    return __version__, API_VERSION


__all__ = [
    "API_VERSION", "Budget", "Device", "LiveBytes", "Report", "check", "live_bytes", "Latency", "Layer", "LayerReport", "MemcoreError", "MlpTraining",
    "Model", "Operator", "Tensor", "Target", "TflmArena", "load", "target_info", "tflm_arena", "unknown_ops",
    "NetworkReport", "Plan", "Roofline", "Verdict", "budget", "devices", "latency", "layer_report",
    "max_batch", "mlp_max_batch", "mlp_training", "network_report", "plan", "roofline", "verdict",
    "version",
]
