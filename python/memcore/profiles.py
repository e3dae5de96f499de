"""Device profiles as data: memory regions, flash partitions, op rates, power, and where
the model's bytes live.

A profile says, for one board, how much memory a model may really use (not the
datasheet total), which region holds the activation arena and which the weights, how
fast each region reads, the flash partition the model file lives in, the achieved
operation rate per operator class (conv, depthwise, matmul, other), numeric type
(int8, float32) and kernel library (reference, optimised), which memory traffic those
rates already include, and the board's power while inferring, asleep and sending over
its radio.  The built-in profiles are data/devices.toml, every number with its source;
users add theirs in the same TOML format (`--device-file`, docs/device-profiles.md).

The four teaching places of memcore.devices() (data centre, server, phone,
microcontroller) are not profiles: they answer `memcore verdicts` and memcore.verdict(),
never the microcontroller views (`check`, `compare`, `report`).

`Profile.board()` turns a profile into the C check's board (memcore.h §12).
"""
import math
import re
from dataclasses import dataclass, field
from typing import Dict, Optional, Tuple

try:
    import tomllib
except ImportError:  # Python < 3.11: the same parser, published as tomli
    import tomli as tomllib

from importlib import resources

from memcore import basis
from memcore._memcore import lib
from memcore.errors import MemcoreError
from memcore.targets import TARGETS

REGION_NAMES = ("ram", "psram", "flash", "memory")
#: regions a program can write: the activation arena must be in one of these
WRITABLE_REGIONS = ("ram", "psram", "memory")
OPCLASSES = ("conv", "depthwise", "matmul", "other")
#: the rate tables a profile may give: numeric type and kernel library
RATE_TABLES = ("int8_optimised", "int8_reference", "float32_optimised", "float32_reference")
PARTITION_KINDS = ("bootloader", "partition-table", "nvs", "phy", "app", "filesystem", "data")
#: partitions a model file can live in
MODEL_PARTITION_KINDS = ("filesystem", "data", "app")

# The schema of a device file, bounds included (docs/device-profiles.md lists the same).
MAX_FILE_BYTES = 1 << 20
MAX_NESTING = 4              # brackets and braces inside each other: a profile needs 2
MAX_BYTES = 2 ** 53          # any memory size: 8 PiB
MAX_RATE = 1e21              # any bytes or operations per second
MAX_SECONDS = 1e6            # any time in seconds
MAX_AMPS = 1e3               # any current
MAX_VOLTS = 1e3              # any supply voltage
# The least a figure that is not 0 may be: below these no device works, and the core's
# arithmetic on them (bytes / rate, capacity / power) runs out of doubles (a flash rate of
# 5e-324 B/s, a subnormal number, gave "a number is NaN or infinite", blamed on the model).
MIN_RATE = 1.0               # bytes or operations per second
MIN_SECONDS = 1e-9           # a nanosecond
MIN_AMPS = 1e-12             # a picoamp
MIN_VOLTS = 1e-3             # a millivolt
MAX_TEXT = 200               # characters of a description
MAX_PARTITIONS = 32
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")
# comments and the four kinds of TOML string are skipped whole; what is left is counted
_TOML_TOKEN = re.compile(r'''#[^\n]*|"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[\[\]{}]''')

# key: required
_DEVICE_KEYS = {
    "description": True, "available_bytes": True, "available_bytes_at_boot": False,
    "ops_per_second_reference": False, "ops_per_second_optimised": False, "latency_budget_seconds": False,
    "overhead_seconds": False, "pointer_bytes": False, "target": False, "arena_region": False,
    "weights_region": False, "regions": True, "rates": False, "traffic_in_rates": False, "power": False,
    "partitions": False, "model_partition": False, "family": False, "basis": False,
}
_REGION_KEYS = ("size_bytes", "read_bytes_per_second")
_POWER_KEYS = ("supply_volts", "active_amps", "sleep_amps", "radio_tx_amps", "radio_bytes_per_second")
_PARTITION_KEYS = ("name", "kind", "offset", "size_bytes")


@dataclass(frozen=True)
class MemoryRegion:
    name: str                       # "ram" (internal), "psram", "flash" or "memory" (one-region hosts)
    size_bytes: int
    read_bytes_per_second: float


