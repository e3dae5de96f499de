"""`memcore devices`: the device profiles memcore knows, built-in and from a TOML file."""
from memcore import basis, cli_options, jsonout
from memcore.profiles import profile, profiles
from memcore.terminal import Out, escape
from memcore.units import format_bytes, format_ops_rate, format_rate, format_seconds, format_watts


def register(sub):
    p = cli_options.add_command(
        sub, "devices", "list the device profiles (built-in and --device-file)",
        """Every board profile: the memory a model may really use (not the datasheet's total),
its memory regions with their size and read speed (A: the arena lives there, W: the
weights by default), the flash partition the model file lives in, the conv rate of
reference and optimised int8 kernels (per class and numeric type in --json), the power
while inferring and asleep, and the latency budget (only a device file's: the built-in
profiles carry none).  Add your own boards in TOML:
docs/device-profiles.md.  The teaching places (data centre, server, phone) are in
`memcore verdicts`.""",
        ["memcore devices", "memcore devices --device-file my_boards.toml --si",
         "memcore devices --verbose --device esp32    # what each figure rests on, and its source",
         "memcore devices --json | jq -r '.devices[].name'"])
    cli_options.add_device_file(p)
    p.add_argument("--verbose", "-v", action="store_true",
                   help="also every figure's basis (measured, published or estimate) and its source")
    p.add_argument("--device", "-d", metavar="NAME", help="only this profile")
    cli_options.add_units(p)
    cli_options.add_json(p, "the profiles (schema memcore.devices/1)")
    p.set_defaults(run=run)


def profile_json(p):
    return {
        "name": p.name, "description": p.description, "origin": p.origin, "family": p.family,
        "target": p.target,
        "available_bytes": p.available_bytes, "available_bytes_at_boot": p.available_bytes_at_boot,
        "arena_region": p.arena_region, "weights_region": p.weights_region,
        "default_weights_in": p.default_weights_placement(),
        "regions": [{"name": r.name, "size_bytes": r.size_bytes, "read_bytes_per_second": r.read_bytes_per_second}
                    for r in p.regions.values()],
        "partitions": [{"name": q.name, "kind": q.kind, "offset": q.offset, "size_bytes": q.size_bytes}
                       for q in p.partitions],
        "model_partition": p.model_partition, "model_partition_bytes": p.model_partition_bytes,
        "rates": p.rates, "traffic_in_rates": list(p.traffic_in_rates),
        "ops_per_second_reference": p.ops_per_second("reference"),
        "ops_per_second_optimised": p.ops_per_second("optimised"),
        "power": None if p.power is None else {
            "supply_volts": p.power.supply_volts, "active_watts": p.power.active_watts,
            "sleep_watts": p.power.sleep_watts, "radio_tx_watts": p.power.radio_tx_watts,
            "radio_bytes_per_second": p.power.radio_bytes_per_second},
        "overhead_seconds": p.overhead_seconds, "latency_budget_seconds": p.latency_budget_seconds or None,
        "pointer_bytes": p.pointer_bytes,
        "basis": {key: {"basis": b, "source": source} for key, (b, source) in figure_bases(p)},
    }


def figure_bases(p):
    """(figure, (basis, source)) for each figure of the profile a number rests on."""
    keys = ["available_bytes", "available_bytes_at_boot", "overhead_seconds"]
    keys += ["rates.%s.%s" % (table, c) for table, rates in p.rates.items() for c in rates]
    keys += ["regions.%s" % r for r in p.regions]
    if p.power is not None:
        keys += ["power.%s" % k for k in ("supply_volts", "active_amps", "sleep_amps")]
        if p.power.radio_tx_amps:
            keys += ["power.radio_tx_amps", "power.radio_bytes_per_second"]
    return [(k, basis.of(p, k)) for k in keys]


def _roles(p, region):
    return ("A" if p.arena_region == region else "") + ("W" if p.weights_region == region else "")


def run(args):
    found = profiles(args.device_file)
    if args.device:
        found = {args.device: profile(args.device, args.device_file)}
    if args.json:
        jsonout.emit({"schema": jsonout.SCHEMAS["devices"], "devices": [profile_json(p) for p in found.values()]})
        return 0
    si = args.si
    out = Out()
    out.print("[bold]Device profiles[/]: memory a model may use, operation rates achieved (not peak)")
    table = out.table(("device", {"no_wrap": True}), ("free for the model", {"justify": "right", "no_wrap": True}),
                      ("at boot", {"justify": "right", "no_wrap": True}),
                      ("memory regions: size @ read (A arena, W weights)", {"no_wrap": True}),
                      ("model partition", {"justify": "right", "no_wrap": True}),
                      ("conv ops/s ref.", {"justify": "right", "no_wrap": True}),
                      ("conv ops/s opt.", {"justify": "right", "no_wrap": True}),
                      ("active / asleep", {"justify": "right", "no_wrap": True}),
                      ("budget", {"justify": "right", "no_wrap": True}))
    for p in found.values():
        regions = ", ".join("%s%s %s @ %s" % (_roles(p, r.name) + " " if _roles(p, r.name) else "", r.name,
                                              format_bytes(r.size_bytes, si), format_rate(r.read_bytes_per_second, si))
                            for r in p.regions.values())
        table.add_row(escape(p.name), format_bytes(p.available_bytes, si),
                      format_bytes(p.available_bytes_at_boot, si) if p.available_bytes_at_boot != p.available_bytes
                      else "", escape(regions),
                      "%s %s" % (escape(p.model_partition), format_bytes(p.model_partition_bytes, si))
                      if p.model_partition else (format_bytes(p.model_partition_bytes, si) if p.has_flash else ""),
                      format_ops_rate(p.ops_per_second("reference")), format_ops_rate(p.ops_per_second("optimised")),
                      "%s / %s" % (format_watts(p.power.active_watts), format_watts(p.power.sleep_watts))
                      if p.power else "", format_seconds(p.latency_budget_seconds) if p.latency_budget_seconds
                      else "none")
    out.print(table)
    for p in found.values():
        origin = "" if p.origin == "built-in" else " (from %s)" % p.origin
        out.line("%s: %s%s" % (p.name, p.description, origin))
    if args.verbose:
        for p in found.values():
            out.line("")
            out.print("[bold]%s[/]: what each figure rests on (~ in a report: an estimate)" % escape(p.name))
            table = out.table(("figure", {"no_wrap": True}), ("basis", {"no_wrap": True}), "source")
            for key, (b, source) in _grouped(figure_bases(p)):
                table.add_row(escape(key), b, escape(source))
            out.print(table)
    return 0


def _grouped(bases):
    """One row per run of figures of one group with the same basis and source:
    "rates.int8_optimised.*" when the run is the whole group, "power.supply_volts,
    active_amps" when it is part of it."""
    runs = []     # [prefix, [last parts], (basis, source)]
    for key, found in bases:
        prefix, _, last = key.rpartition(".") if key.startswith(("rates.", "power.")) else ("", "", key)
        if runs and prefix and runs[-1][0] == prefix and runs[-1][2] == found:
            runs[-1][1].append(last)
        else:
            runs.append([prefix, [last], found])
    sizes = {}
    for prefix, parts, _ in runs:
        sizes[prefix] = sizes.get(prefix, 0) + len(parts)
    return [(prefix + "." + ("*" if len(parts) == sizes[prefix] and len(parts) > 1 else ", ".join(parts))
             if prefix else parts[0], found) for prefix, parts, found in runs]
