"""`memcore plan MODEL`: the activation arena as TFLM plans it and as memcore does —
every buffer's size, lifetime and offset (like TFLM's PrintMemoryPlan), optionally drawn."""
import os

import memcore
from memcore import cli_options, jsonout
from memcore.check import check
from memcore.report import report_data
from memcore.terminal import Out, escape, shorten_middle
from memcore.units import format_bytes

ALIGNMENT = 16
MAP_COLUMNS = 64
#: a tensor's name in the table: with the other columns, a row fits 80 columns
NAME_CHARS = 24
MAP_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def register(sub):
    p = cli_options.add_command(
        sub, "plan", "arena plans of MODEL (TFLM's and memcore's): buffer list, optionally a picture",
        """Every activation buffer TFLM's arena holds: its tensor, shape and size, when it is
live (the operators, "in" before the first), and its offset in TFLM's plan and in
memcore's; then the arena of each plan and the lower bound no plan can beat.  --map
adds a line per step showing which buffer sits where in the arena, as TFLM's
PrintMemoryPlan does.  --png draws the timeline with TFLM's tail, the recommended arena
and the device's RAM marked (.png, .jpg, .svg or .pdf, by the file's extension).""",
        ["memcore plan examples/kws_dscnn_int8.tflite",
         "memcore plan model.tflite --map",
         "memcore plan model.tflite --device cortex-m4 --png arena.svg",
         "memcore plan model.tflite --json | jq '.buffers | length'"])
    p.add_argument("model", help=".tflite or .onnx model file")
    cli_options.add_device(p)
    p.add_argument("--map", action="store_true", help="also print the arena map, one line per step")
    cli_options.add_picture(p, "the arena timeline")
    cli_options.add_units(p)
    cli_options.add_json(p, "the plans and buffers (schema memcore.plan/1)")
    p.set_defaults(run=run)


def scope_name(scope):
    """TFLM's scope as the operator it runs: 'in' before the first, else the operator."""
    return "in" if scope <= 0 else str(scope - 1)


def plan_json(model, data, tflm, best, picture):
    from memcore.plots import plans_identical
    lifetimes = model.lifetimes()
    fixed = model.offline_offsets
    buffers = []
    for index in model.planned_tensors:
        t = model.tensors[index]
        first, last = lifetimes[index]
        buffers.append({"tensor": index, "name": t.name, "shape": list(t.shape), "dtype": t.dtype, "bytes": t.bytes,
                        "first_scope": first, "last_scope": last,
                        "tflm_offset": tflm.offsets[index], "tflm_offset_from_file": fixed.get(index, -1) != -1,
                        "best_offset": best.offsets[index]})
    return {
        "schema": jsonout.SCHEMAS["plan"], "model": os.path.basename(model.path), "device": data["device"],
        "memcore_version": memcore.__version__, "alignment": ALIGNMENT, "operators": len(model.operators),
        "tflm": _plan_json(tflm), "best": _plan_json(best),
        "identical": plans_identical(tflm, best),
        "runtime_overhead_bytes": data["runtime_overhead_bytes"],
        "recommended_arena_bytes": data["recommended_arena_bytes"], "available_bytes": data["available_bytes"],
        "picture": picture, "buffers": buffers,
    }


def _plan_json(p):
    return {"arena_bytes": p.arena_bytes, "lower_bound_bytes": p.lower_bound_bytes,
            "proven_optimal": p.proven_optimal, "steps": p.steps}


