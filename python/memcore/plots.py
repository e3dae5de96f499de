"""The two pictures: the arena timeline and the roofline with its batch sweep.

Matplotlib with the Agg backend (no display needed); each function returns PNG bytes so
the CLI writes them to a file and the HTML report embeds them.  The plotted numbers all
come from the C core: plans (offsets, arena, lower bound), roofline intensities and
latencies; only the roof lines themselves are drawn from the device's two rates.
"""
import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 - the backend must be chosen first
from matplotlib.patches import Rectangle  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

from memcore.latency import latency  # noqa: E402
from memcore.roofline import roofline  # noqa: E402
from memcore.units import format_bytes, format_count, format_ops_rate, format_rate  # noqa: E402

DPI = 110
BATCHES = (1, 2, 4, 8, 16, 32, 64)
_UNITS = ((1024 ** 3, "GiB", 10 ** 9, "GB"), (1024 ** 2, "MiB", 10 ** 6, "MB"), (1024, "KiB", 1000, "kB"),
          (1, "B", 1, "B"))


def _png(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def _byte_unit(largest_bytes, si):
    """(divisor, name) so the axis reads 0..48 KiB rather than 0..49152 B: ticks then
    land on round numbers of the unit people count in."""
    for binary, binary_name, decimal, decimal_name in _UNITS:
        divisor, name = (decimal, decimal_name) if si else (binary, binary_name)
        if largest_bytes >= 2 * divisor:
            return divisor, name
    return 1, "B"


def _count_axis(axis):
    axis.set_major_formatter(FuncFormatter(lambda v, _: format_count(v) if v >= 1000 else "%g" % v))


def plan_png(model, si=False):
    """Arena timeline: operators across, offsets up, one rectangle per buffer; TFLM's
    plan and memcore's side by side, each with the liveness lower bound."""
    lifetimes = model.lifetimes()
    plans = [model.plan("tflm"), model.plan("best")]
    n_ops = len(model.operators)
    divisor, unit = _byte_unit(max(p.arena_bytes for p in plans), si)
    top = max(p.arena_bytes for p in plans) * 1.1 / divisor or 1
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.2), sharey=True)
    cmap = plt.get_cmap("tab20")
    for ax, p, title in zip(axes, plans, ("TFLM's planner", "memcore's planner")):
        for n, (tensor, offset) in enumerate(sorted(p.offsets.items())):
            first, last = lifetimes[tensor]
            if first < 0:      # never touched by an operator: TFLM still places it
                first, last = 0, n_ops
            size = model.tensors[tensor].bytes
            # Scope s is "while operator s-1 runs"; scope 0 is before the first one.
            ax.add_patch(Rectangle((first - 0.5, offset / divisor), last - first + 1, size / divisor,
                                   facecolor=cmap(n % 20),
                                   edgecolor="black", linewidth=0.6, alpha=0.9))
            if size / divisor > top * 0.06 and last - first >= 1:
                ax.text((first + last) / 2, (offset + size / 2) / divisor, "#%d %s" % (tensor, "×".join(map(str, model.tensors[tensor].shape))),
                        ha="center", va="center", fontsize=7, clip_on=True)
        ax.axhline(p.arena_bytes / divisor, color="tab:red", linewidth=1.5,
                   label="arena %s" % format_bytes(p.arena_bytes, si))
        ax.axhline(p.lower_bound_bytes / divisor, color="black", linestyle="--", linewidth=1.2,
                   label="lower bound %s" % format_bytes(p.lower_bound_bytes, si))
        ax.set_xlim(-0.5, n_ops + 0.5)
        ax.set_ylim(0, top)
        ax.set_xticks(range(n_ops + 1))
        labels = ["in"] + ["%d %s" % (op.index, op.kind.replace("_2D", "").replace("DEPTHWISE_", "DW_").lower())
                           for op in model.operators]
        ax.set_xticklabels(labels, rotation=60, ha="right", fontsize=8)
        ax.set_title("%s: %s" % (title, format_bytes(p.arena_bytes, si)))
        ax.set_xlabel("operator (execution order)")
        ax.grid(axis="y", alpha=0.3)
        ax.legend(loc="upper right", fontsize=8)
    axes[0].set_ylabel("offset in the arena (%s)" % unit)
    fig.suptitle("%s: activation arena, one rectangle per buffer (lifetime × size)"
                 % model.path.rsplit("/", 1)[-1])
    fig.tight_layout()
    return _png(fig)


def roofline_png(model, profile, kernels="optimised", weights_placement=None, batches=BATCHES):
    """Roofline of `profile` with the model at each batch of `batches`: intensity from the
    C roofline, achieved rate = operations / total latency from the C latency."""
    from memcore.check import model_dtype

    placement = weights_placement or profile.default_weights_placement()
    kernels_used = "reference" if model_dtype(model) == "float32" else kernels
    ops_rate = profile.ops_per_second(kernels_used)
    bandwidth = min(profile.weights_bandwidth(placement),
                    profile.regions[profile.arena_region].read_bytes_per_second)
    balance = ops_rate / bandwidth
    points = []
    for b in batches:
        r = roofline(model.weight_bytes, model.activation_bytes, model.operations, balance, b)
        t = latency(model.weight_bytes + b * model.activation_bytes, b * model.operations, bandwidth, ops_rate,
                    profile.overhead_seconds)
        points.append((b, r, b * model.operations / t.total_seconds))
    ceiling = points[0][1].ceiling

    fig, ax = plt.subplots(figsize=(8.5, 5.5))
    lo = min(min(r.intensity for _, r, _ in points), balance) / 4
    hi = max(ceiling, balance) * 4
    xs = [lo, balance, hi]
    ax.plot(xs, [min(ops_rate, bandwidth * x) for x in xs], color="black", linewidth=2,
            label="roof: %s memory, %s compute" % (format_rate(bandwidth), format_ops_rate(ops_rate)))
    ax.axvline(balance, color="gray", linestyle=":", label="machine balance %.3g ops/B" % balance)
    ax.axvline(ceiling, color="tab:purple", linestyle="--", label="model ceiling %.3g ops/B (no batch passes)" % ceiling)
    ax.plot([r.intensity for _, r, _ in points], [a for _, _, a in points], "o-", color="tab:blue",
            label="%s, batch %d to %d (achieved; red label: compute-bound)"
                  % (model.path.rsplit("/", 1)[-1], batches[0], batches[-1]))
    # Label a batch only where it has moved visibly from the last labelled one: near the
    # ceiling the points bunch up and their labels would overprint.
    last_x = None
    for b, r, achieved in points:
        if last_x is None or r.intensity > last_x * 1.12:
            ax.annotate("batch %d" % b, (r.intensity, achieved), textcoords="offset points", xytext=(-8, 9),
                        fontsize=8, rotation=45, color="tab:red" if r.bound == "compute" else "tab:blue")
            last_x = r.intensity
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(min(min(a for _, _, a in points), bandwidth * lo) / 2, ops_rate * 3)
    ax.set_xlabel("arithmetic intensity (operations per byte fetched)")
    ax.set_ylabel("operations per second")
    cross = points[0][1].crossover_batch
    ax.set_title("Roofline on %s (%s kernels): %s" % (
        profile.name, kernels_used,
        "compute-bound from batch %d" % cross if cross else "memory-bound at every batch"))
    _count_axis(ax.xaxis)
    _count_axis(ax.yaxis)
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    return _png(fig)
