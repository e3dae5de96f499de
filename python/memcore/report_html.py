"""`memcore report`: one self-contained HTML page — verdict cards for every device and
both pictures embedded as base64 PNG — readable without a terminal or the docs."""
import base64
import html

import memcore
from memcore.check import check
from memcore.compare import compare
from memcore.plots import plan_png, roofline_png
from memcore.units import format_bytes, format_seconds

_COLOURS = {"runs": "#1b7f3b", "will_not_fit": "#b3261e", "too_slow": "#a15c00"}

_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>memcore report: {model}</title>
<style>
 body {{ font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 1100px;
        color: #1c1c1c; padding: 0 1rem; }}
 h1 {{ font-size: 1.6rem; margin-bottom: .2rem; }} .sub {{ color: #555; margin-top: 0; }}
 .main {{ border: 3px solid {main_colour}; border-radius: 10px; padding: 1rem 1.4rem; margin: 1.2rem 0; }}
 .main .verdict {{ font-size: 1.5rem; font-weight: 700; color: {main_colour}; }}
 table {{ border-collapse: collapse; margin: .6rem 0; }}
 td, th {{ padding: .25rem .8rem; text-align: left; }} td.n {{ text-align: right; font-variant-numeric: tabular-nums; }}
 tr + tr td {{ border-top: 1px solid #eee; }}
 .cards {{ display: grid; grid-template-columns: repeat(auto-fill, minmax(240px, 1fr)); gap: .8rem; }}
 .card {{ border-radius: 8px; padding: .8rem 1rem; color: white; }}
 .card h3 {{ margin: 0 0 .3rem 0; font-size: 1.05rem; }} .card p {{ margin: .15rem 0; font-size: .9rem; }}
 .card .desc {{ opacity: .85; font-size: .8rem; }}
 img {{ max-width: 100%; border: 1px solid #ddd; border-radius: 6px; }}
 footer {{ color: #777; font-size: .8rem; margin-top: 2rem; }}
</style></head>
<body>
<h1>{model}</h1>
<p class="sub">{summary}</p>
<section class="main" id="main-verdict">
 <div class="verdict">{main_verdict}</div>
 <p>{main_detail}</p>
 <table>{memory_rows}</table>
 {suggestions}
</section>
<h2>Where can it run?</h2>
<div class="cards" id="cards">{cards}</div>
<h2>Activation arena</h2>
<p>Each rectangle is one activation buffer: its width is how long it lives (operators in execution
order), its height its size, its height off the floor its offset in the arena.  Left: TensorFlow Lite
Micro's planner; right: memcore's.  The dashed line is the lower bound no plan can beat.</p>
<img alt="arena timeline of {model}" src="data:image/png;base64,{plan_png}">
<h2>Roofline on {device}</h2>
<p>Below the sloped roof the device waits for memory; under the flat roof, for arithmetic.  The dots
are this model at growing batch sizes; the dashed line is the intensity no batch can pass.</p>
<img alt="roofline of {model} on {device}" src="data:image/png;base64,{roofline_png}">
<footer>memcore {version} · schema memcore.report/1 · every number computed by the memcore C core</footer>
</body></html>
"""


def _e(text):
    return html.escape(str(text))


def report_html(model, profile, profiles, batch=1, kernels="optimised", si=False):
    """The page for `model`: the main verdict on `profile`, cards for every profile."""
    b = lambda n: format_bytes(n, si)  # noqa: E731 - one short alias keeps the rows readable
    main = check(model, profile, batch, kernels)
    rows = [("weights (%s)" % main.weights_placement, b(main.weights_bytes)),
            ("activation arena, TFLM's plan", b(main.arena_tflm_bytes)),
            ("activation arena, memcore's plan", b(main.arena_best_bytes)),
            ("lower bound", b(main.arena_lower_bound_bytes)),
            ("runtime overhead", b(main.runtime_overhead_bytes)),
            ("recommended arena", b(main.recommended_arena_bytes)),
            ("required", b(main.required_bytes)),
            ("available", b(main.available_bytes)),
            ("headroom", b(main.headroom_bytes)),
            ("time per request (%s dominates)" % main.latency.dominant, format_seconds(main.latency.total_seconds))]
    memory_rows = "".join("<tr><td>%s</td><td class=n>%s</td></tr>" % (_e(k), _e(v)) for k, v in rows)
    suggestions = ""
    if main.suggestions:
        suggestions = "<h3>What would make it fit</h3><table>%s</table>" % "".join(
            "<tr><td>%s</td><td class=n>%s</td><td>%s</td></tr>"
            % (_e(s.action), _e(b(s.headroom_bytes)), "fits" if s.fits else "still short")
            for s in main.suggestions)
    cards = []
    for c in compare(model, profiles, batch, kernels):
        r = c.report
        cards.append('<div class="card" data-device="%s" data-status="%s" style="background:%s">'
                     "<h3>%s</h3><p><b>%s</b></p><p>needs %s of %s · %s per request</p>"
                     '<p class="desc">%s</p></div>'
                     % (_e(c.device), c.status, _COLOURS[c.status], _e(c.device), _e(c.explanation()),
                        _e(b(r.required_bytes)), _e(b(r.available_bytes)),
                        _e(format_seconds(r.latency.total_seconds)), _e(r.profile.description)))
    fits = main.fits
    return _PAGE.format(
        model=_e(main.model), device=_e(profile.name), version=_e(memcore.__version__),
        summary=_e("%d operators · %s of weights · batch %d · %s" % (
            len(model.operators), b(model.weight_bytes), batch, main.dtype)),
        main_colour=_COLOURS["runs" if fits else "will_not_fit"],
        main_verdict=_e("%s on %s%s" % (
            "Fits" if fits else "Does not fit", profile.name,
            "" if main.within_latency_budget else " — but too slow: %s per request, budget %s" % (
                format_seconds(main.latency.total_seconds), format_seconds(profile.latency_budget_seconds)))),
        main_detail=_e("%s: needs %s, %s available, headroom %s." % (
            profile.description, b(main.required_bytes), b(main.available_bytes), b(main.headroom_bytes))),
        memory_rows=memory_rows, suggestions=suggestions, cards="".join(cards),
        plan_png=base64.b64encode(plan_png(model, si)).decode("ascii"),
        roofline_png=base64.b64encode(roofline_png(model, profile, kernels)).decode("ascii"))
