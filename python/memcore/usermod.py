"""Where the MicroPython user C module `memcore` is, for building firmware with it.

    python -m memcore.usermod           the folder for make ports:  make USER_C_MODULES=<it>
    python -m memcore.usermod --cmake   the file for CMake ports (ESP32, RP2):
                                        idf.py -D USER_C_MODULES=<it> build

From a checkout that is its micropython/ folder; from an installed package, the copy the
package ships (memcore/usermod/: the module's build files and the C core's sources, laid
out as in a checkout, so the build files find the core at the same relative place).  An
ESP32 build needs nothing else from this repository:

    make -C ports/esp32 BOARD=ESP32_GENERIC USER_C_MODULES=$(python -m memcore.usermod --cmake)
"""
import argparse
import pathlib
import sys

PACKAGE = pathlib.Path(__file__).resolve().parent


def path(cmake=False):
    """The USER_C_MODULES value: the folder (make ports) or its micropython.cmake."""
    checkout = PACKAGE.parents[1] / "micropython"
    folder = checkout if (checkout / "memcore" / "micropython.mk").is_file() else PACKAGE / "usermod" / "micropython"
    if not (folder / "memcore" / "modmemcore.c").is_file():
        raise FileNotFoundError("memcore's MicroPython module is not in %s: a broken install?" % folder)
    return folder / "micropython.cmake" if cmake else folder


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m memcore.usermod", description=__doc__.strip().splitlines()[0])
    parser.add_argument("--cmake", action="store_true",
                        help="print the micropython.cmake file for CMake ports (ESP32, RP2) instead of the folder")
    args = parser.parse_args(argv)
    try:
        print(path(args.cmake))
    except FileNotFoundError as exc:
        print("memcore.usermod: %s" % exc, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
