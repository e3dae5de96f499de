"""--device-file TOML, hostile: a profile, or one MemcoreError naming the file, the
device and the key; `memcore check` never says FITS for a tampered profile."""
import hostile
from hostile import assert_clean


def test_hostile_device_files(tally, tmp_path):
    hostile.device_files(tally, 160, folder=tmp_path)
    assert_clean(tally, "device files")
    assert tally.counts["device files"]["refused"] >= 120
