"""Will this model fit on this board and meet its budgets, why, and what would change that.

`check(model, profile)` is one call into the C core (mc_check_graph, csrc/src/check.c):
the arena plans (TFLM's and memcore's on the same buffers, the lower bound), TFLM's
runtime overhead and recommended arena for the profile's target, memory per region
(RAM, PSRAM, flash against the model's partition), latency against its budget and the
duty cycle, energy, battery life, and the verdict with the resource that runs out
first all come back from it; this module turns the profile, the options and the
budgets into the C structs and the result into a CheckReport.  The board runs the same
function on the model file itself (micropython/memcore_boot.py), so host and board agree
by construction.

Every suggestion is that same check run again on the changed configuration (another
model file, kernels, weights placement, board of the same family, duty cycle): what it
shows is what `memcore check` says of that configuration, and its `command` is the
command line that says it.
"""
import math
import os
import shlex
from dataclasses import dataclass, field, replace
from typing import Dict, List, Optional

import memcore
from memcore import _lowlevel as ll
from memcore._memcore import ffi, lib
from memcore.budget import Budget, budget, max_batch
from memcore.latency import Latency, from_c as latency_from_c
from memcore.ops import OperatorRow, rows_from_c
from memcore.profiles import OPCLASSES, Profile, builtin_profiles
from memcore.roofline import Roofline, from_c as roofline_from_c
from memcore.targets import KERNEL_NAMES, enum_names, kernels_code
from memcore.units import format_bytes

SCHEMA = ffi.string(lib.mc_report_schema()).decode()

VERDICTS = enum_names(lib.mc_verdict_name, 4)
RESOURCES = enum_names(lib.mc_resource_name, lib.MC_RESOURCE_COUNT)
#: what each resource's need, limit and margin are counted in
RESOURCE_UNITS = {"ram": "bytes", "psram": "bytes", "flash": "bytes", "latency": "seconds", "battery": "joules"}


@dataclass(frozen=True)
class Budgets:
    """What the deployment must meet besides memory, only as the user gave it: a latency
    per request (None: the budget of the user's device file, if it gives one; 0: none), a
    duty cycle (inferences per hour; 0: back to back, for energy), and a battery (joules)
    that must last battery_life_seconds (0: no required life; the life it gives is still
    reported).  The built-in profiles carry no budget.  `given_on` says where the user
    gave these: "command line" (the options' names) or "arguments" (the Python API's)."""
    latency_seconds: Optional[float] = None
    inferences_per_hour: float = 0.0
    battery_joules: float = 0.0
    battery_life_seconds: float = 0.0
    given_on: str = "arguments"

    def latency_for(self, profile):
        return profile.latency_budget_seconds if self.latency_seconds is None else self.latency_seconds

    def sources(self, profile):
        """Where each budget in force came from: {budget: "--max-latency", "device file
        F", "max_latency argument", ...}; a budget nobody gave is absent."""
        found = {}
        for name, option, argument in _BUDGET_NAMES:
            value = getattr(self, name)
            if name == "latency_seconds" and value is None:
                if profile.latency_budget_seconds:
                    found[name] = "device file %s" % profile.origin
            elif value:
                found[name] = option if self.given_on == "command line" else "%s argument" % argument
        return found


# each budget: its field, the command-line option and the memcore.check() argument giving it
_BUDGET_NAMES = (("latency_seconds", "--max-latency", "max_latency"),
                 ("inferences_per_hour", "--per-hour", "per_hour"),
                 ("battery_joules", "--battery", "battery"),
                 ("battery_life_seconds", "--battery-life", "battery_life"))


@dataclass(frozen=True)
class Resource:
    """One resource of the verdict: what the model needs, the limit, the margin."""
    name: str                # "ram", "psram", "flash", "latency", "battery"
    fits: bool
    need: float              # bytes, seconds or joules (RESOURCE_UNITS)
    limit: float
    margin: float            # limit - need
    usage: float             # need / limit

    def to_json(self):
        return {"fits": self.fits, "need": self.need, "limit": self.limit, "margin": self.margin,
                "usage": self.usage, "unit": RESOURCE_UNITS[self.name]}


