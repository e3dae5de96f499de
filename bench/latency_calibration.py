"""The latency model against published benchmarks: fitted and held out, per device.

    python bench/latency_calibration.py            # the calibration table
    python bench/latency_calibration.py --fit      # also the rates the fit gives, as TOML

Each device profile's operation rates (python/memcore/data/devices.toml) are fitted on
some published benchmarks and checked on others they were not fitted on.  The table
shows, for every benchmark, the published time, the time `memcore check` predicts with
the shipped profile (the C check: per-class rates, traffic the rates include, the
setup), whether the benchmark was fitted or held out, and the error.  The fit itself is
redone here from the same sources, so a profile edited by hand shows up as a
difference between "fit" and "profile".

How each device is fitted (docs/formulas.md, "How well the latency model predicts", says the same):
- class ratios: the ratio between the conv, depthwise, matmul and other rates comes
  from a kernel-level table where one is published (ESP-NN's, on the ESP32-S3); one
  scale per kernel library is then fitted on end-to-end benchmarks;
- where end-to-end benchmarks separate the classes (MLPerf Tiny's anomaly detection is
  fully connected only), the class gets a rate of its own.
The fit minimises the relative error (a linear least-squares problem: time is linear in
1 / rate).
"""
import argparse
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import published_models  # noqa: E402
import memcore  # noqa: E402
from memcore import _lowlevel as ll  # noqa: E402
from memcore.profiles import OPCLASSES, builtin_profiles  # noqa: E402
from memcore.quantise import as_int8  # noqa: E402

MODELS = os.path.join(HERE, "..", "tests", "models")
MHZ = 240e6  # ESP-NN's kernel table counts ticks of a 240 MHz ESP32-S3

# ESP-NN's kernel-level table for the ESP32-S3 (esp-nn README, "Kernelwise performance
# for s8 versions", 240 MHz): (class, operations, ANSI-C ticks, optimised ticks, what).
# Operations count a MAC as 2 and every other element once, as memcore does.  The second
# depthwise row ("input(12,12), pad(1,1), filter 8x5x5x4") is left out: its channel
# multiplier cannot be read from the table.
ESP_NN_KERNELS = (
    ("conv", 2 * 10 * 10 * 64 * 64, 4712500, 331008, "conv 1x1, 10x10x64 -> 64"),
    ("conv", 2 * 8 * 8 * 16 * 16, 312754, 39022, "conv 1x1, 8x8x16 -> 16"),
    ("conv", 2 * 6 * 6 * 64 * 27, 2193289, 394842, "conv 3x3, 8x8x3 -> 64, no padding"),
    ("depthwise", 2 * 16 * 16 * 16 * 9, 1159831, 184176, "depthwise 3x3, 18x18x16, no padding"),
    ("matmul", 2 * 271 * 3, 8443, 1078, "fully connected, 271 -> 3"),
    ("other", 14 * 14 * 16 * 9, 376294, 48069, "max pool 3x3, 16x16x16"),
    ("other", 14 * 14 * 16 * 9, 427293, 118052, "average pool 3x3, 16x16x16"),
    ("other", 1615, 281337, 74440, "element-wise add, 1615"),
    ("other", 1615, 122703, 35002, "element-wise mul, 1615"),
    ("other", 256, 15209, 11107, "softmax, 8x32"),
    ("other", 1615, 1125, 98, "relu6, 1615"),
)

