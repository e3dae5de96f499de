"""`memcore compare` (a verdict per device) and `memcore ops` (per-operator table)."""
import memcore
from memcore.check import Budgets, check
from memcore.compare import compare
from memcore.profiles import builtin_profiles, profile
from cli_helpers import memcore_cli, model


def test_compare_shows_every_device_and_the_three_verdicts():
    code, out, err = memcore_cli("compare", model("resnet8_int8.tflite"))
    assert code == 0, err
    for name in builtin_profiles():
        assert name in out
    assert "runs here" in out and "won't fit" in out and "too slow" in out


def test_compare_cards_agree_with_check():
    m = memcore.load(model("resnet8_int8.tflite"))
    budgets = Budgets(latency_seconds=0.1)     # a 100 ms budget, given by the user
    cards = {c.device: c for c in compare(m, builtin_profiles(), budgets=budgets)}
    for c in cards.values():   # each card is the check's verdict on that board
        assert c.status == {"fits": "runs", "does_not_fit": "will_not_fit", "misses_budget": "too_slow"}[
            check(m, profile(c.device), suggest=False, budgets=budgets).verdict]
        assert (c.times_over > 1) == (c.status != "runs")   # never "won't fit" below 1×
    assert cards["esp32"].status == "will_not_fit" and cards["esp32"].report.limiting_resource == "ram"
    assert cards["esp32s3"].status == "runs"
    assert cards["esp32-psram"].status == "too_slow"   # fits in PSRAM, but 0.6 s on the ESP32's cores
    # without a budget nobody is too slow
    assert compare(m, {"esp32-psram": profile("esp32-psram")})[0].status == "runs"


def test_ops_marks_the_peak_at_the_lower_bound():
    m = memcore.load(model("resnet8_int8.tflite"))
    rows = check(m, profile("cortex-m4"), suggest=False).layers
    assert len(rows) == len(m.operators)
    peaks = [r for r in rows if r.is_peak]
    assert len(peaks) == 1
    # The live bytes are TFLM's buffers on this target: the tensors and CMSIS-NN's
    # im2col scratch buffers, so the peak is the lower bound of those buffers.
    buffers = memcore.tflm_arena(m, target="cortex-m", kernels="optimised").buffers
    bound = memcore.plan([b[0] for b in buffers], [b[1] for b in buffers], [b[2] for b in buffers]).lower_bound_bytes
    assert any(b[3] < 0 for b in buffers)
    assert peaks[0].live_bytes == max(r.live_bytes for r in rows) == bound
    assert sum(r.macs for r in rows) == m.macs
    assert sum(r.weight_bytes for r in rows) <= m.weight_bytes


def test_ops_command_table():
    code, out, err = memcore_cli("ops", model("kws_dscnn_int8.tflite"))
    assert code == 0, err
    assert "◀ peak" in out and "CONV_2D" in out and "1×25×5×64" in out


def test_ops_and_compare_on_unreadable_file_exit_2(tmp_path):
    for command in ("ops", "compare", "plan"):
        code, out, err = memcore_cli(command, tmp_path / "missing.tflite")
        assert code == 2 and err.startswith("memcore %s: error:" % command)