@dataclass(frozen=True)
class Deployment:
    """One configuration to check: everything `memcore check` takes."""
    model_path: str
    device: str
    batch: int = 1
    kernels: str = "optimised"
    weights_placement: Optional[str] = None    # None: the profile's default
    budgets: Budgets = Budgets()
    memcore_plan: bool = False
    as_int8: bool = False                      # the float32 model as its int8 conversion (estimate)
    available_bytes: Optional[int] = None
    allow_unknown_ops: bool = False
    device_file: Optional[str] = None

    def command(self):
        """The `memcore check` command line for this configuration."""
        words = ["memcore", "check", self.model_path, "--device", self.device]
        if self.device_file:
            words += ["--device-file", self.device_file]
        if self.batch != 1:
            words += ["--batch", str(self.batch)]
        if self.kernels != "optimised":
            words += ["--kernels", self.kernels]
        if self.weights_placement:
            words += ["--weights-in", self.weights_placement]
        if self.as_int8:
            words.append("--as-int8")
        if self.memcore_plan:
            words.append("--memcore-plan")
        if self.available_bytes is not None:
            words += ["--available-bytes", str(self.available_bytes)]
        if self.allow_unknown_ops:
            words.append("--allow-unknown-ops")
        b = self.budgets
        if b.latency_seconds is not None:
            words += ["--max-latency", "none" if b.latency_seconds == 0 else "%.6gs" % b.latency_seconds]
        if b.inferences_per_hour:
            words += ["--per-hour", "%.10g" % b.inferences_per_hour]
        if b.battery_joules:
            words += ["--battery", "%.10gJ" % b.battery_joules]
        if b.battery_life_seconds:
            words += ["--battery-life", "%.10gs" % b.battery_life_seconds]
        return " ".join(shlex.quote(w) for w in words)


@dataclass(frozen=True)
class Suggestion:
    """A change, and the check of the configuration it makes."""
    action: str              # what to change, in the user's words
    deployment: Deployment   # the changed configuration
    report: "CheckReport"    # the check on it (memcore check `command` says the same)
    estimate: bool = False   # the model is an estimate (quantised by memcore, no real int8 file)
    prepare: Optional[str] = None   # a command that makes the file the change needs (memcore shrink)

    @property
    def command(self):
        return self.deployment.command()

    @property
    def verdict(self):
        return self.report.verdict

    @property
    def fits(self):
        return self.report.verdict == "fits"

    @property
    def headroom_bytes(self):
        return self.report.headroom_bytes

    def to_json(self):
        r = self.report
        out = {"action": self.action, "command": self.command, "estimate": self.estimate, "verdict": r.verdict,
               "limiting_resource": r.limiting_resource, "headroom_bytes": r.headroom_bytes,
               "total_seconds": r.latency.total_seconds,
               "resources": {name: res.to_json() for name, res in r.resources.items()}}
        if self.prepare:
            out["prepare_command"] = self.prepare
        return out


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
    budgets: Budgets = Budgets()
    deployment: Optional[Deployment] = None
    operations_by_class: Dict[str, int] = field(default_factory=dict)
    compute_seconds_by_class: Dict[str, float] = field(default_factory=dict)
    memcore_plan: bool = False
    model_estimated_from: Optional[str] = None  # the model is memcore's int8 estimate of this file
    conversion: tuple = ()           # how an imported (ONNX) graph was planned for deployment
    config: Dict[str, object] = field(default_factory=dict)  # the C check's configuration (what export gives the board)
    c_check: object = field(default=None, repr=False, compare=False)  # the C check's mc_check_t itself

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
        b = self.budgets
        out.update({
            "weights_bytes": self.weights_bytes,
            "weights_placement": self.weights_placement,
            "arena_tflm_bytes": self.arena_tflm_bytes,
            "arena_best_bytes": self.arena_best_bytes,
            "arena_lower_bound_bytes": self.arena_lower_bound_bytes,
            "arena_plan": "memcore" if self.memcore_plan else "tflm",
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
            "compute_by_class": {c: {"operations": self.operations_by_class[c],
                                     "seconds": self.compute_seconds_by_class[c]} for c in OPCLASSES},
            "regime": self.roofline.bound,
            "limiting_resource": self.limiting_resource,
            "resources": {name: r.to_json() for name, r in self.resources.items()},
            "budgets": {"latency_seconds": b.latency_for(self.profile) or None,
                        "inferences_per_hour": b.inferences_per_hour or None,
                        "battery_joules": b.battery_joules or None,
                        "battery_life_seconds": b.battery_life_seconds or None,
                        "sources": b.sources(self.profile)},
            "cheaper_to": _cheaper(self.fields),
            "model_estimated_from": self.model_estimated_from,
            "conversion": list(self.conversion),
            "suggestions": [s.to_json() for s in self.suggestions],
        })
        return out


