"""The harness's own fault handling: every fault ends in a clear exception or report within
its timeout, and whatever the board did send is kept (in the report and the transcript)."""
import socket
import threading
import time

import pytest

from fakeboard import FakeBoard
from boardkit import host_lines
from memcore.hil import BoardTimeout, SerialBoard
from memcore.hil.parity import compare, run_on_board, vector_names

NAMES = vector_names()
ALL_CASES = len(host_lines()) - 2
HALF = len(host_lines()) // 2 - 1  # results a fake board sends before its fault (after the header)


def run_fake(board, timeout_s=10.0):
    board.open("fault")
    start = time.monotonic()
    report = compare(run_on_board(board, NAMES, timeout_s=timeout_s, deploy_files=False), NAMES)
    return report, time.monotonic() - start


def test_well_behaved_fake_board_agrees(fake_board):
    report, _ = run_fake(fake_board("normal"))
    assert report.status == "ok" and report.cases == ALL_CASES and not report.differences


def test_board_without_raw_paste_is_driven_in_plain_raw_mode(fake_board):
    board = fake_board("nopaste")
    report, _ = run_fake(board)
    assert board.repl.paste_supported is False
    assert report.status == "ok" and report.cases == ALL_CASES


def test_garbage_on_the_line_is_noise_and_every_result_still_counts(fake_board):
    report, _ = run_fake(fake_board("garbage"))
    assert report.status == "ok", report.error
    assert report.cases == ALL_CASES and not report.differences
    assert report.noise_lines >= ALL_CASES


def test_board_that_only_babbles_times_out_with_its_garbage_kept(fake_board):
    board = fake_board("babble", step_timeout_s=1.5)
    start = time.monotonic()
    with pytest.raises(BoardTimeout, match="raw REPL prompt") as info:
        board.open("babble")
    assert time.monotonic() - start < 3.0
    assert info.value.partial  # the garbage is in the exception
    assert board.transcript.rx_path.stat().st_size > 100  # and in the transcript


def test_board_that_never_answers_times_out(fake_board):
    board = fake_board("silent", step_timeout_s=1.0)
    start = time.monotonic()
    with pytest.raises(BoardTimeout, match="raw REPL prompt"):
        board.open("silent")
    assert time.monotonic() - start < 3.0


def test_board_that_stops_answering_mid_run_keeps_what_arrived(fake_board):
    report, seconds = run_fake(fake_board("hang"), timeout_s=1.5)
    assert report.status == "incomplete" and report.error_kind == "BoardTimeout"
    assert seconds < 3.0
    assert report.cases == HALF and report.agreed == report.cases
    assert sum(s["missing"] for s in report.per_file.values()) == ALL_CASES - HALF


def test_slow_board_within_its_timeout_passes(fake_board):
    report, seconds = run_fake(fake_board("slow", delay=0.02), timeout_s=10)
    assert report.status == "ok" and report.cases == ALL_CASES
    assert seconds > 0.02 * ALL_CASES


def test_slow_board_past_its_timeout_keeps_the_results_that_arrived(fake_board):
    report, seconds = run_fake(fake_board("slow", delay=0.25), timeout_s=1.6)
    assert report.error_kind == "BoardTimeout" and "output" in report.error
    assert 1.6 <= seconds < 3.5
    assert 3 <= report.cases <= 7 and report.agreed == report.cases
    assert report.status == "incomplete"


def test_board_that_resets_mid_run_is_reported_as_rebooted(fake_board):
    report, seconds = run_fake(fake_board("reset"), timeout_s=10)
    assert report.error_kind == "BoardRebooted"
    assert "ets Jun" in report.error or "rst:0x" in report.error
    assert seconds < 3.0  # detected from the boot log, not the 10 s timeout
    assert report.cases == HALF and report.agreed == report.cases
    assert report.noise_lines >= 1  # the ROM log
    # the result line cut short by the reset is named, not taken
    assert [p["problem"][:17] for p in report.problems] == ["not one JSON obje"]


def test_board_process_dying_mid_run_is_a_lost_connection(fake_board):
    report, seconds = run_fake(fake_board("die"), timeout_s=10)
    assert report.error_kind == "BoardDisconnected" and "exit status 3" in report.error
    assert seconds < 3.0
    assert report.cases == HALF


def test_unplugged_simulated_board_is_a_lost_connection(fake_board):
    board = fake_board("hang")
    board.open("unplug")
    threading.Timer(0.5, board.unplug).start()
    start = time.monotonic()
    report = compare(run_on_board(board, NAMES, timeout_s=10, deploy_files=False), NAMES)
    assert report.error_kind == "BoardDisconnected", report.error
    assert time.monotonic() - start < 3.0
    assert report.cases == HALF


@pytest.fixture
def socket_board(transcript_dir):
    """A fake board behind socket://: the network path of SerialBoard (like rfc2217://)."""
    servers = []

    def factory(mode):
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        servers.append(server)

        def serve():
            conn, _ = server.accept()
            fake = FakeBoard(lambda: conn.recv(1), conn.sendall, mode, host_lines())
            try:
                fake.run()
            except OSError:
                pass
            conn.close()

        threading.Thread(target=serve, daemon=True).start()
        return SerialBoard("socket://127.0.0.1:%d" % server.getsockname()[1], transcript_dir=transcript_dir,
                           step_timeout_s=2.0)

    yield factory
    for s in servers:
        s.close()


def test_board_over_a_socket_url_agrees(socket_board):
    board = socket_board("normal")
    try:
        report, _ = run_fake(board)
    finally:
        board.close()
    assert report.status == "ok" and report.cases == ALL_CASES


def test_connection_dropped_mid_run_keeps_what_arrived(socket_board):
    board = socket_board("drop")
    try:
        report, seconds = run_fake(board, timeout_s=10)
    finally:
        board.close()
    assert report.error_kind == "BoardDisconnected"
    assert seconds < 3.0
    assert report.cases == HALF and report.agreed == report.cases


def test_transcript_keeps_partial_output_of_a_timed_out_run(fake_board):
    board = fake_board("hang")
    run_fake(board, timeout_s=1.0)
    text = board.transcript.rx_path.read_bytes()
    first_results = [l for l in host_lines()[:HALF + 1]]
    assert all(l.encode() in text for l in first_results)
    assert "timeout waiting for the code's output" in board.transcript.path.read_text()
