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
import re
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
from memcore.targets import TARGETS

REGION_NAMES = ("ram", "psram", "flash", "memory")
#: regions a program can write: the activation arena must be in one of these
WRITABLE_REGIONS = ("ram", "psram", "memory")

# The schema of a device file, bounds included (docs/device-profiles.md lists the same).
MAX_FILE_BYTES = 1 << 20
MAX_NESTING = 4              # brackets and braces inside each other: a profile needs 2
MAX_BYTES = 2 ** 53          # any memory size: 8 PiB
MAX_RATE = 1e21              # any bytes or operations per second
MAX_SECONDS = 1e6            # any time in seconds
MAX_TEXT = 200               # characters of a description
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")
# comments and the four kinds of TOML string are skipped whole; what is left is counted
_TOML_TOKEN = re.compile(r'''#[^\n]*|"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[\[\]{}]''')

# key: (required, what it must be)
_DEVICE_KEYS = {
    "description": True, "available_bytes": True, "available_bytes_at_boot": False,
    "ops_per_second_reference": True, "ops_per_second_optimised": True, "latency_budget_seconds": True,
    "overhead_seconds": False, "pointer_bytes": False, "target": False, "arena_region": False,
    "weights_region": False, "regions": True,
}
_REGION_KEYS = ("size_bytes", "read_bytes_per_second")


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
        """The profile as the C check's board: {field: value} with mc_board_set's names
        (what `memcore export --device` writes for the board, too).  The arena's region
        offers what a model may use in it (available_bytes), the others their size."""
        out = {"target": self.target, "overhead_seconds": self.overhead_seconds}
        for name, region in self.regions.items():
            c = "ram" if name == "memory" else name
            out[c + "_bytes"] = self.available_bytes if name == self.arena_region else region.size_bytes
            out[c + "_read_bytes_per_second"] = region.read_bytes_per_second
        if self.region_code(self.arena_region) == lib.MC_REGION_RAM:
            out["ram_bytes_at_boot"] = self.available_bytes_at_boot
        # One achieved rate per kernel library for every operator class and both numeric
        # types, until the profile gives them per class.
        for cls in ("conv", "depthwise", "matmul", "other"):
            for numeric in ("int8", "float32"):
                out["%s_%s_reference_ops_per_second" % (cls, numeric)] = self.ops_per_second_reference
                out["%s_%s_optimised_ops_per_second" % (cls, numeric)] = self.ops_per_second_optimised
        return out

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


def _number(where, table, key, kind=float, positive=True, most=None):
    value = table.get(key)
    ok_types = (int,) if kind is int else (int, float)
    if isinstance(value, bool) or not isinstance(value, ok_types):
        raise MemcoreError("%s: %s must be %s, got %s" % (where, key, "an integer" if kind is int else "a number",
                                                          _show(value)))
    if not math.isfinite(value):  # TOML has nan and inf
        raise MemcoreError("%s: %s must be finite, got %r" % (where, key, value))
    if value < 0 or (positive and value == 0):
        raise MemcoreError("%s: %s must be %s, got %r" % (where, key, "positive" if positive else "non-negative",
                                                          value))
    if most is None:
        most = MAX_BYTES if kind is int else MAX_SECONDS if key.endswith("_seconds") else MAX_RATE
    if value > most:
        raise MemcoreError("%s: %s must be at most %s, got %r" % (where, key, _show(most), value))
    return kind(value)


def _show(value):
    text = repr(value)
    return text if len(text) <= 60 else text[:60] + "…"


def _unknown_keys(where, table, known):
    for key in table:
        if key not in known:
            raise MemcoreError("%s: unknown key %s (known: %s)" % (where, _show(key), ", ".join(known)))


def _region_name(where, table, key, regions, default):
    name = table.get(key, default)
    if not isinstance(name, str):
        raise MemcoreError("%s: %s must be the name of one of its regions (%s), got %s"
                           % (where, key, ", ".join(regions), _show(name)))
    if name not in regions:
        raise MemcoreError("%s: %s %s is not one of its regions (%s)" % (where, key, _show(name), ", ".join(regions)))
    return name


