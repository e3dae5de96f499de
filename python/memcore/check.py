"""Will this model fit on this device, why, and what would make it fit.

`check(model, profile)` is one call into the C core (mc_check_graph, csrc/src/check.c):
the arena plans (TFLM's and memcore's on the same buffers, the lower bound), TFLM's
runtime overhead and recommended arena for the profile's target, memory per region
(RAM, PSRAM, flash), latency, energy and the verdict with the resource that runs out
first all come back from it; this module turns the profile and options into the C
structs and the result into a CheckReport.  The board runs the same function on the
model file itself (micropython/memcore_boot.py), so host and board agree by
construction.
"""
import os
from dataclasses import dataclass, field
from typing import Dict, List, Optional

import memcore
from memcore import _lowlevel as ll
from memcore._memcore import ffi, lib
from memcore.budget import Budget, budget, max_batch
from memcore.latency import Latency, from_c as latency_from_c
from memcore.ops import OperatorRow, rows_from_c
from memcore.profiles import Profile, builtin_profiles
from memcore.roofline import Roofline, from_c as roofline_from_c
from memcore.targets import KERNEL_NAMES, enum_names, kernels_code
from memcore.units import format_bytes

SCHEMA = ffi.string(lib.mc_report_schema()).decode()

# The board to suggest when a microcontroller runs out of internal RAM.
PSRAM_BOARD = "esp32-psram"

VERDICTS = enum_names(lib.mc_verdict_name, 4)
RESOURCES = enum_names(lib.mc_resource_name, lib.MC_RESOURCE_COUNT)


@dataclass(frozen=True)
class Suggestion:
    action: str              # what to change, in the user's words
    headroom_bytes: int      # headroom after the change (negative: still does not fit)
    estimate: bool = False   # True when derived by scaling, not measured on a real file

    @property
    def fits(self):
        return self.headroom_bytes >= 0


@dataclass(frozen=True)
class Resource:
    """One resource of the verdict: what the model needs, the limit, the margin."""
    name: str                # "ram", "psram", "flash", "latency", "battery"
    fits: bool
    need: float              # bytes, seconds or joules
    limit: float
    margin: float            # limit - need
    usage: float             # need / limit


@dataclass(frozen=True)
class CheckReport:
    model: str                       # the model file's name
    model_path: str
    profile: Profile
    batch: int
    dtype: str                       # "float32" or "int8": which kernels can run it
    kernels: str                     # kernels the op rate assumes: "optimised" or "reference"
    operations: int                  # arithmetic operations per request (batch x per example)
    weights_bytes: int
    weights_placement: str           # "flash" or "ram"
    arena_tflm_bytes: int            # activation arena per example, TFLM's planner
    arena_best_bytes: int            # memcore's planner
    arena_lower_bound_bytes: int     # no placement can need less
    runtime_overhead_bytes: int      # TFLM's persistent tail for this target
    recommended_arena_bytes: int     # the arena size to give TFLM at this batch
    budget: Budget                   # required / headroom / dominant term
    flash_headroom_bytes: Optional[int]  # flash left after the model file, when it lives there
    latency: Latency
    roofline: Roofline
    suggestions: List[Suggestion] = field(default_factory=list)
    verdict: str = "fits"            # "fits", "does_not_fit" or "misses_budget"
    limiting_resource: str = "ram"   # the resource that runs out first (the tightest if all fit)
    resources: Dict[str, Resource] = field(default_factory=dict)
    minimum_arena_bytes: int = 0     # the smallest arena TFLM accepts (per example at batch 1)
    target: str = "esp32"
    estimated: bool = False          # TFLM's numbers are upper-bound estimates for some operators
    required: int = 0                # required bytes in the arena's region
    available: int = 0
    headroom: int = 0
    heap_growth: bool = False
    layers: List[OperatorRow] = field(default_factory=list)  # one per operator, from the C check
    ops_per_second: float = 0.0      # the effective rate of the model's mix of operators
    bandwidth_bytes_per_second: float = 0.0  # the arena region's read speed
    fields: Dict[str, object] = field(default_factory=dict)  # the C check's report fields, in order
    config: Dict[str, object] = field(default_factory=dict)  # the configuration it was checked with

    @property
    def device(self):
        return self.profile.name

    @property
    def required_bytes(self):
        return self.required

    @property
    def available_bytes(self):
        return self.available

    @property
    def headroom_bytes(self):
        return self.headroom

    @property
    def fits(self):
        """Memory and flash suffice (the latency and battery budgets aside)."""
        return self.verdict != "does_not_fit"

    @property
    def within_latency_budget(self):
        latency = self.resources.get("latency")
        return latency is None or latency.fits

    @property
    def needs_heap_growth(self):
        """Fits only once the runtime has grown its heap past what is free at boot."""
        return self.heap_growth

    def to_json(self):
        """The report as plain JSON values, following data/report.schema.json: the C
        check's fields (the ones the board's report line carries, named by the C core),
        then the host's own."""
        out = {
            "schema": SCHEMA,
            "model": self.model,
            "device": self.device,
            "memcore_version": memcore.__version__,
        }
        out.update(self.fields)
        out.update({
            "weights_bytes": self.weights_bytes,
            "weights_placement": self.weights_placement,
            "arena_tflm_bytes": self.arena_tflm_bytes,
            "arena_best_bytes": self.arena_best_bytes,
            "arena_lower_bound_bytes": self.arena_lower_bound_bytes,
            "runtime_overhead_bytes": self.runtime_overhead_bytes,
            "recommended_arena_bytes": self.recommended_arena_bytes,
            "required_bytes": self.required_bytes,
            "available_bytes": self.available_bytes,
            "headroom_bytes": self.headroom_bytes,
            "verdict": self.verdict,
            "batch": self.batch,
            "latency": {
                "fetch_seconds": self.latency.fetch_seconds,
                "compute_seconds": self.latency.compute_seconds,
                "setup_seconds": self.latency.setup_seconds,
                "total_seconds": self.latency.total_seconds,
                "dominant": self.latency.dominant,
            },
            "regime": self.roofline.bound,
            "limiting_resource": self.limiting_resource,
            "resources": {name: {"fits": r.fits, "need": r.need, "limit": r.limit, "margin": r.margin}
                          for name, r in self.resources.items()},
            "suggestions": [{"action": s.action, "headroom_bytes": s.headroom_bytes, "estimate": s.estimate}
                            for s in self.suggestions],
        })
        return out


