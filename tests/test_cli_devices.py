"""Device profiles as data: built-ins, user TOML files, `memcore devices`."""
import pytest

import memcore
from memcore.errors import MemcoreError
from memcore.profiles import builtin_profiles, profiles, profiles_from_toml
from cli_helpers import memcore_cli, model

BOARD = """
[my-board]
description = "my STM32H7 board"
available_bytes = 900_000
ops_per_second_reference = 2e7
ops_per_second_optimised = 2e8
latency_budget_seconds = 0.05
[my-board.regions.ram]
size_bytes = 1_048_576
read_bytes_per_second = 1.6e9
[my-board.regions.flash]
size_bytes = 2_097_152
read_bytes_per_second = 8e8
"""


def test_one_meaning_per_device_name():
    found = builtin_profiles()
    # the board profiles of check, compare and report: microcontrollers only
    assert set(found) == {"esp32", "esp32-psram", "esp32s3", "nucleo-l4r5zi", "cortex-m4"}
    # the teaching places stay in the Python API and `memcore verdicts`, under names no
    # board profile uses
    assert set(memcore.devices()) == {"datacentre", "server", "phone", "microcontroller"}
    assert not set(memcore.devices()) & set(found)
    assert memcore.devices()["microcontroller"].memory_bytes == 500_000


def test_esp32_profile_is_micropythons_largest_block_not_the_datasheet():
    esp32 = builtin_profiles()["esp32"]
    # the smallest of the boot check's largest blocks on the QEMU board with a 110 KiB heap,
    # per route (bench/largest_block.py); no separate figure at boot (the check needs the grown heap)
    assert esp32.available_bytes_at_boot == esp32.available_bytes
    assert esp32.available_bytes == 49_943 < 110 * 1024 < esp32.regions["ram"].size_bytes
    # MicroPython reads the model file into the heap: weights in RAM, for check, export and the board
    assert esp32.pointer_bytes == 4 and esp32.default_weights_placement() == "ram"
    assert builtin_profiles()["cortex-m4"].default_weights_placement() == "flash"
    assert esp32.ops_per_second("optimised") > esp32.ops_per_second("reference")
    psram = builtin_profiles()["esp32-psram"]
    assert psram.arena_region == "psram"
    assert psram.regions["psram"].read_bytes_per_second < psram.regions["ram"].read_bytes_per_second


def test_profile_feeds_the_c_check_by_name():
    esp32 = builtin_profiles()["esp32"]
    board = esp32.board()
    assert board["ram_bytes_at_boot"] == board["ram_bytes"] == 49_943
    # the flash budget is the filesystem partition the model file lives in, not the 4 MiB chip
    assert esp32.model_partition == "vfs" and board["model_partition_bytes"] == 2 * 1024 * 1024 < board["flash_bytes"]


def test_user_profile_from_toml(tmp_path):
    path = tmp_path / "boards.toml"
    path.write_text(BOARD)
    found = profiles(path)
    board = found["my-board"]
    assert board.available_bytes == 900_000 and board.weights_region == "flash" and board.pointer_bytes == 4
    assert board.origin == str(path)
    code, report_text, err = memcore_cli("check", model("resnet8_float32.tflite"), "--device", "my-board",
                                         "--device-file", path)
    assert code in (0, 3), err  # it fits the board's memory (3: over its latency budget)
    assert "FITS" in report_text and "DOES NOT FIT" not in report_text
    code, out, err = memcore_cli("devices", "--device-file", path)
    assert code == 0 and "my-board" in out and "esp32-psram" in out


@pytest.mark.parametrize("text, needle", [
    ("[x\n", "not valid TOML"),
    ("", "defines no devices"),
    ("[b]\ndescription = 'b'\n", "missing"),
    (BOARD.replace("available_bytes = 900_000", "available_bytes = -1"), "available_bytes must be"),
    (BOARD.replace("available_bytes = 900_000", "available_bytes = 9_000_000"), "more than its ram region"),
    (BOARD.replace("regions.flash", "regions.sdcard"), "unknown region"),
    (BOARD.replace("latency_budget_seconds = 0.05", "latency_budget_seconds = 'soon'"), "must be a number"),
])
def test_bad_device_files_name_the_problem(text, needle):
    with pytest.raises(MemcoreError, match=needle):
        profiles_from_toml(text, "boards.toml")


def test_bad_device_file_on_the_command_line_exits_2(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("[x\n")
    code, out, err = memcore_cli("devices", "--device-file", path)
    assert code == 2 and "not valid TOML" in err and len(err.strip().splitlines()) == 1


def test_devices_lists_every_profile_with_units():
    code, out, err = memcore_cli("devices")
    assert code == 0
    for name in builtin_profiles():
        assert name in out
    assert "KiB" in out and "ops/s" in out