@dataclass(frozen=True)
class Partition:
    name: str                       # as in the partition table ("vfs", "factory", ...)
    kind: str                       # one of PARTITION_KINDS
    offset: int                     # bytes from the start of flash
    size_bytes: int


@dataclass(frozen=True)
class Power:
    """A board's power figures: currents at one supply voltage, and its radio."""
    supply_volts: float
    active_amps: float              # inferring: the CPU busy, the radio off
    sleep_amps: float               # between inferences, RAM kept
    radio_tx_amps: float = 0.0      # transmitting (0: no radio)
    radio_bytes_per_second: float = 0.0

    @property
    def active_watts(self):
        return self.active_amps * self.supply_volts

    @property
    def sleep_watts(self):
        return self.sleep_amps * self.supply_volts

    @property
    def radio_tx_watts(self):
        return self.radio_tx_amps * self.supply_volts


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    regions: Dict[str, MemoryRegion]
    arena_region: str               # where activations (and weights kept in RAM) live
    weights_region: str             # where weights live by default: "flash" or the arena's region
    available_bytes: int            # what a model may use in arena_region, at most
    available_bytes_at_boot: int    # what is free before the runtime grows its heap
    rates: Dict[str, Dict[str, float]]  # RATE_TABLES name -> {operator class: operations per second}
    overhead_seconds: float         # fixed per request
    latency_budget_seconds: float   # must answer within: the user's device file's budget (0: none, as built in)
    pointer_bytes: int              # 4 on 32-bit microcontrollers, 8 on 64-bit hosts
    origin: str                     # "built-in" or the TOML file it came from
    target: str = "esp32"           # the ABI and TFLM build (memcore.targets.TARGETS)
    traffic_in_rates: Tuple[str, ...] = ()   # regions whose traffic the rates already include
    power: Optional[Power] = None
    partitions: Tuple[Partition, ...] = ()
    model_partition: Optional[str] = None    # the partition the model file lives in
    family: str = ""                # boards a suggestion may move to: the same family only
    basis: Dict[str, Tuple[str, str]] = field(default_factory=dict)  # figure -> (basis, source): memcore.basis

    @property
    def has_flash(self):
        return "flash" in self.regions

    @property
    def has_psram(self):
        return "psram" in self.regions

    def default_weights_placement(self):
        """"flash" or "ram": where the weights sit unless `--weights-in` says otherwise
        (ram: loaded into the heap with the arena, in whichever region holds it)."""
        return "flash" if self.weights_region == "flash" else "ram"

    def partition(self, name):
        return next((p for p in self.partitions if p.name == name), None)

    @property
    def model_partition_bytes(self):
        """The flash budget of the model file: its partition's size, or the whole flash."""
        part = self.partition(self.model_partition) if self.model_partition else None
        if part is not None:
            return part.size_bytes
        return self.regions["flash"].size_bytes if self.has_flash else 0

    def ops_per_second(self, kernels, numeric="int8", opclass="conv"):
        """One of the profile's rates (as the C check picks it: float32 runs the
        reference kernels, an absent class runs at "other"'s rate)."""
        table = self.rates["%s_%s" % (numeric, "reference" if numeric == "float32" else kernels)]
        return table.get(opclass) or table["other"]

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
        if self.has_flash:
            out["model_partition_bytes"] = self.model_partition_bytes
        for table, rates in self.rates.items():
            numeric, kernels = table.split("_")
            for cls, rate in rates.items():
                out["%s_%s_%s_ops_per_second" % (cls, numeric, kernels)] = rate
        for region in self.traffic_in_rates:
            out[("ram" if region == "memory" else region) + "_traffic_in_rates"] = True
        if self.power is not None:
            out["active_watts"] = self.power.active_watts
            out["sleep_watts"] = self.power.sleep_watts
            out["radio_tx_watts"] = self.power.radio_tx_watts
            out["radio_bytes_per_second"] = self.power.radio_bytes_per_second
        return out

    def region_code(self, region):
        """The C core's region for one of this profile's regions ("memory" is a host's RAM)."""
        return {"ram": lib.MC_REGION_RAM, "memory": lib.MC_REGION_RAM, "psram": lib.MC_REGION_PSRAM,
                "flash": lib.MC_REGION_FLASH}[region]


