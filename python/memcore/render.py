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

from memcore.basis import mark
from memcore.units import (format_bytes, format_count, format_duration, format_joules, format_ops_rate,
                           format_seconds, format_watts)

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
    return format_joules(value)


def resource_detail(name, res, data, si=False):
    """What one resource's need, limit and margin say, in words."""
    b = res.get("basis") or {}
    need = mark(_resource_amount(name, res["need"], si), b.get("need"))
    limit = mark(_resource_amount(name, res["limit"], si), b.get("limit"))
    over = mark(_resource_amount(name, -res["margin"], si), b.get("margin"))
    left = mark(_resource_amount(name, res["margin"], si), b.get("margin"))
    fits = res["margin"] >= 0
    if name == "latency":
        per_hour = (data.get("budgets") or {}).get("inferences_per_hour")
        period = per_hour and abs(res["limit"] - 3600 / per_hour) <= 1e-12 * res["limit"]
        what = "the %g-per-hour duty cycle's period" % per_hour if period else "its budget"
        return "%s per request against %s of %s (%s)" % (need, what, limit, ("%s to spare" % left) if fits
                                                        else ("%s over" % over))
    if name == "battery":
        life = (data.get("budgets") or {}).get("battery_life_seconds") or 0
        return "%s over the required %s, %s in the battery (%s)" % (
            need, format_duration(life), limit, ("%s to spare" % left) if fits else ("%s short" % over))
    if name == "flash":
        where = "the %s partition" % data["model_partition"] if data.get("model_partition") else "flash"
        return "the model file needs %s of %s's %s (%s)" % (need, where, limit, ("%s left" % left) if fits
                                                            else ("%s short" % over))
    return "needs %s of the %s available (%s)" % (need, limit, ("%s of headroom" % left) if fits
                                                  else ("%s short" % over))


def verdict_words(data, si=False):
    """The verdict in words, decided in one place: status ("fits", "does_not_fit",
    "misses_budget"), headline, symbol, colour, detail (the resource that runs out first,
    or the tightest when everything fits, with its numbers), line (headline and detail),
    speed (the latency against the budget) and speed_ok."""
    status = data["verdict"]
    limiting = data.get("limiting_resource")
    res = (data.get("resources") or {}).get(limiting)
    if res is not None:
        first = "runs out first" if status != "fits" else "is the tightest"
        detail = "%s %s: %s" % (_RESOURCE_WORDS[limiting], first, resource_detail(limiting, res, data, si))
    else:
        b = lambda n: format_bytes(n, si)  # noqa: E731
        detail = "needs %s, %s available" % (b(data["required_bytes"]), b(data["available_bytes"]))
    budget = data.get("latency_budget_seconds")
    speed_ok = data.get("within_latency_budget", True)
    total = seconds_text(data, "total_seconds")
    speed = "answers in %s, %s the %s budget" % (total, "within" if speed_ok else "over",
                                                 format_seconds(budget)) if budget else "answers in %s" % total
    headline, symbol, colour = {"fits": ("FITS", "✔", "green"),
                                "does_not_fit": ("DOES NOT FIT", "✘", "red"),
                                "misses_budget": ("FITS, BUT MISSES ITS BUDGET", "!", "yellow")}[status]
    return {"status": status, "headline": headline, "symbol": symbol, "colour": colour, "detail": detail,
            "line": "%s: %s" % (headline.lower(), detail), "speed": speed, "speed_ok": speed_ok}


_BUDGET_WORDS = (("latency_seconds", "latency", format_seconds), ("inferences_per_hour", "duty cycle",
                                                                     lambda n: "%g per hour" % n),
                 ("battery_joules", "battery", format_joules), ("battery_life_seconds", "battery life",
                                                                format_duration))


def budget_line(data):
    """Every budget the check was held to, with where the user gave it; or that none was."""
    budgets = data.get("budgets") or {}
    sources = budgets.get("sources") or {}
    given = ["%s %s (%s)" % (words, show(budgets[name]), sources.get(name, "?"))
             for name, words, show in _BUDGET_WORDS if budgets.get(name)]
    if not given:
        return "budgets: none given (--max-latency, --battery with --battery-life, or a device file's " \
               "latency_budget_seconds): memory and flash decide the verdict"
    return "budgets: " + ", ".join(given)


