"""`memcore firmware-module`: memcore.mpy, the native module that stock MicroPython loads.

The module is built from the same binding and C core as the user C module
(micropython/memcore/natmod.mk, from a checkout or the installed package's copy, as
`python -m memcore.usermod` finds it) with MicroPython's own py/dynruntime.mk and
tools/mpy_ld.py, for one architecture.  A .mpy loads only on firmware of the same .mpy
version (MicroPython v1.28.0 writes and reads version 6.3) and the same architecture.
"""
import os
import pathlib
import shutil
import subprocess
import sys
import tarfile

from memcore import cli_options, jsonout, usermod
from memcore.errors import MemcoreError
from memcore.terminal import Out

#: mpy_ld's architectures (py/dynruntime.mk) and the boards they are for
ARCHES = {
    "x64": "the unix port on x86-64",
    "x86": "the unix port on 32-bit x86",
    "armv6m": "Cortex-M0/M0+: RP2040",
    "armv7m": "Cortex-M3 (and M4/M7 without their FPU): STM32F1/F2, the QEMU MPS2_AN385 board",
    "armv7emsp": "Cortex-M4F/M7 with a single-precision FPU: STM32F4, nRF52, RP2350 (Arm)",
    "armv7emdp": "Cortex-M7 with a double-precision FPU: STM32F7/H7",
    "rv32imc": "RISC-V rv32imc: ESP32-C3/C6, RP2350 (RISC-V), the QEMU VIRT_RV32 board",
    "xtensa": "ESP8266 (needs the ESP8266 SDK's ROM symbols: Debian's lx106 libgcc lacks them)",
    "xtensawin": "ESP32, ESP32-S2/S3 (needs Espressif's xtensa-esp32-elf toolchain)",
}
MICROPYTHON_VERSION = "v1.28.0"
#: the .mpy header's version byte and native sub-version that v1.28.0 writes and loads
MPY_VERSION = (6, 3)
#: the header's architecture field (py/persistentcode.h, MP_NATIVE_ARCH_*)
ARCH_CODES = {1: "x86", 2: "x64", 3: "armv6", 4: "armv6m", 5: "armv7m", 6: "armv7em", 7: "armv7emsp",
              8: "armv7emdp", 9: "xtensa", 10: "xtensawin", 11: "rv32imc", 12: "rv64imc"}


def register(sub):
    p = cli_options.add_command(
        sub, "firmware-module", "build memcore.mpy, the native module stock MicroPython firmware loads",
        """Builds memcore as a MicroPython dynamic native module (memcore.mpy) for one architecture,
from the same binding and C core as the user C module: copied to a board's filesystem
(mpremote cp memcore.mpy :), `import memcore` loads it on firmware without the C module
and the boot check reads the .tflite itself.  Needs MicroPython's source at the pinned
release (%s: --micropython-src or $MICROPYTHON_SRC, a source tree or tarball; a checkout
finds ../shared/micropython/), the architecture's GCC, and pyelftools and ar (pip).  The
.mpy loads only on firmware of the same .mpy version (%d.%d) and architecture.""" % (
            (MICROPYTHON_VERSION,) + MPY_VERSION),
        ["memcore firmware-module --arch armv7m -o build/mpy-armv7m",
         "memcore firmware-module --arch rv32imc -o out/ --micropython-src ~/micropython",
         "memcore firmware-module --arch xtensawin -o out/   # with Espressif's toolchain on PATH"])
    p.add_argument("--arch", required=True, choices=sorted(ARCHES), help="the board's architecture")
    p.add_argument("-o", "--output", required=True, metavar="DIR", help="folder for memcore.mpy (and its build)")
    p.add_argument("--micropython-src", metavar="PATH",
                   help="MicroPython %s: a source tree or a release tarball (default: $MICROPYTHON_SRC, "
                        "else ../shared/micropython/ beside a checkout)" % MICROPYTHON_VERSION)
    p.add_argument("--jobs", type=cli_options.positive_int, default=2, help="make's parallelism (default 2)")
    cli_options.add_json(p, "where the module went, its size and header (schema memcore.firmware-module/1)")
    p.set_defaults(run=run)