def arena_map(model, plan, lifetimes):
    """TFLM's PrintMemoryPlan, as lines: one per step, a letter per buffer where it sits
    in the arena ('.' free), then the bytes in use."""
    scale = max(plan.arena_bytes, 1) / MAP_COLUMNS
    letter = {t: MAP_LETTERS[n % len(MAP_LETTERS)] for n, t in enumerate(sorted(plan.offsets))}
    lines = []
    for scope in range(len(model.operators) + 1):
        row = ["."] * MAP_COLUMNS
        used = 0
        for tensor, offset in plan.offsets.items():
            first, last = lifetimes[tensor]
            size = model.tensors[tensor].bytes
            if first <= scope <= last and size:
                used += size
                start = int(offset / scale)
                end = max(start + 1, int(-(-(offset + size) // scale)))
                for c in range(start, min(end, MAP_COLUMNS)):
                    row[c] = letter[tensor]
        name = "in" if scope == 0 else model.operators[scope - 1].kind
        lines.append("%4s %-20s |%s| %s" % (scope_name(scope), name[:20], "".join(row), format_bytes(used)))
    return lines, letter


def run(args):
    profile = cli_options.device_profile(args)
    picture = args.png
    if picture:
        from memcore.plots import picture_format
        picture_format(picture)        # refuse a format before any work
    model = memcore.load(args.model)
    data = report_data(check(model, profile, 1, "optimised", None, suggest=False), model)
    tflm, best = model.plan("tflm"), model.plan("best")
    if picture:
        from memcore.plots import plan_figure, save
        save(plan_figure(model, data, args.si), picture)
    result = plan_json(model, data, tflm, best, picture)
    if args.json:
        jsonout.emit(result)
        return 0
    si = args.si
    out = Out()
    out.print("[bold]%s[/]: %d activation buffers over %d operators, aligned to %d bytes"
              % (escape(result["model"]), len(result["buffers"]), result["operators"], ALIGNMENT))
    table = out.table(("#", {"justify": "right"}), ("tensor", {"no_wrap": True}), ("shape", {"no_wrap": True}),
                      ("bytes", {"justify": "right", "no_wrap": True}), ("live", {"no_wrap": True}),
                      ("TFLM at", {"justify": "right", "no_wrap": True}),
                      ("memcore at", {"justify": "right", "no_wrap": True}))
    for b in result["buffers"]:
        live = "never" if b["first_scope"] < 0 else "%s..%s" % (scope_name(b["first_scope"]),
                                                                scope_name(b["last_scope"]))
        table.add_row(str(b["tensor"]), escape(shorten_middle(b["name"], NAME_CHARS)),
                      "×".join(map(str, b["shape"])) or "scalar", "{:,}".format(b["bytes"]), live,
                      "{:,}".format(b["tflm_offset"]) + (" (file)" if b["tflm_offset_from_file"] else ""),
                      "{:,}".format(b["best_offset"]))
    out.print(table)
    out.line("#: the tensor's index; live: the operators (in execution order) it is alive across, \"in\" before "
             "the first; at: its offset in the arena, in TFLM's plan and memcore's.")
    if any(b["tflm_offset_from_file"] for b in result["buffers"]):
        out.line("(file): the offset the model's offline memory plan gives; TFLM places the other buffers "
                 "around those.")
    if any(len(b["name"]) > NAME_CHARS for b in result["buffers"]):
        out.line("names longer than %d characters are shortened in the middle (…); --json has them whole."
                 % NAME_CHARS)
    same = "; the same offsets" if result["identical"] else ""
    proof = "proven optimal" if best.proven_optimal else "not proven optimal"
    out.line("TFLM's plan:        %s (%s bytes)" % (format_bytes(tflm.arena_bytes, si), "{:,}".format(tflm.arena_bytes)))
    out.line("memcore's plan:     %s (%s bytes; %s%s)" % (format_bytes(best.arena_bytes, si),
                                                        "{:,}".format(best.arena_bytes), proof, same))
    out.line("lower bound:        %s: the most bytes alive at once" % format_bytes(tflm.lower_bound_bytes, si))
    out.line("TFLM's tail:        %s on %s (its persistent allocations, above the plan)"
             % (format_bytes(data["runtime_overhead_bytes"], si), profile.name))
    out.line("recommended arena:  %s" % format_bytes(data["recommended_arena_bytes"], si))
    if args.map:
        lifetimes = model.lifetimes()
        for name, p in (("TFLM's plan", tflm), ("memcore's plan", best)):
            out.line("")
            out.line("%s, one line per step (each letter a buffer, '.' free; %s per column):"
                     % (name, format_bytes(max(p.arena_bytes, 1) // MAP_COLUMNS, si)))
            lines, letter = arena_map(model, p, lifetimes)
            for line in lines:
                out.line(line)
            if result["identical"]:
                out.line("(memcore's plan is the same)")
                break
    if picture:
        out.line("wrote %s" % picture)
    return 0
