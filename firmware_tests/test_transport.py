"""The raw-REPL client and the board backends against the board under test
(the simulated board unless --port), and mpremote on the same port."""
import hashlib
import subprocess
import sys
import time

import pytest

from memcore.hil import BoardDisconnected, BoardRebooted, RemoteError, open_port
from memcore.hil.deploy import deploy, remote_state


def test_exec_returns_stdout(board):
    assert board.repl.exec("print('hi', 6 * 7)").strip() == "hi 42"


def test_raw_paste_is_used_when_the_board_supports_it(board):
    board.repl.exec("x = 1")
    assert board.repl.paste_supported is True


def test_exception_text_comes_back_with_the_output_before_it(board):
    with pytest.raises(RemoteError, match="ZeroDivisionError") as info:
        board.repl.exec("print('before')\n1/0")
    assert info.value.stdout.strip() == b"before"


def test_long_code_crosses_many_flow_control_windows(board):
    code = "x = 0\n" + "".join("x += %d\n" % i for i in range(600)) + "print(x)\n"
    assert len(code) > 20 * 128
    assert board.repl.exec(code, timeout_s=30).strip() == str(sum(range(600)))


def test_plain_raw_mode_works_too(board):
    repl = board.repl
    saved = repl.paste_supported
    repl.paste_supported = False
    try:
        code = "y = 0\n" + "".join("y += %d\n" % i for i in range(200)) + "print(y)\n"
        assert repl.exec(code).strip() == str(sum(range(200)))
    finally:
        repl.paste_supported = saved


def test_port_is_opened_exclusively_with_dtr_and_rts_low(board):
    port = board.port
    assert port.exclusive and port.dtr is False and port.rts is False
    name = getattr(board, "port_name", None) or board.url
    with pytest.raises(BoardDisconnected, match="cannot open"):
        open_port(name)


def test_deploy_writes_verifies_and_skips_unchanged_files(board):
    data = bytes(range(256)) * 9 + b"tail"
    assert deploy(board.repl, {"hil_test/blob.bin": data}) == ["hil_test/blob.bin"]
    assert remote_state(board.repl, "hil_test/blob.bin") == (len(data), hashlib.sha256(data).hexdigest())
    assert deploy(board.repl, {"hil_test/blob.bin": data}) == []
    assert deploy(board.repl, {"hil_test/blob.bin": data[:-1]}) == ["hil_test/blob.bin"]


def test_soft_reset_comes_back_in_the_raw_repl_with_fresh_state(board):
    board.repl.exec("marker = 5")
    board.reset()
    assert board.repl.exec("print('marker' in globals())").strip() == "False"


def test_garbage_before_the_prompt_is_cleared(make):
    b = make()
    if not hasattr(b, "inject"):
        pytest.skip("line noise is injected into the simulated board only")
    b.open("noise", enter=False)
    b.inject(bytes(range(256)).replace(b"\x04", b"") + b"\r\nrst:0x1 (POWERON_RESET)\r\n")
    b.repl.enter()
    assert b.repl.exec("print(1)").strip() == "1"


def test_reset_by_the_code_itself_is_detected(make):
    b = make()
    if not hasattr(b, "proc"):
        pytest.skip("simulated board only: sys.exit() ends the unix port")
    b.open("exit")
    start = time.monotonic()
    with pytest.raises(BoardRebooted) as info:
        b.repl.exec("print('going')\nimport sys\nsys.exit()", timeout_s=10)
    assert time.monotonic() - start < 3
    assert info.value.stdout.strip() == b"going"
    b.reset()  # a board that rebooted comes back
    assert b.repl.exec("print(3)").strip() == "3"


def test_running_code_is_interrupted(make):
    b = make()
    b.open("interrupt")
    from memcore.hil import BoardTimeout
    with pytest.raises(BoardTimeout):
        b.repl.exec("while True:\n    pass", timeout_s=0.5)
    b.interrupt()
    out, err = b.repl._follow(time.monotonic() + 5)
    assert b"KeyboardInterrupt" in err
    assert b.repl.exec("print(4)").strip() == "4"


def test_mpremote_drives_the_same_board(make):
    b = make()
    b.open("mpremote")
    b.release_port()  # one program on a serial port at a time
    port = getattr(b, "port_name", None) or b.url
    # `resume`: no soft reset on connect (it would end the unix port)
    r = subprocess.run([sys.executable, "-m", "mpremote", "connect", port, "resume", "exec", "print(6 * 7)"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "42"
    b.open("after-mpremote")
    assert b.repl.exec("print(5)").strip() == "5"