ESTIMATE_NOTE = ("~: an estimate, resting on a figure of the profile that was assumed, not measured or published "
                 "(`memcore devices --verbose --device %s` lists each figure's source)")


def has_estimates(data):
    """Whether any figure shown is marked "~"."""
    maps = [data.get("basis") or {}, data["latency"].get("basis") or {}]
    maps += [r.get("basis") or {} for r in (data.get("resources") or {}).values()]
    return any("estimate" in m.values() for m in maps)


def resource_rows(data, si=False):
    """(resource, need, limit, margin, fits, limiting) rows, in words, for every resource
    the check counted."""
    rows = []
    for name, res in (data.get("resources") or {}).items():
        b = res.get("basis") or {}
        rows.append((_RESOURCE_WORDS[name], *(mark(_resource_amount(name, res[k], si), b.get(k))
                                              for k in ("need", "limit", "margin")),
                     res["fits"], name == data.get("limiting_resource")))
    return rows


def energy_rows(data):
    """(name, value, note) rows of the energy table; [] when the board has no power figures."""
    if not data.get("energy_joules"):
        return []
    budgets = data.get("budgets") or {}
    per_hour = budgets.get("inferences_per_hour")
    b = data.get("basis") or {}
    rows = [("per inference", mark(format_joules(data["energy_joules"]), b.get("energy_joules")),
             "active power × %s" % seconds_text(data, "total_seconds"))]
    if data.get("radio_joules"):
        cheaper = data.get("cheaper_to")
        rows.append(("sending the input", mark(format_joules(data["radio_joules"]), b.get("radio_joules")),
                     "%s over the radio in %s; %s" % (format_bytes(data["input_bytes"]),
                                                      format_seconds(data["radio_seconds"]),
                                                      "computing here costs less" if cheaper == "compute"
                                                      else "sending it costs less (air time only)")))
    rows.append(("average power", mark(format_watts(data["average_watts"]), b.get("average_watts")),
                 "%s, busy %s of the time" % ("%g inferences per hour" % per_hour if per_hour else "back to back",
                                              share_text(data["duty_cycle"]))))
    if data.get("battery_life_seconds"):
        rows.append(("battery life", mark(format_duration(data["battery_life_seconds"]), b.get("battery_life_seconds")),
                     "%s at that average power" % format_joules(budgets.get("battery_joules") or 0)))
    most = data.get("max_inferences_per_hour")
    if most:
        rows.append(("most per hour", mark("{:,.0f}".format(most) if most >= 100 else "%.3g" % most,
                                           b.get("max_inferences_per_hour")), "within the battery budget" if data.get("resources", {})
                     .get("battery") else "back to back"))
    return rows


def _loaded_into(data):
    region = data.get("arena_region", "ram")
    return "RAM" if region in ("ram", "memory") else region.upper()


def memory_rows(data, si=False):
    """(name, bytes, note, indent) rows of the memory table."""
    b = lambda n: format_bytes(n, si)  # noqa: E731
    available_note = "in %s" % data.get("arena_region", "ram")
    at_boot = data.get("available_bytes_at_boot")
    # (a figure pinned below the profile's, a board's measurement, is no heap growing)
    if at_boot is not None and at_boot < data["available_bytes"]:
        available_note = "largest block the heap grows to (%s free at boot)" % b(at_boot)
    loaded = data.get("loaded_model_bytes")  # 0 when read in place
    term = TERM_WORDS.get(data.get("dominant_term"), "?")
    if loaded and data.get("dominant_term") == "parameters":
        term = "the model file loaded"
    where = "read in place from flash, not RAM" if data["weights_placement"] == "flash" else "inside the model file"
    rows = [("weights", data["weights_bytes"], where, 0)]
    if loaded:
        whole = "the whole file, in %s: TFLM reads its tables in place beside the weights" % _loaded_into(data)
        rows.append(("model file loaded", loaded, whole, 0))
    rows += [
        ("activation arena", data["arena_tflm_bytes"], "per example, planned as TFLM does", 0),
        ("memcore's plan", data["arena_best_bytes"], "what memcore's planner needs", 1),
        ("lower bound", data["arena_lower_bound_bytes"], "largest set of buffers alive at once", 1),
        ("runtime overhead", data["runtime_overhead_bytes"], "TFLM's persistent allocations (tail)", 0),
        ("recommended arena", data["recommended_arena_bytes"], "give TFLM's tensor arena this size", 0),
        ("required", data["required_bytes"], "largest term: %s" % term, 0),
        ("available", data["available_bytes"], available_note, 0),
        ("headroom", data["headroom_bytes"], "available − required", 0),
    ]
    if data.get("check_scratch_bytes") is not None:
        # the C core's figure: so a user knows whether the board's boot check itself can run
        over = data["check_scratch_bytes"] > data["available_bytes"]
        rows.append(("the check itself", data["check_scratch_bytes"],
                     "more than available: the board cannot check this file itself at boot" if over else
                     "the one block memcore's check of this file takes on the board", 0))
    return rows


