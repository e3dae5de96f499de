"""`memcore report`: one self-contained HTML page — the verdict with its memory and time
tables, the per-operator table with the peak marked, verdict cards for every device,
and both pictures embedded as PNG — readable without a terminal or the docs, on a
desktop as on a phone (wide tables scroll inside their box instead of overprinting).

The check report's parts come from memcore.render, from the report's data only.
"""
import base64
import html

import memcore
from memcore.basis import mark
from memcore.compare import compare
from memcore.plots import figure_bytes, plan_figure, roofline_figure
from memcore.render import (HTML_STYLE, html_layers_table, html_memory_table, html_resources, html_suggestions,
                            html_verdict)
from memcore.report import check_bases
from memcore.units import format_bytes, format_seconds

_COLOURS = {"runs": "#1b7f3b", "will_not_fit": "#b3261e", "too_slow": "#a15c00", "battery": "#a15c00"}

_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>memcore report: {model}</title>
<style>
 body {{ font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 1100px;
        color: #1c1c1c; padding: 0 1rem; line-height: 1.35; }}
 h1, .sub, p, figcaption {{ overflow-wrap: anywhere; }}
 h1 {{ font-size: 1.6rem; margin-bottom: .2rem; }} .sub {{ color: #555; margin-top: 0; }}
 .main {{ border: 3px solid {main_colour}; border-radius: 10px; padding: 1rem 1.4rem; margin: 1.2rem 0; }}
 .cards {{ display: grid; grid-template-columns: repeat(auto-fill, minmax(220px, 1fr)); gap: .8rem; }}
 .card {{ border-radius: 8px; padding: .8rem 1rem; color: white; }}
 .card h3 {{ margin: 0 0 .3rem 0; font-size: 1.05rem; }} .card p {{ margin: .15rem 0; font-size: .9rem; }}
 .card .desc {{ opacity: .85; font-size: .8rem; }}
 figure {{ margin: 1rem 0; }} figure img {{ max-width: 100%; height: auto; border: 1px solid #ddd;
        border-radius: 6px; }}
 figcaption {{ color: #555; font-size: .9rem; }}
 footer {{ color: #777; font-size: .8rem; margin-top: 2rem; }}
 @media (max-width: 600px) {{ body {{ margin: 1rem auto; }} .main {{ padding: .6rem .8rem; }} }}
{component_style}
</style></head>
<body>
<h1>{model}</h1>
<p class="sub">{summary}</p>
<section class="main" id="main-verdict">
 {verdict}
 {memory_table}
 {suggestions}
</section>
<h2>Per operator</h2>
<p>One row per operator in execution order.  The highlighted row is the peak: the most activation
bytes alive at once, which no arena plan can go below.</p>
{layers_table}
<h2>Where can it run?</h2>
<div class="cards" id="cards">{cards}</div>
<h2>Activation arena</h2>
<figure id="plan-figure">
<img alt="arena timeline of {model}" width="{plan_width}" height="{plan_height}" src="data:image/png;base64,{plan_png}">
<figcaption>Each rectangle is one activation buffer: its width is how long it lives (operators in
execution order), its height its size, its height off the floor its offset in the arena.  {plan_note}
The dashed line is the lower bound no plan can beat; the hatched band on top is TFLM's tail, and
the dotted line the RAM {device} leaves the model.</figcaption>
</figure>
<h2>Roofline on {device}</h2>
<figure id="roofline-figure">
<img alt="roofline of {model} on {device}" width="{roofline_width}" height="{roofline_height}" src="data:image/png;base64,{roofline_png}">
<figcaption>Below the sloped roof the device waits for memory; under the flat roof, for arithmetic.
The dots are this model, estimated by memcore's latency model; the orange mark is the rate the
latency budget asks for.</figcaption>
</figure>
<footer>memcore {version} · schema memcore.report/1 · every number computed by the memcore C core</footer>
</body></html>
"""


def _e(text):
    return html.escape(str(text))


def _png_size(data):
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def report_html(model, data, profile, profiles, batch=1, kernels="optimised", si=False, budgets=None):
    """The page for `model`: `data` is the check's memcore.report/1 object on `profile`;
    a card for every profile of `profiles`, checked against the same `budgets`."""
    from memcore.plots import plans_identical

    b = lambda n: format_bytes(n, si)  # noqa: E731
    cards = []
    for c in compare(model, profiles, batch, kernels, budgets):
        r = c.report
        cards.append('<div class="card" data-device="%s" data-status="%s" style="background:%s">'
                     "<h3>%s</h3><p><b>%s</b></p><p>needs %s of %s · %s per request</p>"
                     '<p class="desc">%s</p></div>'
                     % (_e(c.device), c.status, _COLOURS[c.status], _e(c.device), _e(c.explanation()),
                        _e(b(r.required_bytes)), _e(b(r.available_bytes)),
                        _e(mark(format_seconds(r.latency.total_seconds),
                                check_bases(r)["latency"].get("total_seconds"))), _e(r.profile.description)))
    plan_png = figure_bytes(plan_figure(model, data, si))
    roofline_png = figure_bytes(roofline_figure(model, profile, kernels, data["weights_placement"],
                                                   budget_seconds=data.get("latency_budget_seconds") or 0.0))
    plan_note = ("TFLM's planner and memcore's place every buffer at the same offset, so one plan is drawn."
                 if plans_identical(model.plan("tflm"), model.plan("best"))
                 else "Left: TensorFlow Lite Micro's planner; right: memcore's.")
    plan_size, roofline_size = _png_size(plan_png), _png_size(roofline_png)
    return _PAGE.format(
        model=_e(data["model"]), device=_e(profile.name), version=_e(memcore.__version__),
        summary=_e("%d operators · %s of weights · batch %d · %s · %s" % (
            len(model.operators), b(data["weights_bytes"]), batch, data["dtype"], profile.description)),
        main_colour=_COLOURS[{"fits": "runs", "does_not_fit": "will_not_fit"}.get(data["verdict"], "too_slow")],
        component_style=HTML_STYLE,
        verdict=html_verdict(data, si), memory_table=html_memory_table(data, si) + html_resources(data, si),
        suggestions=html_suggestions(data, si), layers_table=html_layers_table(data, si), cards="".join(cards),
        plan_note=_e(plan_note), plan_png=base64.b64encode(plan_png).decode("ascii"),
        plan_width=plan_size[0], plan_height=plan_size[1],
        roofline_png=base64.b64encode(roofline_png).decode("ascii"),
        roofline_width=roofline_size[0], roofline_height=roofline_size[1])
