"""Device profiles as data: memory regions, op rates and where the model's bytes live.

A profile says, for one machine, how much memory a model may really use (not the
datasheet total), which region holds the activation arena and which the weights, how
fast each region reads, and the achieved operation rate of reference and optimised
kernels.  Built-ins: SPEC 4's four places (memcore.devices(), one region each) and the
microcontroller profiles of data/devices.toml.  Users add theirs with the same TOML
format (`--device-file`, docs/device-profiles.md).

`Profile.device()` turns a profile into the plain `memcore.Device` the C verdict takes.
"""
import math
from dataclasses import dataclass
from typing import Dict

try:
    import tomllib
except ImportError:  # Python < 3.11: the same parser, published as tomli
    import tomli as tomllib

from importlib import resources

from memcore._memcore import lib
from memcore.devices import Device, devices as spec_devices
from memcore.errors import MemcoreError
from memcore.targets import TARGETS, target_code

REGION_NAMES = ("ram", "psram", "flash", "memory")


@dataclass(frozen=True)
class MemoryRegion:
    name: str                       # "ram" (internal), "psram", "flash" or "memory" (one-region hosts)
    size_bytes: int
    read_bytes_per_second: float


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    regions: Dict[str, MemoryRegion]
    arena_region: str               # where activations (and weights kept in RAM) live
    weights_region: str             # where weights live by default: "flash" or the arena's region
    available_bytes: int            # what a model may use in arena_region, at most
    available_bytes_at_boot: int    # what is free before the runtime grows its heap
    ops_per_second_reference: float
    ops_per_second_optimised: float
    overhead_seconds: float         # fixed per request
    latency_budget_seconds: float   # must answer within
    pointer_bytes: int              # 4 on 32-bit microcontrollers, 8 on 64-bit hosts
    origin: str                     # "SPEC 4", "built-in" or the TOML file it came from
    target: str = "esp32"           # the ABI and TFLM build (memcore.targets.TARGETS)

    @property
    def has_flash(self):
        return "flash" in self.regions

    @property
    def has_psram(self):
        return "psram" in self.regions

    def default_weights_placement(self):
        """"flash" or "ram": the schema's words for where the weights sit by default."""
        return "flash" if self.weights_region == "flash" else "ram"

    def weights_bandwidth(self, placement):
        region = "flash" if placement == "flash" else self.arena_region
        return self.regions[region].read_bytes_per_second

    def ops_per_second(self, kernels):
        return self.ops_per_second_optimised if kernels == "optimised" else self.ops_per_second_reference

    def region_code(self, region):
        """The C core's region for one of this profile's regions ("memory" is a host's RAM)."""
        return {"ram": lib.MC_REGION_RAM, "memory": lib.MC_REGION_RAM, "psram": lib.MC_REGION_PSRAM,
                "flash": lib.MC_REGION_FLASH}[region]

    def board(self):
        """The profile as the C check's mc_board_t fields.  The arena's region offers what
        a model may use in it (available_bytes), the others their whole size."""
        regions = [{"bytes": 0, "read_bytes_per_second": 0.0} for _ in range(lib.MC_REGION_COUNT)]
        for name, region in self.regions.items():
            size = self.available_bytes if name == self.arena_region else region.size_bytes
            regions[self.region_code(name)] = {"bytes": size, "read_bytes_per_second": region.read_bytes_per_second}
        rate = [self.ops_per_second_reference, self.ops_per_second_optimised]
        return {
            "target": target_code(self.target),
            "regions": regions,
            "ram_bytes_at_boot": self.available_bytes_at_boot if self.region_code(self.arena_region) ==
            lib.MC_REGION_RAM else 0,
            # One achieved rate per kernel library for every operator class and both
            # numeric types, until the profile gives them per class.
            "ops_per_second": [[rate, rate] for _ in range(lib.MC_OPCLASS_COUNT)],
            "rates_include_region": 0,
            "overhead_seconds": self.overhead_seconds,
        }

    def device(self, kernels="optimised", placement=None):
        """The `memcore.Device` for the C verdict: the memory a model may use, read at
        the speed of the region its weights are read from."""
        return Device(self.name, self.description, self.available_bytes,
                               self.weights_bandwidth(placement or self.default_weights_placement()),
                               self.ops_per_second(kernels), self.overhead_seconds,
                               self.latency_budget_seconds)


# SPEC 4's microcontroller row is named "esp32" in memcore.devices(); here that name
# belongs to the truer ESP32 profile, so the 0.5 MB row is listed as "microcontroller".
_SPEC_RENAMES = {"esp32": "microcontroller"}


def _from_spec_device(d):
    region = MemoryRegion("memory", d.memory_bytes, d.read_bytes_per_second)
    return Profile(_SPEC_RENAMES.get(d.name, d.name), d.description, {"memory": region}, "memory", "memory",
                   d.memory_bytes, d.memory_bytes, d.ops_per_second, d.ops_per_second, d.overhead_seconds,
                   d.latency_budget_seconds, 4 if d.name == "esp32" else 8, "SPEC 4",
                   "esp32" if d.name == "esp32" else "host64")


