"""Every way a check report is shown — terminal, HTML page, notebook — from one place,
and from the report's data only (the memcore.report/1 object of memcore.report), so a
change to how the numbers are computed changes no renderer.

`verdict_words()` is the one place the verdict is put into words; the terminal, the
HTML page, the notebook and `repr()` all take theirs from it.

Vocabulary, the same in every command and doc: a MAC is one multiply-accumulate; an
operation is one arithmetic operation, so a MAC is 2 operations and pooling,
element-wise and activation layers add one per element they visit.  Device rates are
operations per second.
"""
import html

from memcore.units import format_bytes, format_count, format_ops_rate, format_seconds

TERM_WORDS = {"parameters": "weights", "activations": "activation arena", "runtime": "runtime overhead"}


def work_words(macs, operations):
    """'2.66 M MACs = 5.32 M operations (2 per MAC, + 12.3 k others)'."""
    others = operations - 2 * macs
    return "%s MACs = %s operations (2 per MAC%s)" % (
        format_count(macs), format_count(operations), ", + %s others" % format_count(others) if others else "")


_RESOURCE_WORDS = {"ram": "RAM", "psram": "PSRAM", "flash": "flash", "latency": "time", "battery": "battery"}


def _resource_amount(name, value, si):
    if name in ("ram", "psram", "flash"):
        return format_bytes(value, si)
    if name == "latency":
        return format_seconds(value)
    return "%.3g J" % value


def verdict_words(data, si=False):
    """The verdict in words, decided in one place: status ("fits", "does_not_fit",
    "misses_budget"), headline, symbol, colour, detail (the numbers behind it, naming the
    resource that runs out first), line (headline and detail), speed (the latency
    against the budget) and speed_ok."""
    b = lambda n: format_bytes(n, si)  # noqa: E731
    status = data["verdict"]
    limiting = data.get("limiting_resource")
    res = (data.get("resources") or {}).get(limiting)
    if status == "fits":
        detail = "%s of headroom: needs %s of the %s available" % (
            b(data["headroom_bytes"]), b(data["required_bytes"]), b(data["available_bytes"]))
    elif res is not None:
        need, limit = _resource_amount(limiting, res["need"], si), _resource_amount(limiting, res["limit"], si)
        short = _resource_amount(limiting, -res["margin"], si)
        if limiting == "latency":
            detail = "%s runs out first: %s per request against a %s budget (%s over)" % (
                _RESOURCE_WORDS[limiting], need, limit, short)
        elif limiting == "battery":
            detail = "%s runs out first: %s needed over its life, %s in the battery" % (
                _RESOURCE_WORDS[limiting], need, limit)
        elif limiting == "flash":
            detail = "%s runs out first: %s short: the model needs %s, the flash budget is %s" % (
                _RESOURCE_WORDS[limiting], short, need, limit)
        else:
            detail = "%s runs out first: %s short: needs %s, %s available" % (
                _RESOURCE_WORDS[limiting], short, need, limit)
    else:
        short = -data["headroom_bytes"] if data["headroom_bytes"] < 0 else 0
        detail = "%s short: needs %s, %s available" % (b(short), b(data["required_bytes"]), b(data["available_bytes"]))
    total = data["latency"]["total_seconds"]
    budget = data.get("latency_budget_seconds")
    speed_ok = data.get("within_latency_budget", True)
    speed = "answers in %s, %s the %s budget" % (format_seconds(total), "within" if speed_ok else "over",
                                                 format_seconds(budget)) if budget else \
        "answers in %s" % format_seconds(total)
    headline, symbol, colour = {"fits": ("FITS", "✔", "green"),
                                "does_not_fit": ("DOES NOT FIT", "✘", "red"),
                                "misses_budget": ("FITS, BUT MISSES ITS BUDGET", "!", "yellow")}[status]
    return {"status": status, "headline": headline, "symbol": symbol, "colour": colour, "detail": detail,
            "line": "%s: %s" % (headline.lower(), detail), "speed": speed, "speed_ok": speed_ok}


def _weights_where(data, si):
    b = lambda n: format_bytes(n, si)  # noqa: E731
    if data["weights_placement"] == "flash":
        if data.get("flash_bytes") is None:
            return "in flash, not RAM"
        return "in flash, not RAM (%s left of %s)" % (b(data["flash_headroom_bytes"]), b(data["flash_bytes"]))
    region = data.get("arena_region", "ram")
    return "in RAM" if region in ("ram", "memory") else "in %s, with the arena" % region


