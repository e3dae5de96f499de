"""`memcore ops MODEL`: one row per operator; the one at the memory peak is marked."""
from rich import box
from rich.console import Console
from rich.table import Table

import memcore
from memcore import cli_options
from memcore.ops import operator_rows
from memcore.units import format_bytes, format_count


def register(sub):
    p = sub.add_parser("ops", help="per-operator table of MODEL: output shape, MACs, weights, bytes live")
    p.add_argument("model", help=".tflite or .onnx model file")
    cli_options.add_units(p)
    p.set_defaults(run=run)


def _shape(shapes):
    return ", ".join("×".join(str(d) for d in s) if s else "scalar" for s in shapes)


def run(args):
    model = memcore.load(args.model)
    rows = operator_rows(model)
    tflm = model.plan("tflm")
    table = Table(title="%s: %d operators, %s MACs, %s of weights"
                  % (model.path.rsplit("/", 1)[-1], len(rows), format_count(model.macs),
                     format_bytes(model.weight_bytes, args.si)),
                  caption="◀ peak: the operator with the most activation bytes alive; no arena plan can be "
                          "smaller (lower bound %s; TFLM's plan %s)"
                          % (format_bytes(tflm.lower_bound_bytes, args.si), format_bytes(tflm.arena_bytes, args.si)),
                  box=box.SIMPLE_HEAD)
    table.add_column("#", justify="right")
    table.add_column("operator", no_wrap=True)
    table.add_column("output shape", overflow="fold")
    table.add_column("MACs", justify="right", no_wrap=True)
    table.add_column("weights", justify="right", no_wrap=True)
    table.add_column("live while it runs\n(buffers)", justify="right", no_wrap=True)
    for r in rows:
        style = "bold yellow" if r.is_peak else None
        table.add_row(str(r.index), r.kind, _shape(r.output_shapes), format_count(r.macs) if r.macs else "–",
                      format_bytes(r.weight_bytes, args.si) if r.weight_bytes else "–",
                      "%s (%d)%s" % (format_bytes(r.live_bytes, args.si), r.live_buffers, " ◀ peak" if r.is_peak else ""),
                      style=style)
    Console().print(table)
    return 0
