"""Scripted hostile boards, replayed by firmware_tests/fakeboard.py: `memcore hil` never
reports "ok" for a board that lied or broke the protocol, `memcore monitor` never exits 0
for a forged or malformed report, nothing raises, the board's text is never markup."""
import hostile
from conftest import assert_clean


def test_hostile_vector_runs(tally, tmp_path):
    hostile.hil_boards(tally, 48, folder=tmp_path)
    assert_clean(tally, "hil boards")


def test_hostile_boot_output_on_the_monitor(tally, tmp_path):
    hostile.monitor_boards(tally, 12, folder=tmp_path)
    assert_clean(tally, "monitor boards")