# (device, model, kernels, published seconds, arena region, role, source)
ESPNN = "ESP-NN README, model-level table"
ESPTFLM = "esp-tflite-micro README, performance comparison"
MLPERF = "MLPerf Tiny v0.5, reference submission (TFLM 2.3.1, CMSIS-NN), median throughput"
BENCHMARKS = (
    ("esp32s3", "person_detect", "optimised", 0.047, "ram", "fitted", ESPNN + " (note: with internal RAM)"),
    ("esp32s3", "person_detect", "optimised", 0.054, "psram", "held out", ESPNN + " (tensor arena in PSRAM)"),
    ("esp32s3", "mobilenet_v3_small", "optimised", 1.434, "psram", "held out", ESPNN),
    ("esp32s3", "person_detect", "reference", 2.300, "ram", "fitted", ESPTFLM + " (without ESP-NN)"),
    ("esp32s3", "mobilenet_v3_small", "reference", 26.0, "psram", "held out", ESPNN + " (without ESP-NN)"),
    ("esp32", "person_detect", "optimised", 0.380, "ram", "fitted", ESPTFLM),
    ("esp32", "mobilenet_v2_cifar", "optimised", 0.0989, "ram", "held out",
     "esp-nn issue 38, TFLM + ESP-NN, median of 101 runs"),
    ("esp32", "person_detect", "reference", 4.084, "ram", "fitted", ESPTFLM + " (without ESP-NN)"),
    # (esp-nn issue 38's "portable C", 285.5 ms, is its own generated C, not TFLM's reference kernels)
    ("nucleo-l4r5zi", "kws_dscnn_int8", "optimised", 1 / 5.497, "ram", "fitted", MLPERF),
    ("nucleo-l4r5zi", "vww", "optimised", 1 / 1.665, "ram", "fitted", MLPERF),
    ("nucleo-l4r5zi", "ad", "optimised", 1 / 99.487, "ram", "fitted", MLPERF),
    ("nucleo-l4r5zi", "resnet8_int8", "optimised", 1 / 1.420, "ram", "held out", MLPERF),
)

# How each (device, kernels) is fitted: the class ratios ("esp-nn ansi", "esp-nn optimised")
# scaled by one factor, or groups of classes with a rate each ("separate": {group: classes}).
FITS = {
    ("esp32s3", "optimised"): ("ratios", "optimised"),
    ("esp32s3", "reference"): ("ratios", "ansi"),
    ("esp32", "optimised"): ("ratios", "ansi"),   # ESP-NN on the ESP32 runs its portable C kernels
    ("esp32", "reference"): ("ratios", "ansi"),
    ("nucleo-l4r5zi", "optimised"): ("separate", {"convs": ("conv", "depthwise"), "matmul": ("matmul",)}),
}
OTHER_PER_CONV = 0.25  # nucleo-l4r5zi: "other" is not separated by any benchmark (see the profile)


def kernel_ratios(column):
    """Per-class rate of ESP-NN's kernel table, relative to conv: total operations over
    total time of the class's kernels."""
    k = 2 if column == "ansi" else 3
    rate = {}
    for cls in OPCLASSES:
        rows = [r for r in ESP_NN_KERNELS if r[0] == cls]
        rate[cls] = sum(r[1] for r in rows) / (sum(r[k] for r in rows) / MHZ)
    return {cls: rate[cls] / rate["conv"] for cls in OPCLASSES}


def load_models(folder):
    models = {}
    for name in published_models.BUILT:
        models[name] = as_int8(memcore.load(published_models.save(name, os.path.join(folder, name + ".onnx"))))
    for name in ("kws_dscnn_int8", "resnet8_int8"):
        models[name] = memcore.load(os.path.join(MODELS, name + ".tflite"))
    return models


def run_check(model, profile, kernels, arena_region, rates=None):
    """The C check of `model` on `profile` with the arena in `arena_region` (the
    benchmark's), optionally with other rates: (total seconds, operations by class,
    seconds outside compute)."""
    board = profile.board()
    if arena_region == "ram" and profile.arena_region != "ram":
        board["ram_bytes"] = profile.regions["ram"].size_bytes  # the benchmark's internal-RAM arena
    if rates is not None:
        for cls, rate in rates.items():
            board["%s_int8_%s_ops_per_second" % (cls, kernels)] = rate
    config = {"kernels": kernels, "arena_region": arena_region, "weights_region": "flash",
              "model_file_bytes": model.weight_bytes, "available_bytes": -1}
    raw, _ = ll.check_graph(model.c_graph(), board, config, model.path)
    ops = {cls: raw.operations_by_class[i] for i, cls in enumerate(OPCLASSES)}
    return raw.latency.total_seconds, ops, raw.latency.total_seconds - raw.latency.compute_seconds


