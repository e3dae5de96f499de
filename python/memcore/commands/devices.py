"""`memcore devices`: the device profiles memcore knows, built-in and from a TOML file."""
from memcore import cli_options, jsonout
from memcore.profiles import profiles
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
         "memcore devices --json | jq -r '.devices[].name'"])
    cli_options.add_device_file(p)
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
    }


def _roles(p, region):
    return ("A" if p.arena_region == region else "") + ("W" if p.weights_region == region else "")


def run(args):
    found = profiles(args.device_file)
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
    return 0