def model_dtype(model):
    """"float32" when any weight is stored as float32, else "int8".  ESP-NN and CMSIS-NN
    optimise int8 kernels only, so a float32 model runs TFLM's reference kernels."""
    return "float32" if any(t.is_constant and t.dtype == "float32" for t in model.tensors) else "int8"


def sibling_int8_path(path):
    """The int8 version of a float32 model named like the shared models
    (`x_float32.tflite` → `x_int8.tflite`), if it exists."""
    folder, name = os.path.split(path)
    if "float32" not in name:
        return None
    candidate = os.path.join(folder, name.replace("float32", "int8"))
    return candidate if os.path.isfile(candidate) else None


def deployment(model, profile, placement, batch=1, kernels="optimised", available_bytes=None,
               allow_unknown_ops=False):
    """The C check's configuration (mc_check_config_set's names) for `model` on `profile`
    with the weights in `placement` ("flash" or "ram": loaded into the arena's region):
    what the host checks with, and what `memcore export` gives the board."""
    if placement == "flash" and not profile.has_flash:
        raise memcore.MemcoreError("device %r has no flash region to keep weights in" % profile.name)
    kernels_code(kernels)  # a clear error for a bad name, before the C's generic one
    arena_region = "ram" if profile.arena_region == "memory" else profile.arena_region
    return {
        "kernels": kernels,
        "arena_region": arena_region,
        "weights_region": "flash" if placement == "flash" else arena_region,
        "batch": ll.count("batch", batch, 1),
        # The file is what sits in flash; an ONNX model's deployed file is not known
        # yet, so its weights stand for it.
        "model_file_bytes": (model.file_bytes if model.file_bytes is not None else model.weight_bytes)
        if profile.has_flash else 0,
        "available_bytes": -1 if available_bytes is None else ll.count("available_bytes", available_bytes),
        "latency_budget_seconds": profile.latency_budget_seconds,
        "allow_unknown_ops": bool(allow_unknown_ops),
    }