def _least(key):
    """The smallest value other than 0 a figure named `key` may take (see MIN_RATE)."""
    for unit, least in (("_seconds", MIN_SECONDS), ("_amps", MIN_AMPS), ("_volts", MIN_VOLTS)):
        if key.endswith(unit):
            return least
    return MIN_RATE


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
    least = _least(key)
    if kind is float and value != 0 and value < least:
        raise MemcoreError("%s: %s must be %sat least %r, got %r" % (where, key, "" if positive else "0 or ",
                                                                   least, value))
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


def _rates(where, table):
    """The rate tables: `rates.<numeric>_<kernels>.<class>`, or the two flat rates of a
    simple profile (one rate per kernel library for every class and numeric type).
    float32 runs TFLM's reference kernels (the vendor libraries optimise int8 only), so a
    float32 table defaults to the int8 reference one; every table needs "other", the
    rate of a class the table leaves out."""
    flat = [k for k in ("ops_per_second_reference", "ops_per_second_optimised") if k in table]
    if "rates" not in table:
        if len(flat) != 2:
            raise MemcoreError("%s is missing %s (or a rates table)" % (
                where, ", ".join(k for k in ("ops_per_second_reference", "ops_per_second_optimised")
                                 if k not in table)))
        ref = _number(where, table, "ops_per_second_reference")
        opt = _number(where, table, "ops_per_second_optimised")
        return {"int8_optimised": {c: opt for c in OPCLASSES}, "int8_reference": {c: ref for c in OPCLASSES},
                "float32_reference": {c: ref for c in OPCLASSES}}
    if flat:
        raise MemcoreError("%s: give either a rates table or %s, not both" % (where, " and ".join(flat)))
    raw = table["rates"]
    if not isinstance(raw, dict):
        raise MemcoreError("%s: rates must be a table of %s, got %s" % (where, ", ".join(RATE_TABLES), _show(raw)))
    _unknown_keys(where + " rates", raw, RATE_TABLES)
    for needed in ("int8_optimised", "int8_reference"):
        if needed not in raw:
            raise MemcoreError("%s: rates is missing %s" % (where, needed))
    out = {}
    for name, rates in raw.items():
        rwhere = "%s rates.%s" % (where, name)
        if not isinstance(rates, dict):
            raise MemcoreError("%s must be a table of %s, got %s" % (rwhere, ", ".join(OPCLASSES), _show(rates)))
        _unknown_keys(rwhere, rates, OPCLASSES)
        if "other" not in rates:
            raise MemcoreError("%s is missing other (the rate of every class it leaves out)" % rwhere)
        out[name] = {c: _number(rwhere, rates, c) for c in OPCLASSES if c in rates}
    out.setdefault("float32_reference", dict(out["int8_reference"]))
    return out


def _power(where, table):
    if "power" not in table:
        return None
    raw = table["power"]
    pwhere = where + " power"
    if not isinstance(raw, dict):
        raise MemcoreError("%s must be a table of %s, got %s" % (pwhere, ", ".join(_POWER_KEYS), _show(raw)))
    _unknown_keys(pwhere, raw, _POWER_KEYS)
    missing = [k for k in ("supply_volts", "active_amps", "sleep_amps") if k not in raw]
    if missing:
        raise MemcoreError("%s is missing %s" % (pwhere, ", ".join(missing)))
    radio = [k for k in ("radio_tx_amps", "radio_bytes_per_second") if k in raw]
    if len(radio) == 1:
        raise MemcoreError("%s: a radio needs both radio_tx_amps and radio_bytes_per_second" % pwhere)
    power = Power(_number(pwhere, raw, "supply_volts", most=MAX_VOLTS),
                  _number(pwhere, raw, "active_amps", most=MAX_AMPS),
                  _number(pwhere, raw, "sleep_amps", positive=False, most=MAX_AMPS),
                  _number(pwhere, raw, "radio_tx_amps", most=MAX_AMPS) if radio else 0.0,
                  _number(pwhere, raw, "radio_bytes_per_second") if radio else 0.0)
    if power.sleep_amps > power.active_amps:
        raise MemcoreError("%s: sleep_amps %r is more than active_amps %r" % (pwhere, power.sleep_amps,
                                                                            power.active_amps))
    return power


