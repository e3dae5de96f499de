"""The two pictures: the arena timeline and the roofline.

Matplotlib with the Agg backend (no display needed).  `plan_figure` and
`roofline_figure` return a Figure, so tests can inspect what was drawn; `save()` writes
one to a file in the format its name asks for (.png, .jpg, .svg, .pdf) and
`figure_bytes()` gives PNG bytes for the HTML report.  Every plotted number comes from
the C core: plans (offsets, arena, lower bound), TFLM's tail and recommended arena, the
roofline's intensities and the latencies; only the roof lines themselves are drawn from
the device's two rates, and a point's rate is its operations over its C latency.

What a reader should get at a glance, and the tests check: no two labels overprint;
every buffer, however small, is visible; the legend sits outside the data; the device's
limit, TFLM's tail and the recommended arena are marked on the plan; the latency budget
on the roofline; identical plans are drawn once, with a note saying so.
"""
import io
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 - the backend must be chosen first
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch, Rectangle  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter  # noqa: E402

from memcore.errors import MemcoreError, open_for_writing  # noqa: E402
from memcore.ops import rates  # noqa: E402
from memcore.units import format_bytes, format_ops_rate, format_rate, format_seconds  # noqa: E402

DPI = 110
FORMATS = {".png": "png", ".jpg": "jpeg", ".jpeg": "jpeg", ".svg": "svg", ".pdf": "pdf"}
SWEEP = (1, 2, 4, 8, 16, 32, 64)
# The smallest height, in points, a buffer's rectangle is drawn with: at 110 dpi about
# 3 pixels, so a 16-byte buffer in a 200 KiB arena still shows.
MIN_BUFFER_POINTS = 2.5
_UNITS = ((1024 ** 3, "GiB", 10 ** 9, "GB"), (1024 ** 2, "MiB", 10 ** 6, "MB"), (1024, "KiB", 1000, "kB"),
          (1, "B", 1, "B"))
COLOURS = {"arena": "tab:red", "lower": "black", "tail": "tab:orange", "recommended": "tab:green",
           "limit": "tab:purple", "budget": "tab:orange"}


def picture_format(path):
    """The matplotlib format for a file name, or a MemcoreError naming the ones there are."""
    ext = os.path.splitext(str(path))[1].lower()
    if ext not in FORMATS:
        raise MemcoreError("cannot write %s: %s is not a picture format memcore writes; name the file "
                           ".png, .jpg, .svg or .pdf" % (path, "'%s'" % ext if ext else "no extension"))
    return FORMATS[ext]


def save(fig, path):
    """Writes `fig` to `path` in the format of its extension (checked first)."""
    fmt = picture_format(path)
    with open_for_writing(path, "wb") as f:
        fig.savefig(f, format=fmt, dpi=DPI, bbox_inches="tight")
    plt.close(fig)