def seconds_text(data, part):
    """One part of the latency as text, "~" marking an estimate; a fetch inside the fitted
    rates has no time of its own to show."""
    lat = data["latency"]
    if part == "fetch_seconds" and lat.get("fetch_in_rates"):
        return "in compute"
    return mark(format_seconds(lat[part]), (lat.get("basis") or {}).get(part))


def time_rows(data):
    """(part, time as text, note, dominant) rows of the time table."""
    lat = data["latency"]
    work = work_words(data["macs"], data["operations"]) if "macs" in data else \
        "%s operations" % format_count(data.get("operations", 0))
    # no fetch time: the board's rates were fitted to end-to-end times, reads included
    fetch_note = "reading weights and activations" if not lat.get("fetch_in_rates") else \
        "reads of weights and activations: inside the rates, fitted to end-to-end times"
    return [("fetch", seconds_text(data, "fetch_seconds"), fetch_note, lat["dominant"] == "fetch"),
            ("compute", seconds_text(data, "compute_seconds"), work, lat["dominant"] == "compute"),
            ("setup", seconds_text(data, "setup_seconds"), "fixed per request", lat["dominant"] == "setup")]


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
        "time": operator_seconds_text(row),
        "peak": "◀ peak" if row["is_peak"] else "",
    }


#: below this an operator's time is not resolved: its fixed cost in TFLM's Invoke loop
#: (dispatch, quantisation parameters, a softmax's exponentials) is in no rate, so "56 ns"
#: for a 12-element softmax would be a number that does not say what it is
OPERATOR_SECONDS_FLOOR = 1e-6


def operator_seconds_text(row):
    """An operator's time: "~" (the request's fitted rates shared out by operation count),
    "<1 µs" below what that resolves."""
    seconds = row.get("seconds")
    if seconds is None:
        return "–"
    basis = (row.get("basis") or {}).get("seconds")
    if 0 < seconds < OPERATOR_SECONDS_FLOOR:
        return mark("<1 µs", basis)
    return mark(format_seconds(seconds), basis)


LAYER_COLUMNS = (("#", {"justify": "right"}), ("operator", {"no_wrap": True}), ("output shape", {}),
                 ("MACs", {"justify": "right", "no_wrap": True}), ("weights", {"justify": "right", "no_wrap": True}),
                 ("live", {"justify": "right", "no_wrap": True}), ("buffers", {"justify": "right"}),
                 ("of arena", {"justify": "right", "no_wrap": True}), ("time", {"justify": "right", "no_wrap": True}),
                 ("peak", {"no_wrap": True}))

LAYERS_NOTE = ("live: activation bytes alive while the operator runs (buffers: how many); of arena: that over "
               "TFLM's planned arena; time: the operator alone on the device (setup not included), the request's fitted "
               "rates shared out by operation count, so an estimate (~), unresolved below 1 µs (its fixed cost is in no "
               "rate). "
               "◀ peak: the most bytes alive at once, which no arena plan can go below.")


def layers_table(out, rows, si=False):
    """The per-operator table for `out` (a memcore.terminal.Out)."""
    table = out.table(*LAYER_COLUMNS)
    for row in rows:
        cells = layer_cells(row, si)
        table.add_row(*(cells[name] for name, _ in LAYER_COLUMNS),
                      style="bold yellow" if row["is_peak"] and out.colour else None)
    return table


