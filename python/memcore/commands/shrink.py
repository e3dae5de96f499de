"""`memcore shrink MODEL -o OUT.tflite`: a copy of MODEL carrying memcore's arena plan as
TFLM's offline memory plan, so that stock TFLM needs a smaller arena.

Exit status: 0 written (with the plan, or unchanged when it is already at its best), 2 bad
input or a copy that could not be checked (nothing written)."""
import os
import sys

from memcore import cli_options, jsonout
from memcore.errors import open_for_writing
from memcore.shrink import shrink
from memcore.targets import TARGETS
from memcore.terminal import Out, escape
from memcore.units import format_bytes


def register(sub):
    p = cli_options.add_command(
        sub, "shrink", "write a copy of MODEL that carries memcore's arena plan, for a smaller TFLM arena",
        """Writes OUT, a copy of the TFLite MODEL that carries memcore's arena plan as TFLM's
offline memory plan (the OfflineMemoryAllocation metadata): TFLM then puts each activation
tensor where memcore's planner put it and places its kernels' scratch buffers around
them.  The copy is read back with memcore's reader and its arena computed for --target and
--kernels; the plan is written only when it makes TFLM's recommended arena smaller,
otherwise OUT is MODEL unchanged (and it says so).  An offline plan MODEL already has is
replaced.  Nothing else changes: weights, tensors, operators and their order, inputs,
outputs and other metadata are kept byte for byte (MODEL's bytes are all in OUT, behind a
new root table).  The operators may also be reordered: memcore searches the orders TFLM
could run them in for the one whose planned head is smallest, and writes it (the same
operator tables, listed in the new order) with the plan for that order, when TFLM's
head and recommended arena are smaller than in the file's order; --no-reorder keeps
the file's order.  Single-subgraph models only.  Prints TFLM's head, total and
recommended arena before and after, and the bytes saved.  Exit status: 0 written, 2 bad
input (nothing written).""",
        ["memcore shrink examples/kws_dscnn_int8.tflite -o kws_shrunk.tflite",
         "memcore shrink model.tflite -o model_shrunk.tflite --target cortex-m --kernels reference",
         "memcore shrink model.tflite -o model_shrunk.tflite --json | jq .saved_bytes"])
    p.add_argument("model", help=".tflite model file")
    p.add_argument("-o", "--output", required=True, help="the .tflite file to write")
    p.add_argument("--target", choices=sorted(TARGETS), default="esp32",
                   help="the TFLM build the arena is computed for (its kernels' scratch buffers are placed "
                        "around the plan; default: %(default)s)")
    cli_options.add_kernels(p)
    p.add_argument("--no-reorder", action="store_true",
                   help="keep the operators in the file's order (by default memcore writes them in the order "
                        "that needs the smallest head, when that is smaller than the file's)")
    cli_options.add_units(p)
    cli_options.add_json(p, "what was written, before and after (schema memcore.shrink/1)")
    p.set_defaults(run=run)


def _arena_json(a):
    return {"head_bytes": a.head_bytes, "tail_bytes": a.tail_bytes, "total_bytes": a.total_bytes,
            "minimum_arena_bytes": a.minimum_arena_bytes, "recommended_arena_bytes": a.recommended_arena_bytes}


def shrink_json(result, output):
    return {"schema": jsonout.SCHEMAS["shrink"], "model": os.path.basename(result.model_path), "output": output,
            "target": result.target, "kernels": result.kernels, "changed": result.changed,
            "replaced_plan": result.replaced_plan, "plan": result.plan, "reordered": result.reordered,
            "order": list(result.order), "before": _arena_json(result.before), "after": _arena_json(result.after),
            "file_order": _arena_json(result.file_order),
            "reorder": None if result.reorder is None else {
                "searched": True, "exact": result.reorder.exact,
                "least_peak_bytes": result.reorder.searched_peak_bytes,
                "file_peak_bytes": result.reorder.file_peak_bytes, "states": result.reorder.states},
            "saved_bytes": result.saved_bytes, "saved_head_bytes": result.saved_head_bytes,
            "file_bytes": len(result.data)}


def run(args):
    result = shrink(args.model, target=args.target, kernels=args.kernels, reorder=not args.no_reorder)
    with open_for_writing(args.output, "wb") as f:
        f.write(result.data)
    data = shrink_json(result, args.output)
    if args.json:
        jsonout.emit(data)
        return 0
    si = args.si
    out = Out()
    b = result.before
    out.print("[bold]%s[/] on %s (%s kernels)" % (escape(data["model"]), result.target, result.kernels))
    table = out.table("TFLM's arena", ("before", {"justify": "right", "no_wrap": True}),
                      ("after", {"justify": "right", "no_wrap": True}))
    for name, key in (("head (activations, scratch)", "head_bytes"), ("total (head + tail)", "total_bytes"),
                      ("recommended arena", "recommended_arena_bytes")):
        table.add_row(name, "{:,}".format(data["before"][key]), "{:,}".format(data["after"][key]))
    out.print(table)
    if result.changed:
        what = ("operators reordered and memcore's plan for the new order written" if result.reordered
                else "memcore's plan replaces the file's offline plan" if result.replaced_plan and result.plan != "none"
                else "the file's offline plan removed (TFLM's own plan is smaller)" if result.plan == "none"
                else "memcore's plan written as the offline plan")
        out.line("%s: %s smaller (%.1f %% of the recommended arena)"
                 % (what, format_bytes(result.saved_bytes, si), 100.0 * result.saved_bytes / b.recommended_arena_bytes))
    else:
        out.line("already at its best: memcore's plan makes TFLM's recommended arena no smaller on %s; "
                 "written unchanged" % result.target)
    if result.reordered:
        moved = sum(1 for k, i in enumerate(result.order) if k != i)
        out.line("operators reordered (%d of %d moved): head %s in the file's order with memcore's plan, %s in "
                 "the new order" % (moved, len(result.order), "{:,}".format(result.file_order.head_bytes),
                                    "{:,}".format(result.after.head_bytes)))
    elif args.no_reorder:
        out.line("operators kept in the file's order (--no-reorder)")
    else:
        out.line("operators kept in the file's order (no order needs a smaller arena)")
    out.line("wrote %s (%s bytes)" % (args.output, "{:,}".format(len(result.data))))
    sys.stdout.flush()
    return 0
