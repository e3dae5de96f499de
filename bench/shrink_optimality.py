"""How close the files `memcore shrink` writes come to the optimum, against an exact solver.

For every model shrink reads (the shared models, tests/models, the corpus and the
generated models of tests/reorder_models.py; host64, reference kernels), TFLM's buffers
of the file shrink writes (tensors and kernel scratch, TFLM's lifetimes in the file's
operator order, the file's offline plan left out) are given to Google OR-Tools' CP-SAT
(bench/planner_quality.py's model), which finds the least arena for that order:

    own optimum     the least head for the written file's operator order
    best order      the least over the orders measured: the file's order and the order
                    mc_reorder found (each solved by CP-SAT)
    least peak      the order search's least peak of live bytes (`*`: proven over every
                    order), below every order's optimum

(Without its offline plan, a file's variable tensors are TFLM's tail's, not its head's:
where the file's plan puts them in the head, the optimum can be below any head with them.)

A shrunk file's head must never be above its own optimum; in sum the heads should be
within 0.5 % of the best order's optimum.  The table lists the models shrink changes,
then the sums, the models written unchanged whose head is above their optimum (where a
smaller head would not lower TFLM's recommended arena), and the time per model.

    pip install ortools   # the bench's own dependency, not the package's
    python bench/shrink_optimality.py [--seconds 10]
"""
import argparse
import pathlib
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

import memcore  # noqa: E402
from memcore import _lowlevel as ll  # noqa: E402
from memcore.shrink import shrink  # noqa: E402
from memcore.targets import kernels_code, target_code  # noqa: E402
from memcore.tflite import load_tflite  # noqa: E402
from memcore.tflite_write import OFFLINE_PLAN, with_metadata, with_operator_order  # noqa: E402
from planner_quality import ALIGNMENT, optimum  # noqa: E402
from shrink import models  # noqa: E402


def order_optimum(data, path, seconds):
    """CP-SAT's least head for the operator order of the file `data` (its offline plan
    left out): (bytes, proven), or (0, True) when TFLM plans nothing in the head."""
    plain = with_metadata(data, OFFLINE_PLAN, None, path)
    sizes, first, last, _ = ll.tflm_buffers(load_tflite(path, plain).c_graph(), target_code("host64"),
                                            kernels_code("reference"), 0, path)
    if not sizes:
        return 0, True
    aligned = [(s + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT for s in sizes]
    return optimum(aligned, first, last, seconds)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=10.0, help="CP-SAT's time limit per instance")
    args = ap.parse_args(argv)
    rows, unchanged, refused, times = [], [], 0, []
    with tempfile.TemporaryDirectory() as tmp:
        for name, path in models(pathlib.Path(tmp)):
            start = time.time()
            try:
                result = shrink(path, "host64", "reference")
            except memcore.MemcoreError:
                refused += 1
                continue
            times.append(time.time() - start)
            if not result.changed:
                # written as it is: TFLM's own plan, which may be above the optimum where a
                # smaller head would not lower the recommended arena
                own, _ = order_optimum(result.data, str(path), args.seconds)
                unchanged.append((name, result.before.head_bytes, own))
                continue
            # the file's order and the order mc_reorder finds, each solved (the written
            # file's order is one of them)
            plain = with_metadata(path.read_bytes(), OFFLINE_PLAN, None, str(path))
            found = tuple(ll.reorder(load_tflite(str(path), plain).c_graph(), target_code("host64"),
                                     kernels_code("reference"), 0, ll.lib.MC_REORDER_DEFAULT_WIDTH,
                                     ll.lib.MC_PLAN_DEFAULT_STEPS, str(path))[0])
            file_order = tuple(range(len(found)))
            solved = {}
            for order in {file_order, found}:
                data = plain if order == file_order else with_operator_order(plain, order, str(path))
                solved[order] = order_optimum(data, str(path), args.seconds)
            own, own_proven = solved[tuple(result.order)]
            best_order = min(value for value, _ in solved.values())
            proven = all(ok for _, ok in solved.values())
            least = result.reorder.searched_peak_bytes if result.reorder is not None else None
            exact = result.reorder is not None and result.reorder.exact
            rows.append((name, result.before.head_bytes, result.after.head_bytes, own, own_proven, best_order,
                         proven, least, exact, result.reordered))
    print("%-40s %9s %9s %9s %9s %9s %8s" % ("model", "before", "head", "own opt", "best ord", "least", "reorder"))
    for name, before, head, own, own_proven, best, proven, least, exact, reordered in rows:
        print("%-40s %9s %9s %8s%s %8s%s %8s%s %8s" % (
            name[:40], "{:,}".format(before), "{:,}".format(head), "{:,}".format(own), " " if own_proven else "?",
            "{:,}".format(best), " " if proven else "?", "-" if least is None else "{:,}".format(least),
            "*" if exact else " ", "yes" if reordered else "no"))
    above = [r[0] for r in rows if r[2] > r[3]]
    heads, bests = sum(r[2] for r in rows), sum(r[5] for r in rows)
    print("%d models: %d shrunk, %d written unchanged, %d refused; `?`: CP-SAT's best, not proven in %g s"
          % (len(rows) + len(unchanged) + refused, len(rows), len(unchanged), refused, args.seconds))
    print("heads above their own order's optimum: %d%s" % (len(above), (" (" + ", ".join(above) + ")") if above
                                                          else ""))
    print("sum of heads %s B against the best orders' optima %s B: %+.2f %%"
          % ("{:,}".format(heads), "{:,}".format(bests), 100.0 * (heads - bests) / bests if bests else 0.0))
    kept_above = [(n, head, own) for n, head, own in unchanged if head > own]
    print("written unchanged: %d at their order's optimum, %d above it (a smaller head would not lower TFLM's "
          "recommended arena):" % (len(unchanged) - len(kept_above), len(kept_above)))
    for n, head, own in kept_above:
        print("  %-40s head %8s, optimum %8s" % (n[:40], "{:,}".format(head), "{:,}".format(own)))
    times.sort()
    print("shrink's time per model: median %.1f ms, slowest %.1f ms" % (1000 * times[len(times) // 2],
                                                                       1000 * times[-1]))


if __name__ == "__main__":
    main()