def _profile_from_table(name, table, origin):
    where = "%s: device %s" % (origin, _show(name))
    if not _NAME.match(name):
        raise MemcoreError("%s: a device name is 1 to 64 letters, digits, '.', '_' or '-', starting with a letter "
                           "or digit" % where)
    if not isinstance(table, dict):
        raise MemcoreError("%s must be a table ([%s] with its keys), got %s" % (where, name, _show(table)))
    _unknown_keys(where, table, _DEVICE_KEYS)
    missing = [k for k, required in _DEVICE_KEYS.items() if required and k not in table]
    if missing:
        raise MemcoreError("%s is missing %s" % (where, ", ".join(missing)))
    description = table["description"]
    if not isinstance(description, str) or not description.strip() or len(description) > MAX_TEXT \
            or not description.isprintable():
        raise MemcoreError("%s: description must be one line of text of at most %d characters, got %s"
                           % (where, MAX_TEXT, _show(description)))
    raw_regions = table["regions"]
    if not isinstance(raw_regions, dict) or not raw_regions:
        raise MemcoreError("%s: regions must be a table naming at least one of %s, got %s"
                           % (where, ", ".join(REGION_NAMES), _show(raw_regions)))
    regions = {}
    for region_name, region in raw_regions.items():
        if region_name not in REGION_NAMES:
            raise MemcoreError("%s: unknown region %s (known: %s)" % (where, _show(region_name),
                                                                     ", ".join(REGION_NAMES)))
        rwhere = "%s region %r" % (where, region_name)
        if not isinstance(region, dict):
            raise MemcoreError("%s must be a table with size_bytes and read_bytes_per_second, got %s"
                               % (rwhere, _show(region)))
        _unknown_keys(rwhere, region, _REGION_KEYS)
        regions[region_name] = MemoryRegion(region_name, _number(rwhere, region, "size_bytes", int),
                                            _number(rwhere, region, "read_bytes_per_second"))
    arena_region = _region_name(where, table, "arena_region", regions,
                                "ram" if "ram" in regions else next(iter(regions)))
    if arena_region not in WRITABLE_REGIONS:
        raise MemcoreError("%s: arena_region %r cannot hold the activation arena: %s is read-only (use %s)"
                           % (where, arena_region, arena_region, " or ".join(WRITABLE_REGIONS)))
    weights_region = _region_name(where, table, "weights_region", regions,
                                  "flash" if "flash" in regions else arena_region)
    available = _number(where, table, "available_bytes", int)
    at_boot = _number(where, table, "available_bytes_at_boot", int) if "available_bytes_at_boot" in table \
        else available
    if available > regions[arena_region].size_bytes:
        raise MemcoreError("%s: available_bytes %d is more than its %s region holds (%d)"
                           % (where, available, arena_region, regions[arena_region].size_bytes))
    if at_boot > available:
        raise MemcoreError("%s: available_bytes_at_boot %d is more than available_bytes %d (what is free at boot "
                           "is part of what the heap grows to)" % (where, at_boot, available))
    pointer_bytes = _number(where, table, "pointer_bytes", int) if "pointer_bytes" in table else 4
    if pointer_bytes not in (4, 8):
        raise MemcoreError("%s: pointer_bytes must be 4 or 8, got %d" % (where, pointer_bytes))
    overhead = _number(where, table, "overhead_seconds", positive=False) if "overhead_seconds" in table else 0.0
    target = table.get("target", "host64" if pointer_bytes == 8 else "esp32")
    if not isinstance(target, str) or target not in TARGETS:
        raise MemcoreError("%s: target must be one of %s, got %s" % (where, ", ".join(TARGETS), _show(target)))
    return Profile(name, description, regions, arena_region, weights_region, available, at_boot,
                   _number(where, table, "ops_per_second_reference"),
                   _number(where, table, "ops_per_second_optimised"), overhead,
                   _number(where, table, "latency_budget_seconds"), pointer_bytes, origin, target)


def _nesting(text):
    """How deeply brackets and braces nest in TOML text, outside strings and comments."""
    depth = deepest = 0
    for match in _TOML_TOKEN.finditer(text):
        c = match.group(0)
        if c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}":
            depth -= 1
    return deepest


def profiles_from_toml(text, origin):
    """Profiles from TOML text: one top-level table per device (see data/devices.toml)."""
    if len(text) > MAX_FILE_BYTES:
        raise MemcoreError("%s: %d characters; a device file is at most %d" % (origin, len(text), MAX_FILE_BYTES))
    if _nesting(text) > MAX_NESTING:
        raise MemcoreError("%s: brackets or braces nested more than %d deep; a device file needs 2"
                           % (origin, MAX_NESTING))
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise MemcoreError("%s: not valid TOML: %s" % (origin, exc)) from None
    except RecursionError:  # _nesting counts what tomllib nests; this is a second guard
        raise MemcoreError("%s: nested too deep to read" % origin) from None
    if not data:
        raise MemcoreError("%s: defines no devices" % origin)
    return {name: _profile_from_table(name, table, origin) for name, table in data.items()}


def load_device_file(path):
    """Profiles from a user's TOML file; raises OSError if it cannot be read."""
    with open(path, "rb") as f:
        raw = f.read(MAX_FILE_BYTES * 4 + 1)
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