def _cheaper(fields):
    """"compute" when inferring on the board costs less energy than sending the input
    over its radio, "send" when sending does (the C check's cheaper_to_send); None
    without both figures."""
    if not fields.get("energy_joules") or not fields.get("radio_joules"):
        return None
    return "send" if fields["cheaper_to_send"] else "compute"


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


def c_config(model, profile, placement, batch=1, kernels="optimised", available_bytes=None,
             allow_unknown_ops=False, budgets=None, memcore_plan=False):
    """The C check's configuration (mc_check_config_set's names) for `model` on `profile`
    with the weights in `placement` ("flash" or "ram": loaded into the arena's region)
    against `budgets`: what the host checks with, and what `memcore export` gives the board."""
    budgets = budgets or Budgets()
    if placement not in ("flash", "ram"):
        raise memcore.MemcoreError("weights placement must be 'flash' or 'ram', got %r" % (placement,))
    if placement == "flash" and not profile.has_flash:
        raise memcore.MemcoreError("device %r has no flash region to keep weights in" % profile.name)
    kernels_code(kernels)  # a clear error for a bad name, before the C's generic one
    _check_budgets(budgets, profile)
    arena_region = "ram" if profile.arena_region == "memory" else profile.arena_region
    return {
        "kernels": kernels,
        "arena_region": arena_region,
        "weights_region": "flash" if placement == "flash" else arena_region,
        "batch": ll.count("batch", batch, 1),
        # The file is what sits in flash, and what loading the weights loads whole; an
        # ONNX model's (or an estimate's) deployed file is not known yet, so its weights
        # stand for it.
        "model_file_bytes": model.file_bytes if model.file_bytes is not None else model.weight_bytes,
        "available_bytes": -1 if available_bytes is None else ll.count("available_bytes", available_bytes),
        "latency_budget_seconds": budgets.latency_for(profile),
        "inferences_per_hour": float(budgets.inferences_per_hour),
        "battery_joules": float(budgets.battery_joules),
        "battery_life_seconds": float(budgets.battery_life_seconds),
        "allow_unknown_ops": bool(allow_unknown_ops),
        "memcore_plan": bool(memcore_plan),
    }


def check(model, profile, batch=1, kernels="optimised", weights_placement=None, suggest=True,
          available_bytes=None, allow_unknown_ops=False, budgets=None, memcore_plan=False, device_file=None):
    """One deployment of `model` (a memcore Model) on `profile` against `budgets`, with
    suggestions when it does not fit or misses a budget (suggest=False skips them, as
    the suggestions' own checks do).  `available_bytes` pins what the arena's region
    offers (a board's measurement)."""
    budgets = budgets or Budgets()
    placement = weights_placement or profile.default_weights_placement()
    config = c_config(model, profile, placement, batch, kernels, available_bytes, allow_unknown_ops, budgets,
                      memcore_plan)
    raw, c_rows = ll.check_graph(model.c_graph(), profile.board(), config, model.path, rows=True,
                                 device="device %r (%s)" % (profile.name, profile.origin))
    resources = {}
    for code, name in RESOURCES.items():
        res = raw.resources[code]
        if res.checked:
            resources[name] = Resource(name, bool(res.fits), res.need, res.limit, res.margin, res.usage)
    flash = raw.resources[lib.MC_RESOURCE_FLASH]
    head = raw.arena_best_bytes if memcore_plan else raw.arena_tflm_bytes
    path = model.estimated_from or model.path
    report = CheckReport(
        model=os.path.basename(path), model_path=path, profile=profile, batch=batch,
        dtype="float32" if raw.numeric == lib.MC_NUMERIC_FLOAT32 else "int8", kernels=KERNEL_NAMES[raw.kernels],
        operations=raw.operations, weights_bytes=raw.weights_bytes, weights_placement=placement,
        arena_tflm_bytes=raw.arena_tflm_bytes, arena_best_bytes=raw.arena_best_bytes,
        arena_lower_bound_bytes=raw.arena_lower_bound_bytes, runtime_overhead_bytes=raw.runtime_overhead_bytes,
        recommended_arena_bytes=raw.recommended_arena_bytes,
        # The required memory as the three terms of a budget, for the report's "largest term".
        budget=budget(raw.loaded_model_bytes, 1, batch, head, raw.runtime_bytes, raw.available_bytes),
        flash_headroom_bytes=flash.margin_bytes if flash.checked else None,
        latency=latency_from_c(raw.latency), roofline=roofline_from_c(raw.roofline),
        verdict=VERDICTS[raw.verdict], limiting_resource=RESOURCES[raw.limiting], resources=resources,
        minimum_arena_bytes=raw.tflm.minimum_arena_bytes, target=profile.target,
        estimated=bool(raw.tflm.upper_bound), required=raw.required_bytes, available=raw.available_bytes,
        headroom=raw.headroom_bytes, heap_growth=bool(raw.needs_heap_growth),
        layers=rows_from_c(model, c_rows, raw.arena_tflm_bytes), ops_per_second=raw.ops_per_second,
        bandwidth_bytes_per_second=raw.arena_bytes_per_second, fields=ll.check_fields(raw), config=config,
        budgets=budgets,
        operations_by_class={c: raw.operations_by_class[i] for i, c in enumerate(OPCLASSES)},
        compute_seconds_by_class={c: raw.compute_seconds_by_class[i] for i, c in enumerate(OPCLASSES)},
        memcore_plan=bool(memcore_plan), model_estimated_from=model.estimated_from,
        conversion=tuple(model.conversion),
        deployment=Deployment(path, profile.name, batch, kernels, weights_placement, budgets, bool(memcore_plan),
                              model.estimated_from is not None, available_bytes, bool(allow_unknown_ops),
                              device_file if profile.origin != "built-in" else None),
        c_check=raw)
    if suggest and report.verdict != "fits":
        report.suggestions.extend(_suggestions(report, model))
    return report


