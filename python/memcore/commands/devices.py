"""`memcore devices`: the device profiles memcore knows, built-in and from a TOML file."""
from memcore import cli_options, jsonout
from memcore.profiles import profiles
from memcore.terminal import Out, escape
from memcore.units import format_bytes, format_ops_rate, format_rate, format_seconds


def register(sub):
    p = cli_options.add_command(
        sub, "devices", "list the device profiles (built-in and --device-file)",
        """Every device profile: the memory a model may really use (not the datasheet's total),
its memory regions with their size and read speed (A: the arena lives there, W: the
weights), the operation rates of reference and optimised kernels, and the latency budget.
Add your own boards in TOML: docs/device-profiles.md.""",
        ["memcore devices", "memcore devices --device-file my_boards.toml --si",
         "memcore devices --json | jq -r '.devices[].name'"])
    cli_options.add_device_file(p)
    cli_options.add_units(p)
    cli_options.add_json(p, "the profiles (schema memcore.devices/1)")
    p.set_defaults(run=run)


def profile_json(p):
    return {
        "name": p.name, "description": p.description, "origin": p.origin,
        "available_bytes": p.available_bytes, "available_bytes_at_boot": p.available_bytes_at_boot,
        "arena_region": p.arena_region, "weights_region": p.weights_region,
        "regions": [{"name": r.name, "size_bytes": r.size_bytes, "read_bytes_per_second": r.read_bytes_per_second}
                    for r in p.regions.values()],
        "ops_per_second_reference": p.ops_per_second_reference,
        "ops_per_second_optimised": p.ops_per_second_optimised,
        "overhead_seconds": p.overhead_seconds, "latency_budget_seconds": p.latency_budget_seconds,
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
                      ("ops/s reference", {"justify": "right", "no_wrap": True}),
                      ("ops/s optimised", {"justify": "right", "no_wrap": True}),
                      ("budget", {"justify": "right", "no_wrap": True}))
    for p in found.values():
        regions = ", ".join("%s%s %s @ %s" % (_roles(p, r.name) + " " if _roles(p, r.name) else "", r.name,
                                              format_bytes(r.size_bytes, si), format_rate(r.read_bytes_per_second, si))
                            for r in p.regions.values())
        table.add_row(escape(p.name), format_bytes(p.available_bytes, si),
                      format_bytes(p.available_bytes_at_boot, si) if p.available_bytes_at_boot != p.available_bytes
                      else "", escape(regions), format_ops_rate(p.ops_per_second_reference),
                      format_ops_rate(p.ops_per_second_optimised), format_seconds(p.latency_budget_seconds))
    out.print(table)
    for p in found.values():
        origin = "" if p.origin in ("SPEC 4", "built-in") else " (from %s)" % p.origin
        out.line("%s: %s%s" % (p.name, p.description, origin))
    return 0