def _partitions(where, table, regions):
    """The flash partition table, and the partition the model file lives in."""
    raw = table.get("partitions", [])
    if "partitions" in table and "flash" not in regions:
        raise MemcoreError("%s: partitions need a flash region" % where)
    if not isinstance(raw, list) or len(raw) > MAX_PARTITIONS:
        raise MemcoreError("%s: partitions must be a list of at most %d partition tables, got %s"
                           % (where, MAX_PARTITIONS, _show(raw)))
    found = []
    for k, part in enumerate(raw):
        pwhere = "%s partition %d" % (where, k)
        if not isinstance(part, dict):
            raise MemcoreError("%s must be a table with %s, got %s" % (pwhere, ", ".join(_PARTITION_KEYS),
                                                                       _show(part)))
        _unknown_keys(pwhere, part, _PARTITION_KEYS)
        missing = [key for key in _PARTITION_KEYS if key not in part]
        if missing:
            raise MemcoreError("%s is missing %s" % (pwhere, ", ".join(missing)))
        name, kind = part["name"], part["kind"]
        if not isinstance(name, str) or not _NAME.match(name):
            raise MemcoreError("%s: name must be 1 to 64 letters, digits, '.', '_' or '-', got %s"
                               % (pwhere, _show(name)))
        if kind not in PARTITION_KINDS:
            raise MemcoreError("%s %r: kind must be one of %s, got %s" % (pwhere, name, ", ".join(PARTITION_KINDS),
                                                                        _show(kind)))
        found.append(Partition(name, kind, _number(pwhere, part, "offset", int, positive=False),
                               _number(pwhere, part, "size_bytes", int)))
    flash = regions["flash"].size_bytes if "flash" in regions else 0
    names = set()
    for a in sorted(found, key=lambda p: p.offset):
        if a.name in names:
            raise MemcoreError("%s: partition %r is listed twice" % (where, a.name))
        names.add(a.name)
        if a.offset + a.size_bytes > flash:
            raise MemcoreError("%s: partition %r (offset %d, %d bytes) ends past the flash's %d bytes"
                               % (where, a.name, a.offset, a.size_bytes, flash))
    ordered = sorted(found, key=lambda p: p.offset)
    for a, b in zip(ordered, ordered[1:]):
        if a.offset + a.size_bytes > b.offset:
            raise MemcoreError("%s: partitions %r and %r overlap" % (where, a.name, b.name))
    model = table.get("model_partition")
    if model is None:
        model = next((p.name for p in found if p.kind == "filesystem"), None)
    elif not isinstance(model, str) or model not in names:
        raise MemcoreError("%s: model_partition %s is not one of its partitions (%s)"
                           % (where, _show(model), ", ".join(sorted(names)) or "none"))
    elif next(p for p in found if p.name == model).kind not in MODEL_PARTITION_KINDS:
        raise MemcoreError("%s: model_partition %r cannot hold a model file (a partition of kind %s)"
                           % (where, model, " or ".join(MODEL_PARTITION_KINDS)))
    return tuple(found), model


def _traffic(where, table, regions):
    raw = table.get("traffic_in_rates", [])
    if not isinstance(raw, list) or any(not isinstance(r, str) or r not in regions for r in raw):
        raise MemcoreError("%s: traffic_in_rates must list some of its regions (%s), got %s"
                           % (where, ", ".join(regions), _show(raw)))
    return tuple(raw)


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
    family = table.get("family", target)
    if not isinstance(family, str) or not _NAME.match(family):
        raise MemcoreError("%s: family must be a name (letters, digits, '.', '_', '-'), got %s"
                           % (where, _show(family)))
    rates = _rates(where, table)
    partitions, model_partition = _partitions(where, table, regions)
    return Profile(name, description, regions, arena_region, weights_region, available, at_boot, rates, overhead,
                   _number(where, table, "latency_budget_seconds") if "latency_budget_seconds" in table else 0.0,
                   pointer_bytes, origin, target,
                   _traffic(where, table, regions), _power(where, table), partitions, model_partition, family,
                   basis.parse(where, table.get("basis")))


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


_BUILTIN = []


def builtin_profiles():
    """The built-in microcontroller profiles (data/devices.toml), by name."""
    if not _BUILTIN:
        text = resources.files("memcore").joinpath("data", "devices.toml").read_text(encoding="utf-8")
        _BUILTIN.append(profiles_from_toml(text, "built-in"))
    return dict(_BUILTIN[0])


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