def _check_budgets(budgets, profile):
    """Budgets are the user's: refused with a message naming the option."""
    for name, value in (("--max-latency", budgets.latency_seconds), ("--per-hour", budgets.inferences_per_hour),
                        ("--battery", budgets.battery_joules), ("--battery-life", budgets.battery_life_seconds)):
        if value is not None and (not isinstance(value, (int, float)) or isinstance(value, bool)
                                  or not math.isfinite(value) or value < 0):
            raise memcore.MemcoreError("%s must be a finite number of at least 0, got %r" % (name, value))
    if budgets.inferences_per_hour and not budgets.inferences_per_hour <= 3.6e9:
        raise memcore.MemcoreError("--per-hour %r: more than a million inferences a second" %
                                   budgets.inferences_per_hour)
    if budgets.battery_life_seconds and not budgets.battery_joules:
        raise memcore.MemcoreError("--battery-life needs --battery: the capacity the board runs from")
    if budgets.battery_life_seconds and profile.power is None:
        raise memcore.MemcoreError("device %r has no power figures (a power table in its profile), so its battery "
                                   "life cannot be checked" % profile.name)


# ---- suggestions: each one the check on the changed configuration -------------------------

def _recheck(report, model, action, estimate=False, **changes):
    """The Suggestion for `changes` to the report's deployment (model, device, kernels,
    weights_placement, budgets, batch, memcore_plan), checked."""
    d = replace(report.deployment, **{k: v for k, v in changes.items() if k not in ("model_obj", "profile")})
    profile = changes.get("profile", report.profile)
    checked = check(changes.get("model_obj", model), profile, d.batch, d.kernels, d.weights_placement,
                    suggest=False, available_bytes=d.available_bytes, allow_unknown_ops=d.allow_unknown_ops,
                    budgets=d.budgets, memcore_plan=d.memcore_plan, device_file=d.device_file)
    return Suggestion(action, checked.deployment, checked, estimate)


def _family_boards(report):
    """The other boards of the profile's family (never another family's: no ESP32 for a
    Cortex-M user), built-in ones and the user's device file's."""
    profile = report.profile
    found = dict(builtin_profiles())
    if report.deployment.device_file:
        from memcore.profiles import load_device_file
        found.update(load_device_file(report.deployment.device_file))
    return [p for p in found.values() if p.family == profile.family and p.name != profile.name]


def _quantised(report, model):
    """The int8 model: the real sibling file, or memcore's estimate of the conversion."""
    from memcore.quantise import as_int8
    if report.dtype != "float32":
        return None
    sibling = sibling_int8_path(report.model_path)
    if sibling:
        return (memcore.load(sibling), "quantise float32 → int8 (%s, a real converted file)"
                % os.path.basename(sibling), sibling, False)
    return (as_int8(model), "quantise float32 → int8 (estimate: memcore's int8 conversion of this graph, "
                            "no converted file checked)", report.model_path, True)


