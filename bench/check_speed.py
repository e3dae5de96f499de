#!/usr/bin/env python3
"""What `memcore check` costs against `python -c "import memcore"`, side by side.

Both are run as fresh processes, alternating, N times each; the CPU time (user + system)
of each child is read with getrusage, and the medians and their ratio are printed.  The
check reads the model with the C reader and computes everything in one C call, so the
ratio says how much a check adds to just starting memcore.

    python3 bench/check_speed.py [--runs N] [MODEL] [--device D]
"""
import argparse
import os
import resource
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cpu_seconds(argv):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model", nargs="?", default=os.path.join(ROOT, "examples", "kws_dscnn_int8.tflite"))
    ap.add_argument("--device", default="esp32")
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    commands = {
        'python -c "import memcore"': [sys.executable, "-c", "import memcore"],
        "memcore check %s --device %s" % (os.path.basename(args.model), args.device):
            [sys.executable, "-m", "memcore", "check", args.model, "--device", args.device],
        "memcore check ... --json": [sys.executable, "-m", "memcore", "check", args.model, "--device",
                                     args.device, "--json"],
    }
    times = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, argv in commands.items():
            times[name].append(cpu_seconds(argv))
    base = statistics.median(times['python -c "import memcore"'])
    print("%-48s %12s %12s %8s" % ("command", "median CPU s", "min CPU s", "ratio"))
    for name, values in times.items():
        median = statistics.median(values)
        print("%-48s %12.3f %12.3f %8.2f" % (name, median, min(values), median / base))
    print("(%d runs each, alternating; ratio: median CPU time over import memcore's)" % args.runs)


if __name__ == "__main__":
    main()