def suggestion_words(s, data, si=False):
    """A checked suggestion in words: its verdict, and its limiting resource's numbers."""
    verdict = {"fits": "fits", "does_not_fit": "does not fit", "misses_budget": "misses its budget"}[s["verdict"]]
    colour = {"fits": "green", "does_not_fit": "red", "misses_budget": "yellow"}[s["verdict"]]
    res = s["resources"].get(s["limiting_resource"])
    then = ""
    if res is not None:
        then = "%s %s: %s" % (_RESOURCE_WORDS[s["limiting_resource"]],
                              "is the tightest" if s["verdict"] == "fits" else "runs out first",
                              resource_detail(s["limiting_resource"], res, data, si))
    if s.get("estimate"):
        then += " (estimate)"
    return {"verdict": verdict, "colour": colour, "then": then}


def terminal_report(data, out, si=False, layers=False):
    """The check report on `out` (a memcore.terminal.Out)."""
    from memcore.terminal import escape

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
        value = mark(b(n_bytes), (data.get("basis") or {}).get(name + "_bytes"))
        if name == "headroom" and out.colour:
            value = "[%s]%s[/]" % ("green" if n_bytes >= 0 else "red", value)
        memory.add_row("  " * indent + name, value, escape(note))
    out.print(memory)
    if "tflm_target" in data:
        t = data["tflm_target"]
        out.print("[dim]TFLM's tables: %s, %s[/]" % (escape(t["name"]), escape(t["source"])))
    if data.get("needs_heap_growth"):
        out.print("[yellow]note:[/] needs more than the %s free at boot; it relies on MicroPython growing its heap"
                  % b(data["available_bytes_at_boot"]))

    out.print("")
    if "ops_per_second" in data:
        out.print("[bold underline]Time per request[/] (%s, %s kernels at %s)"
                  % (data["dtype"], data["kernels"],
                     mark(format_ops_rate(data["ops_per_second"]), (data.get("basis") or {}).get("ops_per_second"))))
    else:
        out.print("[bold underline]Time per request[/]")
    timing = out.table(("", {"style": "bold" if out.colour else None, "no_wrap": True}),
                       ("", {"justify": "right", "no_wrap": True}), ("", {"style": "dim" if out.colour else None}),
                       show_header=False, padding=(0, 2))
    for part, seconds, note, dominant in time_rows(data):
        timing.add_row(part + (" ◀" if dominant else ""), seconds, note)
    total = seconds_text(data, "total_seconds")
    if out.colour:
        total = "[%s]%s[/]" % ("green" if words["speed_ok"] else "yellow", total)
    budget = data.get("latency_budget_seconds")
    timing.add_row("total", total, ("%s the %s budget" % ("within" if words["speed_ok"] else "over",
                                                         format_seconds(budget))) if budget else "")
    out.print(timing)
    if "roofline" in data:
        out.print(regime_words(data))

    energy = energy_rows(data)
    if energy:
        out.print("")
        out.print("[bold underline]Energy[/]")
        table = out.table(("", {"style": "bold" if out.colour else None, "no_wrap": True}),
                          ("", {"justify": "right", "no_wrap": True}), ("", {"style": "dim" if out.colour else None}),
                          show_header=False, padding=(0, 2))
        for name, value, note in energy:
            table.add_row(name, value, escape(note))
        out.print(table)

    out.print("")
    out.print("[bold underline]Resources[/] (need, limit, margin; ◀ runs out first)" if data["verdict"] != "fits"
              else "[bold underline]Resources[/] (need, limit, margin; ◀ the tightest)")
    table = out.table(("resource", {"no_wrap": True}), ("need", {"justify": "right", "no_wrap": True}),
                      ("limit", {"justify": "right", "no_wrap": True}),
                      ("margin", {"justify": "right", "no_wrap": True}), ("", {"no_wrap": True}))
    for name, need, limit, margin, fits, first in resource_rows(data, si):
        state = ("ok" if fits else "short") + (" ◀" if first else "")
        if out.colour:
            state = "[%s]%s[/]" % ("green" if fits else "red", state)
        table.add_row(name, need, limit, margin, state)
    out.print(table)
    out.line(budget_line(data))
    if has_estimates(data):
        out.line(ESTIMATE_NOTE % data["device"])
    if data.get("conversion"):
        out.print("")
        out.print("[bold underline]As deployed[/] (the ONNX graph planned as the TFLite converter would)")
        for line in data["conversion"]:
            out.line("  " + line)

    if data.get("suggestions"):
        out.print("")
        out.print("[bold underline]What would change the verdict[/] (each one checked)")
        table = out.table("change", ("verdict", {"no_wrap": True}), ("then", {}))
        for s_ in data["suggestions"]:
            words = suggestion_words(s_, data, si)
            verdict = words["verdict"]
            if out.colour:
                verdict = "[%s]%s[/]" % (words["colour"], verdict)
            table.add_row(escape(s_["action"]), verdict, escape(words["then"]))
        out.print(table)
        for s_ in data["suggestions"]:
            if s_.get("prepare_command"):
                out.command("  $ " + s_["prepare_command"] + "   # then deploy the shrunk file; as checked:")
            out.command("  $ " + s_["command"])

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
 .mc-fits { color: #1b7f3b; } .mc-does_not_fit { color: #b3261e; } .mc-slow, .mc-misses_budget { color: #a15c00; }
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
                   % ("&nbsp;&nbsp;" * indent, _e(name),
                      _e(mark(format_bytes(n, si), (data.get("basis") or {}).get(name + "_bytes"))), _e(note))
                   for name, n, note, indent in memory_rows(data, si))
    rows += "".join('<tr><td>%s</td><td class="n">%s</td><td class="mc-note">%s</td></tr>'
                    % (_e(part + (" ◀" if dominant else "")), _e(seconds), _e(note))
                    for part, seconds, note, dominant in time_rows(data))
    rows += '<tr><td>total time</td><td class="n">%s</td><td class="mc-note">%s</td></tr>' % (
        _e(seconds_text(data, "total_seconds")), _e(verdict_words(data, si)["speed"]))
    return '<div class="mc-scroll"><table class="mc-table" id="memory">%s</table></div>' % rows