def _suggestions(report, model):
    found = []
    limiting, d = report.limiting_resource, report.deployment
    quantised = _quantised(report, model)

    def add(action, estimate=False, **changes):
        s = _recheck(report, model, action, estimate, **changes)
        if all(s.command != other.command for other in found):
            found.append(s)

    if quantised and limiting in ("ram", "psram", "flash", "latency", "battery"):
        q_model, words, q_path, estimate = quantised
        add(words, estimate, model_obj=q_model, model_path=q_path, as_int8=estimate)

    if report.verdict == "does_not_fit" and limiting in ("ram", "psram"):
        if report.weights_placement == "ram" and report.profile.has_flash:
            add("keep the weights in flash (a memory-mapped partition or frozen into the firmware) instead of "
                "loading them into RAM", weights_placement="flash")
        if report.arena_best_bytes < report.arena_tflm_bytes and not report.memcore_plan:
            _add_shrink(report, model, found)
        if report.batch > 1:
            head = report.arena_best_bytes if report.memcore_plan else report.arena_tflm_bytes
            largest = max_batch(report.fields["loaded_model_bytes"], 1, head, report.budget.runtime_bytes,
                                report.available_bytes)
            if largest:
                add("a smaller batch: %d instead of %d" % (largest, report.batch), batch=largest)

    if report.kernels == "reference" and report.dtype == "int8" and limiting in ("latency", "battery"):
        add("the vendor's optimised kernels (ESP-NN, CMSIS-NN) instead of TFLM's reference ones",
            kernels="optimised")

    # the C check says when the duty cycle's period, not the budget per request, limits
    if limiting == "battery" or (limiting == "latency" and report.fields.get("latency_limit_is_period")):
        most = math.floor(report.fields.get("max_inferences_per_hour", 0))
        if most >= 1 and most < report.budgets.inferences_per_hour:
            add("a lower duty cycle: %d inferences per hour instead of %g" % (most, report.budgets.inferences_per_hour),
                budgets=replace(report.budgets, inferences_per_hour=float(most)))

    boards = _family_boards(report)
    if boards:
        add_board = _board_suggestion(report, model, boards, limiting)
        if add_board is not None and all(add_board.command != s.command for s in found):
            found.append(add_board)
    return found


def _add_shrink(report, model, found):
    """memcore's arena plan written into the model (memcore shrink), when that changes the
    verdict: checked as TFLM with memcore's plan as its head (the C check's
    arena_best_bytes, `--memcore-plan`).  A TFLite file only: shrink writes TFLite."""
    if model.format != "tflite" or model.estimated_from:
        return
    s = _recheck(report, model, "write memcore's arena plan into the model as TFLM's offline plan (a %s smaller "
                 "head), then deploy the shrunk file" % format_bytes(report.arena_tflm_bytes - report.arena_best_bytes),
                 memcore_plan=True)
    if s.verdict == report.verdict or any(s.command == other.command for other in found):
        return
    out = os.path.splitext(report.model_path)[0] + "_shrunk.tflite"
    words = ["memcore", "shrink", report.model_path, "-o", out, "--target", report.target]
    if report.kernels != "optimised":
        words += ["--kernels", report.kernels]
    found.append(replace(s, prepare=" ".join(shlex.quote(w) for w in words)))


def _board_suggestion(report, model, boards, limiting):
    """The board of the family that answers the limiting resource best: more memory or
    flash for memory, a faster chip for time, less energy for the battery.  The C core
    says which boards can help and, of their checks, which to name."""
    d = report.deployment
    checked = []
    for p in boards:
        if not ll.board_may_help(report.c_check, p.board(), p.region_code(p.arena_region)):
            continue
        placement = d.weights_placement
        if placement == "flash" and not p.has_flash:
            placement = None
        s = _recheck(report, model, "", profile=p, device=p.name, weights_placement=placement,
                     available_bytes=None, device_file=d.device_file)
        checked.append((p, s))
    pick = ll.board_pick(report.c_check, [s.report.c_check for _, s in checked])
    if pick is None:
        return None
    p, s = checked[pick]
    what = {"latency": "a faster chip of the same family", "battery": "a board of the same family that uses less "
            "energy"}.get(limiting, "a board of the same family with more %s" % (
                "flash" if limiting == "flash" else "memory"))
    return replace(s, action="%s: %s (%s)" % (what, p.name, p.description))