_REQUIRED = ("description", "available_bytes", "ops_per_second_reference", "ops_per_second_optimised",
             "latency_budget_seconds", "regions")


def _number(where, table, key, kind=float, positive=True):
    value = table.get(key)
    ok_types = (int,) if kind is int else (int, float)
    if isinstance(value, bool) or not isinstance(value, ok_types):
        raise MemcoreError("%s: %s must be %s, got %r" % (where, key, "an integer" if kind is int else "a number",
                                                          value))
    if not math.isfinite(value):  # TOML has nan and inf
        raise MemcoreError("%s: %s must be finite, got %r" % (where, key, value))
    if value < 0 or (positive and value == 0):
        raise MemcoreError("%s: %s must be %s, got %r" % (where, key, "positive" if positive else "non-negative",
                                                          value))
    return kind(value)


def _profile_from_table(name, table, origin):
    where = "%s: device %r" % (origin, name)
    if not isinstance(table, dict):
        raise MemcoreError("%s must be a table" % where)
    missing = [k for k in _REQUIRED if k not in table]
    if missing:
        raise MemcoreError("%s is missing %s" % (where, ", ".join(missing)))
    raw_regions = table["regions"]
    if not isinstance(raw_regions, dict) or not raw_regions:
        raise MemcoreError("%s: regions must name at least one of %s" % (where, ", ".join(REGION_NAMES)))
    regions = {}
    for region_name, region in raw_regions.items():
        if region_name not in REGION_NAMES:
            raise MemcoreError("%s: unknown region %r (known: %s)" % (where, region_name, ", ".join(REGION_NAMES)))
        rwhere = "%s region %r" % (where, region_name)
        if not isinstance(region, dict):
            raise MemcoreError("%s must be a table" % rwhere)
        regions[region_name] = MemoryRegion(region_name, _number(rwhere, region, "size_bytes", int),
                                            _number(rwhere, region, "read_bytes_per_second"))
    arena_region = table.get("arena_region", "ram" if "ram" in regions else next(iter(regions)))
    weights_region = table.get("weights_region", "flash" if "flash" in regions else arena_region)
    for key, region_name in (("arena_region", arena_region), ("weights_region", weights_region)):
        if region_name not in regions:
            raise MemcoreError("%s: %s %r is not one of its regions (%s)" % (where, key, region_name,
                                                                            ", ".join(regions)))
    available = _number(where, table, "available_bytes", int)
    at_boot = _number(where, table, "available_bytes_at_boot", int) if "available_bytes_at_boot" in table \
        else available
    if available > regions[arena_region].size_bytes:
        raise MemcoreError("%s: available_bytes %d is more than its %s region holds (%d)"
                           % (where, available, arena_region, regions[arena_region].size_bytes))
    pointer_bytes = _number(where, table, "pointer_bytes", int) if "pointer_bytes" in table else 4
    if pointer_bytes not in (4, 8):
        raise MemcoreError("%s: pointer_bytes must be 4 or 8, got %d" % (where, pointer_bytes))
    overhead = _number(where, table, "overhead_seconds", positive=False) if "overhead_seconds" in table else 0.0
    target = table.get("target", "host64" if pointer_bytes == 8 else "esp32")
    if target not in TARGETS:
        raise MemcoreError("%s: target must be one of %s, got %r" % (where, ", ".join(TARGETS), target))
    return Profile(name, str(table["description"]), regions, arena_region, weights_region, available, at_boot,
                   _number(where, table, "ops_per_second_reference"),
                   _number(where, table, "ops_per_second_optimised"), overhead,
                   _number(where, table, "latency_budget_seconds"), pointer_bytes, origin, target)


def profiles_from_toml(text, origin):
    """Profiles from TOML text: one top-level table per device (see data/devices.toml)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise MemcoreError("%s: not valid TOML: %s" % (origin, exc)) from None
    if not data:
        raise MemcoreError("%s: defines no devices" % origin)
    return {name: _profile_from_table(name, table, origin) for name, table in data.items()}


def load_device_file(path):
    """Profiles from a user's TOML file; raises OSError if it cannot be read."""
    with open(path, "rb") as f:
        raw = f.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise MemcoreError("%s: not a UTF-8 TOML file" % path) from None
    return profiles_from_toml(text, str(path))


def builtin_profiles():
    """SPEC 4's four places, then the microcontroller profiles, by name."""
    found = {p.name: p for p in map(_from_spec_device, spec_devices().values())}
    text = resources.files("memcore").joinpath("data", "devices.toml").read_text(encoding="utf-8")
    found.update(profiles_from_toml(text, "built-in"))
    return found


def profiles(device_file=None):
    """Built-in profiles plus those of `device_file` (a user's profile replaces a
    built-in of the same name)."""
    found = builtin_profiles()
    if device_file is not None:
        found.update(load_device_file(device_file))
    return found


def profile(name, device_file=None):
    found = profiles(device_file)
    if name not in found:
        raise MemcoreError("unknown device %r; known: %s (see `memcore devices`)" % (name, ", ".join(found)))
    return found[name]