def _shared_tarball():
    """../shared/micropython/*.tar.* beside the checkout (or a folder above it), if any."""
    folder = usermod.PACKAGE.parents[1]
    for parent in [folder] + list(folder.parents):
        found = sorted((parent / "shared" / "micropython").glob("*.tar.*"))
        if found:
            return found[0]
    return None


def source_tree(given, out):
    """MicroPython's source tree: `given` (a tree, or a tarball unpacked once under `out`)."""
    src = given or os.environ.get("MICROPYTHON_SRC") or _shared_tarball()
    if not src:
        raise MemcoreError("no MicroPython source: give --micropython-src (a clone of %s or its tarball) "
                           "or set MICROPYTHON_SRC" % MICROPYTHON_VERSION)
    src = pathlib.Path(src)
    if src.is_dir():
        if not (src / "py" / "dynruntime.mk").is_file():
            raise MemcoreError("%s: not a MicroPython source tree (no py/dynruntime.mk)" % src)
        return src.resolve()
    if not src.is_file():
        raise MemcoreError("%s: no such file or folder (MicroPython's source)" % src)
    unpacked = out / "src" / src.name.split(".tar")[0]
    if not (unpacked / ".unpacked").is_file():
        shutil.rmtree(unpacked, ignore_errors=True)
        unpacked.mkdir(parents=True)
        try:
            with tarfile.open(src) as tar:
                for member in tar.getmembers():  # drop the tarball's top folder (tar --strip-components=1)
                    parts = pathlib.PurePosixPath(member.name).parts[1:]
                    if not parts or ".." in parts or member.issym() or member.islnk():
                        continue
                    member.name = str(pathlib.PurePosixPath(*parts))
                    tar.extract(member, unpacked)
        except tarfile.TarError as exc:
            raise MemcoreError("%s: not a MicroPython source tarball (%s)" % (src, exc)) from None
        (unpacked / ".unpacked").touch()
    if not (unpacked / "py" / "dynruntime.mk").is_file():
        raise MemcoreError("%s does not hold a MicroPython source tree" % src)
    return unpacked


def header(data):
    """(version, sub-version, architecture) from a .mpy file's first bytes."""
    if len(data) < 4 or data[0:1] != b"M":
        raise MemcoreError("not a .mpy file (no 'M' header)")
    return data[1], data[2] & 3, ARCH_CODES.get(data[2] >> 2, "unknown")


def build(arch, out, src=None, jobs=2):
    """Build memcore.mpy for `arch` into the folder `out`; returns its path."""
    out = pathlib.Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    mpy = source_tree(src, out)
    natmod = usermod.path() / "memcore" / "natmod.mk"
    work = out / ".build" / arch
    work.mkdir(parents=True, exist_ok=True)
    # PYTHON: MicroPython's tools (mpy_ld needs pyelftools) run in this interpreter, whose
    # environment has memcore's [firmware] extra, not whichever python3 is first on PATH.
    command = ["make", "-j%d" % jobs, "-C", str(work), "-f", str(natmod), "MPY_DIR=%s" % mpy, "ARCH=%s" % arch,
               "PYTHON=%s" % sys.executable]
    try:
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    except FileNotFoundError:
        raise MemcoreError("make is not installed: the module is built with MicroPython's py/dynruntime.mk")
    if done.returncode != 0:
        raise MemcoreError("building memcore.mpy for %s failed (%s):\n%s"
                           % (arch, " ".join(command), " / ".join(done.stdout.splitlines()[-12:])))
    target = out / "memcore.mpy"
    shutil.copyfile(work / "memcore.mpy", target)
    return target


def run(args):
    target = build(args.arch, args.output, args.micropython_src, args.jobs)
    data = target.read_bytes()
    version, sub_version, arch = header(data)
    if args.json:
        jsonout.emit({"schema": "memcore.firmware-module/1", "path": str(target), "bytes": len(data),
                      "arch": args.arch, "mpy_version": "%d.%d" % (version, sub_version),
                      "micropython": MICROPYTHON_VERSION})
    else:
        Out().line("%s: %d bytes, .mpy version %d.%d, %s (MicroPython %s)"
                   % (target, len(data), version, sub_version, arch, MICROPYTHON_VERSION))
    return 0