def memory_rows(data, si=False):
    """(name, bytes, note, indent) rows of the memory table."""
    b = lambda n: format_bytes(n, si)  # noqa: E731
    available_note = "in %s" % data.get("arena_region", "ram")
    at_boot = data.get("available_bytes_at_boot")
    if at_boot is not None and at_boot != data["available_bytes"]:
        available_note = "largest block the heap grows to (%s free at boot)" % b(at_boot)
    return [
        ("weights", data["weights_bytes"], _weights_where(data, si), 0),
        ("activation arena", data["arena_tflm_bytes"], "per example, planned as TFLM does", 0),
        ("memcore's plan", data["arena_best_bytes"], "what memcore's planner needs", 1),
        ("lower bound", data["arena_lower_bound_bytes"], "largest set of buffers alive at once", 1),
        ("runtime overhead", data["runtime_overhead_bytes"], "TFLM's persistent allocations (tail)", 0),
        ("recommended arena", data["recommended_arena_bytes"], "give TFLM's tensor arena this size", 0),
        ("required", data["required_bytes"], "largest term: %s" % TERM_WORDS.get(data.get("dominant_term"), "?"), 0),
        ("available", data["available_bytes"], available_note, 0),
        ("headroom", data["headroom_bytes"], "available − required", 0),
    ]


def time_rows(data):
    """(part, seconds, note, dominant) rows of the time table."""
    lat = data["latency"]
    work = work_words(data["macs"], data["operations"]) if "macs" in data else \
        "%s operations" % format_count(data.get("operations", 0))
    return [("fetch", lat["fetch_seconds"], "reading weights and activations", lat["dominant"] == "fetch"),
            ("compute", lat["compute_seconds"], work, lat["dominant"] == "compute"),
            ("setup", lat["setup_seconds"], "fixed per request", lat["dominant"] == "setup")]


def regime_words(data):
    r = data["roofline"]
    if r["bound"] == "memory":
        if r["crossover_batch"]:
            then = "batching helps until batch %d" % r["crossover_batch"]
        elif r["ceiling"] is None:
            then = "no batch makes it compute-bound"
        else:
            then = "no batch makes it compute-bound (ceiling %.3g operations per byte)" % r["ceiling"]
    else:
        then = "faster arithmetic is what pays"
    return "%s-bound at batch %d: %.3g operations per byte fetched; %s" % (r["bound"], data["batch"],
                                                                          r["intensity"], then)


def shape_text(shapes):
    return ", ".join("×".join(str(d) for d in s) if s else "scalar" for s in shapes)


def share_text(share):
    """'53 %', '<1 %' for a share that is there but rounds to nothing, '0 %'."""
    if 0 < share < 0.005:
        return "<1 %"
    return "%.0f %%" % (100 * share)


def layer_cells(row, si=False):
    """The per-operator table's cells for one row of the JSON "layers" (or `memcore ops`)."""
    return {
        "#": str(row["index"]),
        "operator": row["operator"],
        "output shape": shape_text(row["output_shapes"]),
        "MACs": format_count(row["macs"]) if row["macs"] else "–",
        "weights": format_bytes(row["weight_bytes"], si) if row["weight_bytes"] else "–",
        "live": format_bytes(row["live_bytes"], si),
        "buffers": str(row["live_buffers"]),
        "of arena": share_text(row["arena_share"]),
        "time": format_seconds(row["seconds"]) if row.get("seconds") is not None else "–",
        "peak": "◀ peak" if row["is_peak"] else "",
    }


LAYER_COLUMNS = (("#", {"justify": "right"}), ("operator", {"no_wrap": True}), ("output shape", {}),
                 ("MACs", {"justify": "right", "no_wrap": True}), ("weights", {"justify": "right", "no_wrap": True}),
                 ("live", {"justify": "right", "no_wrap": True}), ("buffers", {"justify": "right"}),
                 ("of arena", {"justify": "right", "no_wrap": True}), ("time", {"justify": "right", "no_wrap": True}),
                 ("peak", {"no_wrap": True}))