def figure_bytes(fig, fmt="png"):
    buf = io.BytesIO()
    fig.savefig(buf, format=fmt, dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def _byte_unit(largest_bytes, si):
    """(divisor, name) so the axis reads 0..48 KiB rather than 0..49152 B."""
    for binary, binary_name, decimal, decimal_name in _UNITS:
        divisor, name = (decimal, decimal_name) if si else (binary, binary_name)
        if largest_bytes >= 2 * divisor:
            return divisor, name
    return 1, "B"


def _overlap(a, b):
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def _inside(inner, outer):
    return inner.x0 >= outer.x0 and inner.x1 <= outer.x1 and inner.y0 >= outer.y0 and inner.y1 <= outer.y1


def _keep_labels(fig, candidates):
    """Draws, then removes every label of `candidates` ((text, box it must stay inside or
    None)) that leaves its box or overlaps a label kept before it: what remains never
    overprints."""
    renderer = fig.canvas.get_renderer()
    kept = []
    for text, box in candidates:
        extent = text.get_window_extent(renderer)
        if (box is not None and not _inside(extent, box)) or any(_overlap(extent, k) for k in kept):
            text.remove()
        else:
            kept.append(extent)


def _thin_ticks(ax, axis="x"):
    """Hides tick labels that would overprint their neighbours."""
    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    labels = ax.get_xticklabels() if axis == "x" else ax.get_yticklabels()
    kept = []
    for label in labels:
        if not label.get_text():
            continue
        extent = label.get_window_extent(renderer)
        if any(_overlap(extent, k) for k in kept):
            label.set_visible(False)
        else:
            kept.append(extent)


# ---- the arena timeline ----------------------------------------------------------

def plans_identical(tflm, best):
    return tflm.arena_bytes == best.arena_bytes and tflm.offsets == best.offsets


def _op_label(op):
    return "%d %s" % (op.index, op.kind.replace("_2D", "").replace("DEPTHWISE_", "DW_").lower())


def plan_figure(model, data=None, si=False):
    """Arena timeline: operators across, offsets up, one rectangle per buffer.  TFLM's plan
    and memcore's side by side (one panel when they are the same), each with the lower
    bound; with a check report's `data` (memcore.report/1) also TFLM's tail on top of the
    arena, the recommended arena and the device's RAM."""
    lifetimes = model.lifetimes()
    tflm, best = model.plan("tflm"), model.plan("best")
    identical = plans_identical(tflm, best)
    panels = [(tflm, "TFLM's plan = memcore's plan (identical offsets)")] if identical else \
        [(tflm, "TFLM's planner"), (best, "memcore's planner")]
    n_ops = len(model.operators)
    head = tflm.arena_bytes
    tail = data["runtime_overhead_bytes"] if data else 0
    recommended = data["recommended_arena_bytes"] if data else None
    limit = data["available_bytes"] if data else None
    top_bytes = max([head, best.arena_bytes, 1] + ([head + tail, recommended] if data else []))
    limit_on_chart = limit is not None and limit <= 2.5 * top_bytes
    if limit_on_chart:
        top_bytes = max(top_bytes, limit)
    divisor, unit = _byte_unit(top_bytes, si)
    top = top_bytes * 1.06 / divisor

    width = 7.5 if identical else 13.0
    fig, axes = plt.subplots(1, len(panels), figsize=(width, 5.6), sharey=True, squeeze=False,
                             layout="constrained")
    axes = axes[0]
    cmap = plt.get_cmap("tab20")
    labels = []
    for ax, (p, title) in zip(axes, panels):
        ax.set_xlim(-0.5, n_ops + 0.5)
        ax.set_ylim(0, top)
        # Height in data units of MIN_BUFFER_POINTS at this axes' size.
        axes_points = ax.get_position().height * fig.get_figheight() * 72
        min_height = top * MIN_BUFFER_POINTS / max(axes_points, 1.0)
        for n, (tensor, offset) in enumerate(sorted(p.offsets.items())):
            first, last = lifetimes[tensor]
            if first < 0:      # never touched by an operator: TFLM still places it
                first, last = 0, n_ops
            size = model.tensors[tensor].bytes
            height = max(size / divisor, min_height)
            rect = Rectangle((first - 0.5, offset / divisor), last - first + 1, height, facecolor=cmap(n % 20),
                             edgecolor="black", linewidth=0.6, alpha=0.9, gid="buffer-%d" % tensor)
            ax.add_patch(rect)
            shape = "×".join(map(str, model.tensors[tensor].shape))
            labels.append((ax, ((first + last) / 2, (offset + size / 2) / divisor),
                           ("#%d %s" % (tensor, shape), "#%d" % tensor), rect, tensor))
        ax.axhline(p.arena_bytes / divisor, color=COLOURS["arena"], linewidth=1.5)
        ax.axhline(p.lower_bound_bytes / divisor, color=COLOURS["lower"], linestyle="--", linewidth=1.2)
        if data and p is tflm:
            if tail:
                ax.axhspan(head / divisor, (head + tail) / divisor, facecolor="none", edgecolor=COLOURS["tail"],
                           hatch="///", linewidth=0.8)
            ax.axhline(recommended / divisor, color=COLOURS["recommended"], linewidth=1.5, linestyle="-.")
        if limit_on_chart:
            ax.axhline(limit / divisor, color=COLOURS["limit"], linewidth=2.0, linestyle=":")
        ax.set_xticks(range(n_ops + 1))
        # Upright labels' boxes are what they cover, so thinning overprinting ones is exact.
        ax.set_xticklabels(["in"] + [_op_label(op) for op in model.operators], rotation=90, fontsize=8)
        ax.set_title("%s: %s" % (title, format_bytes(p.arena_bytes, si)), fontsize=10)
        ax.set_xlabel("operator (execution order)")
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("offset in the arena (%s)" % unit)

    handles = [Line2D([], [], color=COLOURS["arena"], linewidth=1.5, label="planned arena (TFLM's head) %s"
                      % format_bytes(head, si)),
               Line2D([], [], color=COLOURS["lower"], linestyle="--", label="lower bound %s: no plan needs less"
                      % format_bytes(tflm.lower_bound_bytes, si))]
    if data:
        if tail:
            handles.append(Patch(facecolor="none", edgecolor=COLOURS["tail"], hatch="///",
                                 label="TFLM's tail (persistent) %s" % format_bytes(tail, si)))
        handles.append(Line2D([], [], color=COLOURS["recommended"], linestyle="-.", linewidth=1.5,
                              label="recommended arena %s" % format_bytes(recommended, si)))
        limit_label = "%s RAM for the model %s" % (data["device"], format_bytes(limit, si))
        if not limit_on_chart:
            limit_label += " (above the chart: %.3g× the recommended arena)" % (limit / max(recommended, 1))
        handles.append(Line2D([], [], color=COLOURS["limit"], linestyle=":", linewidth=2.0, label=limit_label))
    fig.legend(handles=handles, loc="outside lower center", ncol=2 if identical else 3, fontsize=8, frameon=False)
    fig.suptitle("%s: activation arena, one rectangle per buffer (lifetime × size)"
                 % model.path.rsplit("/", 1)[-1], fontsize=11)
    fig.canvas.draw()
    for ax in axes:
        _thin_ticks(ax)
    _label_buffers(fig, labels)
    return fig


def _label_buffers(fig, labels):
    """Each buffer gets the longest of its labels that fits inside its rectangle without
    touching a label already placed; a buffer too small for any stays unlabelled."""
    renderer = fig.canvas.get_renderer()
    kept = []
    for ax, (x, y), choices, rect, tensor in labels:
        box = rect.get_window_extent(renderer)
        for choice in choices:
            text = ax.text(x, y, choice, ha="center", va="center", fontsize=7, gid="label-%d" % tensor)
            extent = text.get_window_extent(renderer)
            if _inside(extent, box) and not any(_overlap(extent, k) for k in kept):
                kept.append(extent)
                break
            text.remove()


# ---- the roofline ----------------------------------------------------------------

def streams_one_example(profile):
    """A microcontroller serves one sensor stream: its requests are one example each, so
    a batch sweep means nothing there.  Such a profile keeps its weights in flash or has
    32-bit pointers."""
    return profile.has_flash or profile.pointer_bytes == 4


def meaningful_batches(model, profile, kernels="optimised", placement=None):
    """The batches worth drawing: batch 1 on a microcontroller; elsewhere the powers of
    two up to 64 that fit the device's memory (the C budget's max_batch)."""
    if streams_one_example(profile):
        return (1,)
    from memcore.budget import max_batch
    from memcore.check import check

    # batch 1's check: the model loaded beside the arena (its whole file, when in RAM)
    one = check(model, profile, 1, kernels, placement, suggest=False)
    largest = max_batch(one.fields["loaded_model_bytes"], 1, one.arena_tflm_bytes, one.fields["runtime_bytes"],
                        profile.available_bytes)
    fitting = tuple(b for b in SWEEP if largest is None or b <= largest)
    return fitting or (1,)


def roofline_points(model, profile, kernels_used, placement, batches):
    """[(batch, Roofline, Latency, operations per second achieved)], each from the C check
    of the model at that batch (the same numbers `memcore check --batch B` gives)."""
    from memcore.check import check
    points = []
    for b in batches:
        report = check(model, profile, b, kernels_used, placement, suggest=False)
        t = report.latency
        points.append((b, report.roofline, t, b * model.operations / t.total_seconds))
    return points


def _count_formatter(value, _pos=None):
    """Decade ticks the same way at every scale: '0.1', '10', '1 k', '100 M', '10 T'."""
    for scale, unit in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= scale:
            return "%g %s" % (value / scale, unit)
    return "%g" % value


def _log_axis(axis):
    """Decade ticks, each labelled the same way ('10', '1 k', '10 M'), minor ticks unlabelled."""
    axis.set_major_locator(LogLocator(base=10, numticks=12))
    axis.set_major_formatter(FuncFormatter(_count_formatter))
    axis.set_minor_formatter(NullFormatter())


def roofline_figure(model, profile, kernels="optimised", weights_placement=None, batches=None, budget_seconds=None):
    """Roofline of `profile` with the model at each batch of `batches` (default:
    meaningful_batches): intensity from the C roofline, the estimated rate from the C
    latency, and the rate the latency budget asks for when the user gave one
    (`budget_seconds`, else the device file's; none: no budget drawn)."""
    from memcore.check import model_dtype

    placement = weights_placement or profile.default_weights_placement()
    kernels_used = "reference" if model_dtype(model) == "float32" else kernels
    batches = tuple(batches or meaningful_batches(model, profile, kernels_used, placement))
    bandwidth, ops_rate = rates(profile, kernels_used, placement, model)
    balance = ops_rate / bandwidth
    points = roofline_points(model, profile, kernels_used, placement, batches)
    ceiling = points[0][1].ceiling
    budget = budget_seconds if budget_seconds is not None else profile.latency_budget_seconds
    needed = [b * model.operations / budget for b in batches] if budget else []

    fig, ax = plt.subplots(figsize=(8.5, 6.0), layout="constrained")
    finite_ceiling = ceiling if ceiling != float("inf") else None
    lo = min(min(r.intensity for _, r, _, _ in points), balance) / 4
    hi = max(finite_ceiling if len(batches) > 1 and finite_ceiling else 0, balance,
             max(r.intensity for _, r, _, _ in points)) * 4
    xs = [lo, balance, hi]
    ax.plot(xs, [min(ops_rate, bandwidth * x) for x in xs], color="black", linewidth=2,
            label="roof: %s memory, %s compute" % (format_rate(bandwidth), format_ops_rate(ops_rate)))
    ax.axvline(balance, color="gray", linestyle=":", label="machine balance %.3g operations per byte" % balance)
    if finite_ceiling and finite_ceiling < hi and len(batches) > 1:
        ax.axvline(finite_ceiling, color="tab:purple", linestyle="--",
                   label="model ceiling %.3g operations per byte: no batch passes it" % finite_ceiling)
    model_name = model.path.rsplit("/", 1)[-1]
    xs_points = [r.intensity for _, r, _, _ in points]
    ys_points = [rate for _, _, _, rate in points]
    within = [not budget or t.total_seconds <= budget for _, _, t, _ in points]
    ax.plot(xs_points, ys_points, "-", color="tab:blue", linewidth=1, zorder=2)
    if any(within):
        ax.scatter([x for x, w in zip(xs_points, within) if w], [y for y, w in zip(ys_points, within) if w],
                   color="tab:blue", zorder=3, label="%s, estimated by memcore's latency model%s"
                   % (model_name, ": within the budget" if budget else ""))
    if not all(within):
        ax.scatter([x for x, w in zip(xs_points, within) if not w], [y for y, w in zip(ys_points, within) if not w],
                   facecolor="white", edgecolor="tab:red", linewidth=1.5, zorder=3,
                   label="%s, estimated by memcore's latency model: over the budget" % model_name)
    if not budget:
        pass
    elif len(batches) == 1:
        ax.axhline(needed[0], color=COLOURS["budget"], linestyle="--", linewidth=1.5,
                   label="needed to answer within the %s budget: %s" % (format_seconds(budget),
                                                                       format_ops_rate(needed[0])))
    else:
        ax.scatter(xs_points, needed, marker="_", s=250, color=COLOURS["budget"], linewidth=2, zorder=3,
                   label="needed at that batch to answer within the %s budget" % format_seconds(budget))
    texts = []
    # The first and last batch are labelled first: where points bunch, those two say the most.
    for (b, r, t, rate) in sorted(points, key=lambda p: (p is not points[0] and p is not points[-1], p[0])):
        # The first batch's label goes below-left of its point, the others above-right,
        # so the two ends of a bunched sweep do not compete for the same place.
        first = b == points[0][0]
        texts.append((ax.annotate("batch %d: %s" % (b, format_seconds(t.total_seconds)), (r.intensity, rate),
                                  textcoords="offset points", xytext=(-8, -14) if first else (6, 8),
                                  ha="right" if first else "left", fontsize=8, color="tab:blue"), None))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(min(min(ys_points), bandwidth * lo, min(needed or ys_points)) / 3, max(ops_rate, max(needed or ys_points)) * 3)
    ax.set_xlabel("arithmetic intensity (operations per byte fetched)")
    ax.set_ylabel("operations per second")
    cross = points[0][1].crossover_batch
    sweep = "batch 1: a microcontroller serves one stream" if batches == (1,) and streams_one_example(profile) \
        else "batch %s" % ", ".join(map(str, batches))
    ax.set_title("Roofline on %s (%s kernels), %s\n%s" % (
        profile.name, kernels_used, sweep,
        "compute-bound from batch %d" % cross if cross else "memory-bound at every batch"), fontsize=10)
    _log_axis(ax.xaxis)
    _log_axis(ax.yaxis)
    ax.grid(True, which="major", alpha=0.3)
    ax.grid(True, which="minor", alpha=0.08)
    fig.legend(loc="outside lower center", ncol=1, fontsize=8, frameon=False)
    fig.canvas.draw()
    _keep_labels(fig, texts)
    return fig
