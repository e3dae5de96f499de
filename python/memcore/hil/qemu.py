"""A MicroPython firmware image for ports/qemu, run in QEMU as a board on a pseudo-terminal.

The ELF header says which QEMU runs it (ARM: qemu-system-arm, RISC-V: qemu-system-riscv32
or -riscv64); the machine is the one ports/qemu compiled into the firmware's banner
("mps2-an385 with Cortex-M3", "virt with rv32imac_zicsr").  The emulated UART is QEMU's
stdio, and QEMU's stdio is the master side of a pty that the harness holds, as it holds
the unix port's: the port name stays the same when QEMU restarts, nothing the board prints
is dropped while no one is connected, and a client opens it like /dev/ttyUSB0.

Files, Ctrl-C and boot.py/main.py need the board support module micropython/qemu_bsp
compiled in (micropython/build_firmware.sh does): without it the board has no writable
filesystem.  Its RAM disk survives a soft reset but not QEMU's exit (machine.reset()
powers the emulated board off): the board then starts again with a blank disk.
"""
import pathlib
import re
import shutil
import struct
import tempfile

from memcore.hil.boards import Board, SimulatedBoard
from memcore.hil.errors import BoardDisconnected, BoardRebooted, HilError

ELF_MAGIC = b"\x7fELF"
EM_ARM = 40
EM_RISCV = 243

#: QEMU's options per machine ports/qemu has a board for (its boards/*/mpconfigboard.mk)
MACHINES = {
    "mps2-an385": [], "mps2-an500": [], "mps3-an547": [], "netduino2": [],
    "sabrelite": ["-m", "128M"],
    "microbit": ["-global", "nrf51-soc.flash-size=1048576", "-global", "nrf51-soc.sram-size=262144"],
    "virt": ["-bios", "none"],
}
_BANNER_MACHINE = re.compile(rb"(%s) with [\x21-\x7e]+\x00" % b"|".join(re.escape(m.encode()) for m in MACHINES))


class FirmwareError(HilError):
    """The file is not a firmware image this harness knows how to run."""


class Firmware:
    """What QEMU needs to know about a firmware image: its CPU architecture and machine."""

    def __init__(self, path, arch, machine, mcu=None):
        self.path = pathlib.Path(path)
        self.arch = arch          # "arm", "riscv32", "riscv64"
        self.machine = machine    # QEMU's -machine
        self.mcu = mcu            # from the banner, e.g. "Cortex-M3"

    @classmethod
    def read(cls, path, machine=None):
        path = pathlib.Path(path).absolute()  # QEMU runs in the board's own folder
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise FirmwareError("cannot read the firmware %s: %s" % (path, exc.strerror or exc)) from None
        arch = elf_arch(data, path)
        found = _BANNER_MACHINE.search(data)
        mcu = None
        if found:
            mcu = found.group(0)[len(found.group(1)) + len(b" with "):-1].decode("ascii")
        if machine is None:
            if found is None:
                raise FirmwareError("%s: no ports/qemu board name in the firmware; give the QEMU machine "
                                    "(one of %s)" % (path, ", ".join(sorted(MACHINES))))
            machine = found.group(1).decode("ascii")
        if machine not in MACHINES:
            raise FirmwareError("%s: QEMU machine %r is not one ports/qemu builds for (%s)"
                                % (path, machine, ", ".join(sorted(MACHINES))))
        if (machine == "virt") != arch.startswith("riscv"):
            raise FirmwareError("%s: a %s firmware cannot run on QEMU's %s machine" % (path, arch, machine))
        return cls(path, arch, machine, mcu)

    @property
    def qemu(self):
        return "qemu-system-" + self.arch

    def describe(self):
        return "QEMU %s%s running %s" % (self.machine, " (%s)" % self.mcu if self.mcu else "", self.path)

    def argv(self, qemu=None):
        """The QEMU command line: the UART on QEMU's stdio, no monitor, no escape key
        (the raw REPL's Ctrl-A must reach the board), semihosting for machine.reset()."""
        return ([qemu or self.qemu, "-machine", self.machine] + MACHINES[self.machine]
                + (["-cpu", "rv32"] if self.arch == "riscv32" else [])
                + ["-nographic", "-monitor", "none", "-semihosting",
                   "-chardev", "stdio,id=uart0,signal=off", "-serial", "chardev:uart0",
                   "-kernel", str(self.path)])


def elf_arch(data, path="firmware"):
    """"arm", "riscv32" or "riscv64" from an ELF header; FirmwareError for anything else."""
    if len(data) < 20 or data[:4] != ELF_MAGIC:
        raise FirmwareError("%s is not an ELF file (a ports/qemu build's firmware.elf)" % path)
    elf_class, endian = data[4], data[5]
    if endian not in (1, 2):
        raise FirmwareError("%s: an ELF header with an unknown byte order" % path)
    (e_machine,) = struct.unpack("<H" if endian == 1 else ">H", data[18:20])
    if e_machine == EM_ARM and elf_class == 1:
        return "arm"
    if e_machine == EM_RISCV and elf_class in (1, 2):
        return "riscv32" if elf_class == 1 else "riscv64"
    raise FirmwareError("%s: ELF for machine %d (%d-bit), not 32-bit ARM or RISC-V"
                        % (path, e_machine, 32 if elf_class == 1 else 64))


class QemuBoard(SimulatedBoard):
    """A ports/qemu firmware in QEMU, on a pty the harness holds; talks like a serial board.

    firmware  path of the firmware.elf;  machine  QEMU's -machine (default: from the image)
    qemu      the QEMU binary (default: qemu-system-<arch> on PATH)"""

    name = "qemu"

    def __init__(self, firmware, machine=None, qemu=None, **kwargs):
        self.firmware = Firmware.read(firmware, machine)
        argv = self.firmware.argv(qemu)
        if shutil.which(argv[0]) is None:
            raise HilError("%s not found: install QEMU (Debian: apt-get install %s)"
                           % (argv[0], "qemu-system-arm" if self.firmware.arch == "arm" else "qemu-system-misc"))
        kwargs.pop("micropython", None)
        kwargs.pop("heapsize", None)  # compiled into the firmware
        super().__init__(argv=argv, boot_scripts=False, **kwargs)
        # QEMU's own messages go to a log, not onto the board's serial line
        self._log = tempfile.TemporaryFile(prefix="memcore-qemu-")
        self.stderr = self._log

    def describe(self):
        return "%s on %s" % (self.firmware.describe(), self.port_name)

    def qemu_messages(self):
        self._log.seek(0)
        return self._log.read().decode("utf-8", "replace").strip()

    def _alive(self):
        if self.proc is None or self._expect_exit:
            return
        rc = self.proc.poll()
        if rc is None:
            return
        said = self.qemu_messages()
        if rc == 0:
            raise BoardRebooted("QEMU exited: the emulated board was powered off (machine.reset())")
        raise BoardDisconnected("QEMU exited with status %d%s" % (rc, ": " + said if said else ""))

    def interrupt(self):
        Board.interrupt(self)  # Ctrl-C over the UART: qemu_bsp polls it while code runs

    def reset(self, timeout_s=10.0, run_main=False):
        """A soft reset, as on a serial board; a board whose QEMU has exited is powered on."""
        if self.running():
            Board.reset(self, timeout_s, run_main)
            return
        self.spawn()
        self.repl.in_raw_repl = False
        self.repl.enter(timeout_s)

    def close(self):
        try:
            super().close()
        finally:
            self._log.close()