def fit(device, kernels, models, profiles):
    """The rates of (device, kernels) from its fitted benchmarks."""
    how, what = FITS[(device, kernels)]
    rows = [b for b in BENCHMARKS if b[0] == device and b[2] == kernels and b[5] == "fitted"]
    profile = profiles[device]
    if how == "ratios":
        groups = {"all": OPCLASSES}
        ratio = kernel_ratios(what)
    else:
        groups = what
        ratio = {cls: 1.0 for cls in OPCLASSES}
        ratio["other"] = OTHER_PER_CONV
    names = list(groups)
    a, y = [], []
    for _, model, _, published, region, _, _ in rows:
        _, ops, fixed = run_check(models[model], profile, kernels, region)
        # time = fixed + sum over groups of x_g * (sum over its classes of ops / ratio);
        # "other" goes with conv's group in the ratio fits and with "convs" otherwise
        row = []
        for g in names:
            classes = list(groups[g]) + (["other"] if g in ("all", "convs") and "other" not in groups[g] else [])
            row.append(sum(ops[c] / ratio[c] for c in classes))
        a.append([v / published for v in row])
        y.append(1 - fixed / published)
    x, *_ = np.linalg.lstsq(np.array(a), np.array(y), rcond=None)
    rates = {}
    for g, xg in zip(names, x):
        base = 1 / xg
        for c in groups[g]:
            rates[c] = base * ratio[c]
        if g in ("all", "convs"):
            rates["other"] = base * ratio["other"]
    for c in OPCLASSES:
        rates.setdefault(c, rates["conv"] * ratio[c])
    return rates


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fit", action="store_true", help="print the fitted rates as devices.toml tables")
    args = parser.parse_args(argv)
    profiles = builtin_profiles()
    with tempfile.TemporaryDirectory() as folder:
        models = load_models(folder)
        fitted = {key: fit(key[0], key[1], models, profiles) for key in FITS}
        print("Latency calibration: published time against memcore check's prediction with the shipped profile")
        print("(fitted: the profile's rates were fitted on it; held out: they were not)")
        print()
        header = ("device", "benchmark", "kernels", "arena", "published", "predicted", "", "error")
        widths = (14, 19, 10, 6, 10, 10, 9, 8)
        print("  ".join(h.ljust(w) if i < 4 or i == 6 else h.rjust(w) for i, (h, w) in enumerate(zip(header, widths))))
        errors = {"fitted": [], "held out": []}
        for device, model, kernels, published, region, role, source in BENCHMARKS:
            predicted, _, _ = run_check(models[model], profiles[device], kernels, region)
            error = predicted / published - 1
            errors[role].append(abs(error))
            print("  ".join((device.ljust(14), model.ljust(19), kernels.ljust(10), region.ljust(6),
                             ("%.1f ms" % (published * 1e3)).rjust(10), ("%.1f ms" % (predicted * 1e3)).rjust(10),
                             role.ljust(9), ("%+.1f %%" % (100 * error)).rjust(8))))
        print()
        for role, values in errors.items():
            print("%-9s mean |error| %5.1f %%, largest %5.1f %% (%d benchmarks)"
                  % (role, 100 * np.mean(values), 100 * max(values), len(values)))
        print()
        print("Fitted rates against the shipped profile (Mops/s; int8)")
        for (device, kernels), rates in fitted.items():
            shipped = profiles[device].rates["int8_" + kernels]
            print("  %-14s %-10s " % (device, kernels) + "  ".join(
                "%s %.3g/%.3g" % (c, rates[c] / 1e6, shipped.get(c, shipped["other"]) / 1e6) for c in OPCLASSES))
        print()
        print("Sources:")
        for source in sorted({b[6] for b in BENCHMARKS}):
            print("  " + source)
        print("  ESP-NN README, kernel-level table (ESP32-S3, 240 MHz): the class ratios")
        if args.fit:
            print()
            for (device, kernels), rates in fitted.items():
                print("[%s.rates.int8_%s]" % (device, kernels))
                for c in OPCLASSES:
                    print("%s = %.3g" % (c, rates[c]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
