"""Will this model fit on this device, why, and what would make it fit.

`check(model, profile)` gathers one deployment's numbers — weights and where they live,
the activation arena (TFLM's plan, memcore's, the lower bound), TFLM's runtime
overhead, required vs available memory, latency and regime — every one computed by the
C core through the public API (plan, tflm_arena, budget, latency, roofline, verdict).
The memory model is SPEC 1's budget with the arena as the per-example activation term:

    required = weights kept in RAM + batch x arena + runtime overhead

where runtime overhead is what TFLM adds to the planned arena (its persistent "tail"
and the temporary space it needs while allocating), so at batch 1 the arena part is
exactly TFLM's recommended arena size.  Scaling the arena with the batch assumes every
activation grows with it, which is how a batched model's tensors grow.
"""
import os
from dataclasses import dataclass, field
from typing import List, Optional

import memcore
from memcore.budget import Budget, budget, max_batch
from memcore.latency import Latency, latency
from memcore.profiles import Profile, builtin_profiles
from memcore.roofline import Roofline, roofline
from memcore.units import format_bytes

SCHEMA = "memcore.report/1"

# The board to suggest when a microcontroller runs out of internal RAM.
PSRAM_BOARD = "esp32-psram"


@dataclass(frozen=True)
class Suggestion:
    action: str              # what to change, in the user's words
    headroom_bytes: int      # headroom after the change (negative: still does not fit)
    estimate: bool = False   # True when derived by scaling, not measured on a real file

    @property
    def fits(self):
        return self.headroom_bytes >= 0


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
    runtime_overhead_bytes: int      # TFLM's persistent tail for this pointer width
    recommended_arena_bytes: int     # the arena size to give TFLM at this batch
    budget: Budget                   # required / headroom / dominant term (SPEC 1)
    flash_headroom_bytes: Optional[int]  # flash left after the weights, when they live there
    latency: Latency
    roofline: Roofline
    suggestions: List[Suggestion] = field(default_factory=list)

    @property
    def device(self):
        return self.profile.name

    @property
    def required_bytes(self):
        return self.budget.required_bytes

    @property
    def available_bytes(self):
        return self.profile.available_bytes

    @property
    def headroom_bytes(self):
        return self.budget.headroom_bytes

    @property
    def fits(self):
        return self.budget.fits and (self.flash_headroom_bytes is None or self.flash_headroom_bytes >= 0)

    @property
    def verdict(self):
        return "fits" if self.fits else "does_not_fit"

    @property
    def within_latency_budget(self):
        return self.latency.total_seconds <= self.profile.latency_budget_seconds

    @property
    def needs_heap_growth(self):
        """Fits only once the runtime has grown its heap past what is free at boot."""
        return self.fits and self.required_bytes > self.profile.available_bytes_at_boot

    def to_json(self):
        """The report as plain JSON values, following data/report.schema.json."""
        out = {
            "schema": SCHEMA,
            "model": self.model,
            "device": self.device,
            "memcore_version": memcore.__version__,
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
            "suggestions": [{"action": s.action, "headroom_bytes": s.headroom_bytes, "estimate": s.estimate}
                            for s in self.suggestions],
        }
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


def check(model, profile, batch=1, kernels="optimised", weights_placement=None, suggest=True,
          allow_unknown_ops=False):
    """One deployment of `model` (a memcore Model) on `profile`, with suggestions when it
    does not fit (suggest=False skips them, as the suggestions' own checks do)."""
    placement = weights_placement or profile.default_weights_placement()
    if placement == "flash" and not profile.has_flash:
        raise memcore.MemcoreError("device %r has no flash region to keep weights in" % profile.name)
    dtype = model_dtype(model)
    kernels_used = "reference" if dtype == "float32" else kernels

    tflm_plan = model.plan("tflm")
    best_plan = model.plan("best")
    arena = memcore.tflm_arena(model, target=profile.tflm_target, kernels=kernels_used,
                               allow_unknown=allow_unknown_ops)
    # What TFLM needs beyond the planned activations: the persistent tail and the
    # allocation-time scratch (the gap between its reported total and the smallest
    # arena that works) — both per interpreter, not per example.
    runtime_bytes = arena.recommended_arena_bytes - tflm_plan.arena_bytes
    weights_in_ram = model.weight_bytes if placement == "ram" else 0

    need = budget(weights_in_ram, 1, batch, tflm_plan.arena_bytes, runtime_bytes, profile.available_bytes)
    arena_only = budget(0, 1, batch, tflm_plan.arena_bytes, runtime_bytes, profile.available_bytes)
    flash_headroom = None
    if placement == "flash":
        flash_headroom = budget(model.weight_bytes, 1, 0, 0, 0, profile.regions["flash"].size_bytes).headroom_bytes

    # One bandwidth for all traffic: the slower of the regions the weights and the
    # activations sit in, so a PSRAM arena or flash-streamed weights are not flattered.
    bandwidth = min(profile.weights_bandwidth(placement), profile.regions[profile.arena_region].read_bytes_per_second)
    ops_rate = profile.ops_per_second(kernels_used)
    timing = latency(model.weight_bytes + batch * model.activation_bytes, batch * model.operations, bandwidth,
                     ops_rate, profile.overhead_seconds)
    regime = roofline(model.weight_bytes, model.activation_bytes, model.operations, ops_rate / bandwidth, batch)

    report = CheckReport(
        model=os.path.basename(model.path), model_path=model.path, profile=profile, batch=batch, dtype=dtype,
        kernels=kernels_used, operations=batch * model.operations, weights_bytes=model.weight_bytes, weights_placement=placement,
        arena_tflm_bytes=tflm_plan.arena_bytes, arena_best_bytes=best_plan.arena_bytes,
        arena_lower_bound_bytes=tflm_plan.lower_bound_bytes, runtime_overhead_bytes=arena.tail_bytes,
        recommended_arena_bytes=arena_only.required_bytes, budget=need, flash_headroom_bytes=flash_headroom,
        latency=timing, roofline=regime)
    if suggest and not report.fits:
        report.suggestions.extend(_suggestions(report, model, runtime_bytes, weights_in_ram, kernels))
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
