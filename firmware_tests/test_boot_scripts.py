"""The board starts as a board does: boot.py, then main.py, then the REPL in the same
globals; a soft reset from the raw REPL (what mpremote and memcore hil do) runs boot.py
only.  On the simulated board and on the QEMU boards this is memcore's doing (the unix
port's start-up code, micropython/qemu_bsp); on an ESP32 it is MicroPython's own."""
import pytest

from memcore.hil.deploy import deploy

BOOT = b"boot_marker = 'boot'\n"
MAIN = b"main_marker = boot_marker + '+main'\n"


@pytest.fixture
def scripts(board):
    deploy(board.repl, {"boot.py": BOOT, "main.py": MAIN})
    yield board
    # a board left with these would run them at every reset of the tests that follow
    board.repl.exec("import os\nfor n in ('boot.py', 'main.py'):\n    os.remove(n)")
    board.reset()


def test_a_power_on_or_friendly_reset_runs_boot_py_then_main_py(scripts):
    scripts.reset(run_main=True)
    assert scripts.repl.exec("print(main_marker)").strip() == "boot+main"


def test_a_soft_reset_from_the_raw_repl_runs_boot_py_only(scripts):
    scripts.reset()
    assert scripts.repl.exec("print(boot_marker, 'main_marker' in globals())").strip() == "boot False"


def test_a_failing_boot_py_leaves_the_board_at_its_repl_without_main_py(board):
    deploy(board.repl, {"boot.py": b"raise ValueError('broken boot')\n", "main.py": MAIN})
    try:
        board.reset(run_main=True)
        assert board.repl.exec("print('main_marker' in globals())").strip() == "False"
    finally:
        board.repl.exec("import os\nfor n in ('boot.py', 'main.py'):\n    os.remove(n)")
        board.reset()