LAYERS_NOTE = ("live: activation bytes alive while the operator runs (buffers: how many); of arena: that over "
               "TFLM's planned arena; time: the operator alone on the device (setup not included). "
               "◀ peak: the most bytes alive at once, which no arena plan can go below.")


def layers_table(out, rows, si=False):
    """The per-operator table for `out` (a memcore.terminal.Out)."""
    table = out.table(*LAYER_COLUMNS)
    for row in rows:
        cells = layer_cells(row, si)
        table.add_row(*(cells[name] for name, _ in LAYER_COLUMNS),
                      style="bold yellow" if row["is_peak"] and out.colour else None)
    return table


def terminal_report(data, out, si=False, layers=False):
    """The check report on `out` (a memcore.terminal.Out)."""
    from rich.markup import escape

    b = lambda n: format_bytes(n, si)  # noqa: E731
    words = verdict_words(data, si)
    description = data.get("device_description")
    out.print("[bold]%s[/] on [bold]%s[/]%s" % (escape(data["model"]), escape(data["device"]),
                                                " — " + escape(description) if description else ""))
    out.print("[bold %s]%s %s[/]  %s" % (words["colour"], words["symbol"], words["headline"], words["detail"]))

    pointers = ", %d-bit pointers" % (8 * data["pointer_bytes"]) if "pointer_bytes" in data else ""
    out.print("")
    out.print("[bold underline]Memory[/] (batch %d%s)" % (data["batch"], pointers))
    memory = out.table(("", {"style": "bold" if out.colour else None, "no_wrap": True}),
                       ("", {"justify": "right", "no_wrap": True}), ("", {"style": "dim" if out.colour else None}),
                       show_header=False, padding=(0, 2))
    for name, n_bytes, note, indent in memory_rows(data, si):
        value = b(n_bytes)
        if name == "headroom" and out.colour:
            value = "[%s]%s[/]" % ("green" if n_bytes >= 0 else "red", value)
        memory.add_row("  " * indent + name, value, escape(note))
    out.print(memory)
    if data.get("needs_heap_growth"):
        out.print("[yellow]note:[/] needs more than the %s free at boot; it relies on MicroPython growing its heap"
                  % b(data["available_bytes_at_boot"]))

    out.print("")
    if "ops_per_second" in data:
        out.print("[bold underline]Time per request[/] (%s, %s kernels at %s)"
                  % (data["dtype"], data["kernels"], format_ops_rate(data["ops_per_second"])))
    else:
        out.print("[bold underline]Time per request[/]")
    timing = out.table(("", {"style": "bold" if out.colour else None, "no_wrap": True}),
                       ("", {"justify": "right", "no_wrap": True}), ("", {"style": "dim" if out.colour else None}),
                       show_header=False, padding=(0, 2))
    for part, seconds, note, dominant in time_rows(data):
        timing.add_row(part + (" ◀" if dominant else ""), format_seconds(seconds), note)
    total = format_seconds(data["latency"]["total_seconds"])
    if out.colour:
        total = "[%s]%s[/]" % ("green" if words["speed_ok"] else "yellow", total)
    budget = data.get("latency_budget_seconds")
    timing.add_row("total", total, ("%s the %s budget" % ("within" if words["speed_ok"] else "over",
                                                         format_seconds(budget))) if budget else "")
    out.print(timing)
    if "roofline" in data:
        out.print(regime_words(data))

    if data.get("suggestions"):
        out.print("")
        out.print("[bold underline]What would make it fit[/]")
        table = out.table("change", ("headroom after", {"justify": "right", "no_wrap": True}), "")
        for s in data["suggestions"]:
            ok = s["headroom_bytes"] >= 0
            verdict = "fits" if ok else "still short"
            if out.colour:
                verdict = "[%s]%s[/]" % ("green" if ok else "red", verdict)
            table.add_row(escape(s["action"]), b(s["headroom_bytes"]), verdict)
        out.print(table)

    if layers and data.get("layers"):
        out.print("")
        out.print("[bold underline]Per operator[/] (%d operators, batch %d)" % (len(data["layers"]), data["batch"]))
        out.print(layers_table(out, data["layers"], si))
        out.print("[dim]%s[/]" % LAYERS_NOTE if out.colour else LAYERS_NOTE, markup=out.colour)


# ---- HTML ----------------------------------------------------------------------