def check(model, profile, batch=1, kernels="optimised", weights_placement=None, suggest=True,
          available_bytes=None, allow_unknown_ops=False):
    """One deployment of `model` (a memcore Model) on `profile`, with suggestions when it
    does not fit (suggest=False skips them, as the suggestions' own checks do).
    `available_bytes` pins what the arena's region offers (a board's measurement)."""
    placement = weights_placement or profile.default_weights_placement()
    config = deployment(model, profile, placement, batch, kernels, available_bytes, allow_unknown_ops)
    raw, c_rows = ll.check_graph(model.c_graph(), profile.board(), config, model.path, rows=True)
    resources = {}
    for code, name in RESOURCES.items():
        res = raw.resources[code]
        if res.checked:
            resources[name] = Resource(name, bool(res.fits), res.need, res.limit, res.margin, res.usage)
    weights_in_ram = model.weight_bytes if placement == "ram" else 0
    flash = raw.resources[lib.MC_RESOURCE_FLASH]
    report = CheckReport(
        model=os.path.basename(model.path), model_path=model.path, profile=profile, batch=batch,
        dtype="float32" if raw.numeric == lib.MC_NUMERIC_FLOAT32 else "int8", kernels=KERNEL_NAMES[raw.kernels],
        operations=raw.operations, weights_bytes=raw.weights_bytes, weights_placement=placement,
        arena_tflm_bytes=raw.arena_tflm_bytes, arena_best_bytes=raw.arena_best_bytes,
        arena_lower_bound_bytes=raw.arena_lower_bound_bytes, runtime_overhead_bytes=raw.runtime_overhead_bytes,
        recommended_arena_bytes=raw.recommended_arena_bytes,
        # The required memory as the three terms of a budget, for the report's "largest term".
        budget=budget(weights_in_ram, 1, batch, raw.arena_tflm_bytes, raw.runtime_bytes, raw.available_bytes),
        flash_headroom_bytes=flash.margin_bytes if flash.checked else None,
        latency=latency_from_c(raw.latency), roofline=roofline_from_c(raw.roofline),
        verdict=VERDICTS[raw.verdict], limiting_resource=RESOURCES[raw.limiting], resources=resources,
        minimum_arena_bytes=raw.tflm.minimum_arena_bytes, target=profile.target,
        estimated=bool(raw.tflm.upper_bound), required=raw.required_bytes, available=raw.available_bytes,
        headroom=raw.headroom_bytes, heap_growth=bool(raw.needs_heap_growth),
        layers=rows_from_c(model, c_rows, raw.arena_tflm_bytes), ops_per_second=raw.ops_per_second,
        bandwidth_bytes_per_second=raw.arena_bytes_per_second, fields=ll.check_fields(raw), config=config)
    if suggest and not report.fits:
        report.suggestions.extend(_suggestions(report, model, raw.runtime_bytes, weights_in_ram, kernels))
    return report


def _suggestions(report, model, runtime_bytes, weights_in_ram, kernels):
    profile, batch = report.profile, report.batch
    available = profile.available_bytes
    found = []

    if report.dtype == "float32":
        sibling = sibling_int8_path(report.model_path)
        if sibling:
            quantised = check(memcore.load(sibling), profile, batch, kernels, report.weights_placement, suggest=False)
            found.append(Suggestion("quantise float32 → int8 (measured on %s)" % os.path.basename(sibling),
                                    quantised.headroom_bytes))
        else:
            # Quantising keeps every value and shrinks its width from 4 bytes to 1
            # (SPEC 1), so weights and activations take a quarter; TFLM's overhead stays.
            int8_arena_bytes = -(-report.arena_tflm_bytes // 4)
            estimate = budget(weights_in_ram, 0.25, batch, int8_arena_bytes, runtime_bytes, available)
            found.append(Suggestion("quantise float32 → int8 (estimate: weights and activations ÷ 4)",
                                    estimate.headroom_bytes, estimate=True))

    if report.arena_best_bytes < report.arena_tflm_bytes:
        best = budget(weights_in_ram, 1, batch, report.arena_best_bytes, runtime_bytes, available)
        found.append(Suggestion("use memcore's arena plan instead of TFLM's (%s smaller; load it as TFLM "
                                "offline-planned offsets)"
                                % format_bytes(report.arena_tflm_bytes - report.arena_best_bytes),
                                best.headroom_bytes))

    if report.weights_placement == "ram" and profile.has_flash:
        in_flash = budget(0, 1, batch, report.arena_tflm_bytes, runtime_bytes, available)
        found.append(Suggestion("keep the weights in flash (freeze them into the firmware or a memory-mapped "
                                "partition) instead of loading them into RAM", in_flash.headroom_bytes))

    if not profile.has_psram and profile.origin != "SPEC 4" and profile.name != PSRAM_BOARD:
        board = builtin_profiles()[PSRAM_BOARD]
        on_board = check(model, board, batch, kernels, "flash" if board.has_flash else None, suggest=False)
        found.append(Suggestion("a board with PSRAM (%s: %s free)" % (board.name, format_bytes(board.available_bytes)),
                                on_board.headroom_bytes))

    if batch > 1:
        largest = max_batch(weights_in_ram, 1, report.arena_tflm_bytes, runtime_bytes, available)
        if largest:
            smaller = budget(weights_in_ram, 1, largest, report.arena_tflm_bytes, runtime_bytes, available)
            found.append(Suggestion("a smaller batch: %d instead of %d" % (largest, batch), smaller.headroom_bytes))
    return found