def html_suggestions(data, si=False):
    if not data.get("suggestions"):
        return ""
    rows = []
    for s_ in data["suggestions"]:
        words = suggestion_words(s_, data, si)
        first = "<br><code>%s</code>" % _e(s_["prepare_command"]) if s_.get("prepare_command") else ""
        rows.append('<tr><td class="mc-wrap">%s%s<br><code>%s</code></td><td>%s</td><td class="mc-wrap">%s</td></tr>'
                    % (_e(s_["action"]), first, _e(s_["command"]), _e(words["verdict"]), _e(words["then"])))
    return ('<h3>What would change the verdict</h3><div class="mc-scroll"><table class="mc-table" id="suggestions">'
            '<tr><th>change (and the command that checks it)</th><th>verdict</th><th>then</th></tr>%s</table></div>'
            % "".join(rows))


def html_resources(data, si=False):
    rows = "".join('<tr%s><td>%s</td><td class="n">%s</td><td class="n">%s</td><td class="n">%s</td><td>%s</td></tr>'
                   % (' class="mc-peak"' if first else "", _e(name), _e(need), _e(limit), _e(margin),
                      "ok" if fits else "short")
                   for name, need, limit, margin, fits, first in resource_rows(data, si))
    energy = "".join('<tr><td>%s</td><td class="n">%s</td><td class="mc-note" colspan="3">%s</td></tr>'
                     % (_e(name), _e(value), _e(note)) for name, value, note in energy_rows(data))
    return ('<div class="mc-scroll"><table class="mc-table" id="resources"><tr><th>resource</th><th class="n">need'
            '</th><th class="n">limit</th><th class="n">margin</th><th></th></tr>%s%s</table></div>' % (rows, energy))


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
    return ("<style>%s</style>%s%s%s%s<h3>Per operator</h3>%s"
            % (HTML_STYLE, html_verdict(data, si), html_memory_table(data, si), html_resources(data, si),
               html_suggestions(data, si), html_layers_table(data, si)))