def _e(text):
    return html.escape(str(text))


HTML_STYLE = """
 .mc-verdict { font-size: 1.35rem; font-weight: 700; }
 .mc-fits { color: #1b7f3b; } .mc-does_not_fit { color: #b3261e; } .mc-slow { color: #a15c00; }
 .mc-table { border-collapse: collapse; margin: .6rem 0; }
 .mc-table td, .mc-table th { padding: .25rem .7rem; text-align: left; vertical-align: top; white-space: nowrap; }
 .mc-table td.mc-note, .mc-table td.mc-wrap { white-space: normal; min-width: 12rem; }
 .mc-table td.n, .mc-table th.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
 .mc-table tr + tr td { border-top: 1px solid #eee; }
 .mc-table tr.mc-peak td { background: #fff4d6; font-weight: 600; }
 .mc-scroll { overflow-x: auto; max-width: 100%; }
 .mc-note { color: #555; font-size: .85rem; }
"""


def html_verdict(data, si=False):
    words = verdict_words(data, si)
    speed_class = "" if words["speed_ok"] else " mc-slow"
    return ('<div class="mc-verdict mc-%s" id="verdict">%s %s on %s</div>'
            '<p class="mc-detail">%s</p><p class="mc-speed%s">%s</p>'
            % (words["status"], _e(words["symbol"]), _e(words["headline"].capitalize()), _e(data["device"]),
               _e(words["detail"]), speed_class, _e(words["speed"])))


def html_memory_table(data, si=False):
    rows = "".join('<tr><td>%s%s</td><td class="n">%s</td><td class="mc-note">%s</td></tr>'
                   % ("&nbsp;&nbsp;" * indent, _e(name), _e(format_bytes(n, si)), _e(note))
                   for name, n, note, indent in memory_rows(data, si))
    rows += "".join('<tr><td>%s</td><td class="n">%s</td><td class="mc-note">%s</td></tr>'
                    % (_e(part + (" ◀" if dominant else "")), _e(format_seconds(seconds)), _e(note))
                    for part, seconds, note, dominant in time_rows(data))
    rows += '<tr><td>total time</td><td class="n">%s</td><td class="mc-note">%s</td></tr>' % (
        _e(format_seconds(data["latency"]["total_seconds"])), _e(verdict_words(data, si)["speed"]))
    return '<div class="mc-scroll"><table class="mc-table" id="memory">%s</table></div>' % rows


def html_suggestions(data, si=False):
    if not data.get("suggestions"):
        return ""
    rows = "".join('<tr><td class="mc-wrap">%s</td><td class="n">%s</td><td>%s</td></tr>'
                   % (_e(s["action"]), _e(format_bytes(s["headroom_bytes"], si)),
                      "fits" if s["headroom_bytes"] >= 0 else "still short")
                   for s in data["suggestions"])
    return ('<h3>What would make it fit</h3><div class="mc-scroll"><table class="mc-table" id="suggestions">'
            '<tr><th>change</th><th class="n">headroom after</th><th></th></tr>%s</table></div>' % rows)


def html_layers_table(data, si=False):
    if not data.get("layers"):
        return ""
    head = "".join('<th%s>%s</th>' % (' class="n"' if options.get("justify") == "right" else "", _e(name))
                   for name, options in LAYER_COLUMNS)
    body = []
    for row in data["layers"]:
        cells = layer_cells(row, si)
        body.append('<tr%s data-operator="%d">%s</tr>' % (
            ' class="mc-peak"' if row["is_peak"] else "", row["index"],
            "".join('<td%s>%s</td>' % (' class="n"' if options.get("justify") == "right" else "", _e(cells[name]))
                    for name, options in LAYER_COLUMNS)))
    return ('<div class="mc-scroll"><table class="mc-table" id="layers"><tr>%s</tr>%s</table></div>'
            '<p class="mc-note">%s</p>' % (head, "".join(body), _e(LAYERS_NOTE)))


def html_report(data, si=False):
    """A self-contained HTML fragment (a notebook cell's output): verdict, memory and
    time, suggestions, the per-operator table."""
    return ("<style>%s</style>%s%s%s<h3>Per operator</h3>%s"
            % (HTML_STYLE, html_verdict(data, si), html_memory_table(data, si), html_suggestions(data, si),
               html_layers_table(data, si)))
