"""--device-file TOML, hostile: a profile, or one MemcoreError naming the file, the
device and the key; `memcore check` never says FITS for a tampered profile."""
import hostile
from hostile import assert_clean


def test_hostile_device_files(tally, tmp_path):
    hostile.device_files(tally, 160, folder=tmp_path)
    assert_clean(tally, "device files")
    assert tally.counts["device files"]["refused"] >= 120


def test_a_subnormal_flash_rate_is_the_device_files_fault(tmp_path):
    """was: "…/mnist_cnn_int8.tflite: a number is NaN or infinite" (the model blamed), and
    `memcore devices` showed the rate as "0 B/s"."""
    import copy
    from cli_helpers import memcore_cli
    board = copy.deepcopy(hostile.BOARD)
    board["regions"]["flash"]["read_bytes_per_second"] = 5e-324
    path = tmp_path / "board.toml"
    path.write_text(hostile.board_toml("my-board", board))
    want = ("%s: device 'my-board' region 'flash': read_bytes_per_second must be at least 1.0, got 5e-324"
            % path)
    for command in (["check", hostile.MODELS / "mnist_cnn_int8.tflite", "--device", "my-board"], ["devices"]):
        code, out, err = memcore_cli(*command, "--device-file", path)
        assert code == 2 and want in err and "mnist" not in err, err


def test_a_core_failure_located_nowhere_in_the_model_names_the_device():
    """The general fault: the core's errors were all prefixed with the model's path; one
    that no operator or tensor of the model caused names the device too."""
    import dataclasses
    import pytest
    import memcore
    from memcore.check import check
    from memcore.profiles import profile
    esp32 = profile("esp32")
    regions = dict(esp32.regions, ram=dataclasses.replace(esp32.regions["ram"], read_bytes_per_second=5e-324))
    slow = dataclasses.replace(esp32, name="slow-ram", regions=regions, traffic_in_rates=())
    with pytest.raises(memcore.MemcoreError) as info:
        check(memcore.load(str(hostile.MODELS / "mnist_cnn_int8.tflite")), slow)
    assert "mnist_cnn_int8.tflite on device 'slow-ram' (built-in): a number is NaN or infinite" in str(info.value)
