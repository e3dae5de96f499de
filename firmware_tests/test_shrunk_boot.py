"""The board's boot check of a shrunk model (memcore shrink) reports the shrunk model's
numbers: TFLM's head around the file's offline plan, smaller than the original's, and the
same as the host's check of the shrunk file.  A board with memcore's C module reads the
file's plan itself; stock firmware gets the head from the descriptor (export)."""
from boardkit import REPO
from memcore import descriptor
from memcore.check import check
from memcore.graph import load
from memcore.hil import lines
from memcore.hil.deploy import deploy
from memcore.profiles import profile
from memcore.shrink import shrink
from test_agreement import AGREED, AVAILABLE, DEVICE, _RUN, scripts_on_board  # noqa: F401 (a fixture)

CORPUS = REPO / "tests" / "corpus" / "models"
SHRINKS = ["dwconv_m1_k3_i8fio", "offline_poor_unet_small_i8", "transpose_perms_i8fio"]


def test_the_boot_check_of_a_shrunk_model_reports_its_new_numbers(scripts_on_board, tmp_path):
    board, has_module = scripts_on_board
    esp32 = profile(DEVICE)
    files, expected = {}, {}
    for stem in SHRINKS:
        result = shrink(CORPUS / (stem + ".tflite"), target=esp32.target, kernels="optimised")
        assert result.changed, stem
        path = tmp_path / (stem + "_shrunk.tflite")
        path.write_bytes(result.data)
        model = load(path)
        report = check(model, esp32, available_bytes=AVAILABLE, suggest=False).to_json()
        assert report["arena_tflm_bytes"] == result.after.head_bytes < result.before.head_bytes, stem
        expected[stem] = report
        if has_module:
            files[path.name] = result.data
        files[stem + "_shrunk.json"] = descriptor.dumps(descriptor.describe(model, esp32)).encode()
    deploy(board.repl, files)
    board.reset()
    targets = [s + ("_shrunk.tflite" if has_module else "_shrunk.json") for s in SHRINKS]
    objects, _, bad = lines.parse(board.repl.exec(_RUN % (targets, AVAILABLE), timeout_s=300))
    assert bad == [] and len(objects) == len(SHRINKS)
    for stem, (_, obj) in zip(SHRINKS, objects):
        assert obj["schema"] == lines.REPORT, obj
        assert {k: obj[k] for k in AGREED} == {k: expected[stem][k] for k in AGREED}, stem
    board.repl.exec("import os\nfor _f in %r:\n    os.remove(_f)\n" % sorted(files))
