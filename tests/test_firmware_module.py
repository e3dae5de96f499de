"""`memcore firmware-module`: memcore.mpy built from the module's source with MicroPython's
dynruntime.mk, its header read back; and the boards' deploy list carrying it.  The build
needs MicroPython's source (../shared/micropython/ beside the checkout, or
$MICROPYTHON_SRC) and pyelftools; CI step 62 builds every architecture and runs it on
stock firmware."""
import json
import os
import pathlib

import pytest

from cli_helpers import memcore_cli
from memcore.commands import firmware_module
from memcore.errors import MemcoreError
from memcore.hil.parity import MODULE_ENV, board_files


def _micropython_source():
    """$MICROPYTHON_SRC, else the tarball in ../shared/micropython/ beside the checkout (or
    a folder above it), as micropython/build_firmware.sh finds it: CI has it."""
    if os.environ.get("MICROPYTHON_SRC"):
        return os.environ["MICROPYTHON_SRC"]
    here = pathlib.Path(__file__).resolve().parent
    for parent in here.parents:
        found = sorted((parent / "shared" / "micropython").glob("*.tar.*"))
        if found:
            return found[0]
    pytest.fail("no MicroPython source: set MICROPYTHON_SRC (a v1.28.0 tree or tarball)")


def test_the_x64_module_is_built_and_its_header_says_so(tmp_path):
    code, out, err = memcore_cli("firmware-module", "--arch", "x64", "-o", tmp_path, "--json",
                                 "--micropython-src", _micropython_source())
    assert code == 0, err
    doc = json.loads(out)
    data = (tmp_path / "memcore.mpy").read_bytes()
    assert doc["schema"] == "memcore.firmware-module/1" and doc["bytes"] == len(data) > 10_000
    assert firmware_module.header(data) == (6, 3, "x64") and doc["mpy_version"] == "6.3"


def test_a_file_that_is_not_a_tarball_is_named(tmp_path):
    junk = tmp_path / "micropython.tar.gz"
    junk.write_bytes(b"not a tarball")
    with pytest.raises(MemcoreError, match="not a MicroPython source tarball"):
        firmware_module.build("armv7m", tmp_path / "out", junk)


def test_a_header_that_is_not_a_mpy_is_refused():
    with pytest.raises(MemcoreError):
        firmware_module.header(b"\x7fELF....")
    assert firmware_module.header(b"M\x06\x2f\x1f") == (6, 3, "rv32imc")


def test_board_files_carry_the_module_named_or_from_the_environment(tmp_path, monkeypatch):
    mpy = tmp_path / "memcore.mpy"
    mpy.write_bytes(b"M\x06")
    monkeypatch.delenv(MODULE_ENV, raising=False)
    assert "memcore.mpy" not in board_files()
    assert board_files(module=mpy)["memcore.mpy"] == mpy
    monkeypatch.setenv(MODULE_ENV, os.fspath(mpy))
    assert board_files()["memcore.mpy"] == mpy
