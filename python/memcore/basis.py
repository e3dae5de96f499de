"""What each number rests on: "measured", "published" or "estimate".

A device profile says, per figure, what it rests on and where it comes from (its `basis`
table: data/devices.toml, docs/device-profiles.md).  Every figure memcore derives from
them carries the weakest basis of the ones it uses: a latency computed with an estimated
rate is an estimate, however exact the arithmetic.  The numbers themselves all come from
the C core; this module only labels them, from the profile and from which parts of the
C check's result are non-zero (a part that adds nothing lends no basis).

In JSON an object's "basis" maps the keys of its figures to their basis; the text marks an
estimate with "~" (mark()).
"""
import re

from memcore.errors import MemcoreError

BASES = ("estimate", "published", "measured")    # weakest first
ESTIMATE, PUBLISHED, MEASURED = BASES
#: a figure of a device file no `basis` line covers: the user's own number, taken as given
DEFAULT = (PUBLISHED, "your device file (no basis given for it)")

_KEY = re.compile(r"(available_bytes|available_bytes_at_boot|overhead_seconds|partitions"
                  r"|rates(\.(int8|float32)_(optimised|reference)(\.(conv|depthwise|matmul|other))?)?"
                  r"|regions(\.(ram|psram|flash|memory))?"
                  r"|power(\.(supply_volts|active_amps|sleep_amps|radio_tx_amps|radio_bytes_per_second))?)\Z")
MAX_SOURCE = 300


def weakest(*bases):
    """The weakest of `bases` (None: a part that lends none); None if all are None."""
    found = [b for b in bases if b is not None]
    return min(found, key=BASES.index) if found else None


def parse(where, raw):
    """A device's `basis` table: {figure key: (basis, source)}, every line checked."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise MemcoreError("%s: basis must be a table of figure = \"measured|published|estimate: source\", got %r"
                           % (where, type(raw).__name__))
    out = {}
    for key, text in raw.items():
        if not _KEY.match(key):
            raise MemcoreError("%s basis: unknown figure %r (available_bytes, overhead_seconds, rates.TABLE[.CLASS], "
                               "regions[.REGION], power[.KEY], partitions)" % (where, key[:60]))
        basis, _, source = text.partition(":") if isinstance(text, str) else ("", "", "")
        if basis.strip() not in BASES or len(text) > MAX_SOURCE or not text.isprintable():
            raise MemcoreError("%s basis: %s must be \"measured: source\", \"published: source\" or \"estimate: "
                               "source\" (one line of at most %d characters), got %s"
                               % (where, key, MAX_SOURCE, repr(text)[:60]))
        out[key] = (basis.strip(), source.strip())
    return out


def of(profile, key):
    """(basis, source) of one of `profile`'s figures: its own line, else its group's
    ("rates.int8_optimised.other" falls back to "rates.int8_optimised", then "rates")."""
    parts = key.split(".")
    for n in range(len(parts), 0, -1):
        found = profile.basis.get(".".join(parts[:n]))
        if found:
            return found
    return (ESTIMATE, "built-in, no basis given") if profile.origin == "built-in" else DEFAULT


def _b(profile, key):
    return of(profile, key)[0]


def report_bases(data, profile, latency_included):
    """The "basis" maps of a check's memcore.report/1 data (the dict report_data builds):
    {"": top-level figures, "latency": ..., "resources": {name: ...}}."""
    table = "rates.%s_%s" % (data["dtype"], "reference" if data["dtype"] == "float32" else data["kernels"])
    lat = data["latency"]
    seconds = data.get("compute_by_class") or {}
    compute = weakest(*(_b(profile, "%s.%s" % (table, c)) for c, v in seconds.items() if v["seconds"] > 0)) \
        or _b(profile, table)
    regions = {data.get("arena_region", "ram"), "flash" if data["weights_placement"] == "flash" else None} - {None}
    fetch = compute if latency_included else weakest(*(_b(profile, "regions." + r) for r in regions))
    setup = _b(profile, "overhead_seconds") if lat["setup_seconds"] > 0 else None
    total = weakest(fetch if lat["fetch_seconds"] > 0 else None, compute if lat["compute_seconds"] > 0 else None,
                    setup) or compute
    latency = {"fetch_seconds": fetch, "compute_seconds": compute, "setup_seconds": setup, "total_seconds": total}
    top = {"available_bytes": _b(profile, "available_bytes"), "ops_per_second": compute}
    top["headroom_bytes"] = top["available_bytes"]
    if data.get("energy_joules"):
        active = weakest(_b(profile, "power.active_amps"), _b(profile, "power.supply_volts"))
        sleep = _b(profile, "power.sleep_amps")
        top["energy_joules"] = weakest(total, active)
        top["average_watts"] = weakest(top["energy_joules"], sleep if data.get("duty_cycle", 1) < 1 else None)
        for key in ("battery_life_seconds", "max_inferences_per_hour"):
            if data.get(key):
                top[key] = weakest(top["average_watts"], sleep)
    if data.get("radio_joules"):
        top["radio_joules"] = weakest(_b(profile, "power.radio_tx_amps"), _b(profile, "power.radio_bytes_per_second"))
    resources = {}
    for name in data.get("resources") or {}:
        if name in ("ram", "psram"):
            resources[name] = {"limit": top["available_bytes"], "margin": top["available_bytes"]}
        elif name == "latency":
            resources[name] = {"need": total, "margin": total}
        elif name == "battery":
            resources[name] = {"need": top.get("energy_joules"), "margin": top.get("energy_joules")}
    # (one operator's time is the request's fitted rates shared out by operation count: an
    # estimate even where the rates were fitted to a published end-to-end time; memcore.ops)
    return {"": {k: v for k, v in top.items() if v}, "latency": {k: v for k, v in latency.items() if v},
            "resources": resources}


def mark(text, basis):
    """`text` with "~" in front when it is an estimate."""
    return "~" + text if basis == ESTIMATE else text
