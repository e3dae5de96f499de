"""`memcore shrink`: the copy carries memcore's plan as TFLM's offline memory plan, TFLM
runs it in the arena memcore recommends for it with the same outputs, and nothing else
in the file changes.

TFLM here is the PyPI `tflite-micro` interpreter (64-bit host, reference kernels), each
probe in its own process (tflm_oracle).  The full run over every shared and corpus model
is bench/shrink.py; these tests take a fixed subset: models that shrink (with and without
kernel scratch buffers, with a plan in the file to replace) and models already at their
best."""
import json
import pathlib

import pytest
from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema

import memcore
import tflm_oracle
from cli_helpers import cli_json, memcore_cli, model
from memcore.shrink import shrink
from memcore.tflite_write import OFFLINE_PLAN, metadata, with_metadata, with_offline_plan

CORPUS = pathlib.Path(__file__).resolve().parent / "corpus" / "models"
TRUTH = json.loads((CORPUS.parent / "truth" / "host64.json").read_text())["models"]

# shrink on host64 with reference kernels, as TFLM's PyPI interpreter runs them
SHRINKS = ["dwconv_m1_k3_i8fio.tflite", "transpose_perms_i8fio.tflite", "offline_poor_unet_small_i8.tflite",
           "offline_full_tconv_decoder_i8.tflite"]
AT_BEST = ["tiny_mlp_int8.tflite", "kws_dscnn_int8.tflite", "multihead_attention_f32.tflite"]


def path_of(name):
    return CORPUS / name if (CORPUS / name).exists() else model(name)


def plain(obj):
    """A flatbuffers object-API value as plain lists and dicts, to compare."""
    if hasattr(obj, "tolist"):
        return obj.tolist()
    if isinstance(obj, (list, tuple)):
        return [plain(x) for x in obj]
    if hasattr(obj, "__dict__"):
        return {k: plain(v) for k, v in vars(obj).items()}
    return obj


def unpacked(data):
    return schema.ModelT.InitFromPackedBuf(bytearray(data), 0)


# ---- the writer -------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["kws_dscnn_int8.tflite", "resnet8_float32.tflite", "tiny_mlp_int8.tflite",
                                  "offline_full_unet_small_i8.tflite"])
def test_the_writer_keeps_every_byte_and_every_field(name):
    data = path_of(name).read_bytes()
    n = len(memcore.load(path_of(name)).tensors)
    offsets = [16 * i for i in range(n)]
    written = with_offline_plan(data, offsets)
    assert written.endswith(data) and len(written) - len(data) < 512 + 4 * n
    before, after = unpacked(data), unpacked(written)
    # TFLM's schema reads everything but the plan's entry and buffer as it was
    for key in ("version", "operatorCodes", "subgraphs", "description", "signatureDefs", "metadataBuffer"):
        assert plain(getattr(after, key)) == plain(getattr(before, key)), key
    plans = [m for m in after.metadata if m.name == OFFLINE_PLAN.encode()]
    assert len(plans) == 1
    others = [plain(m) for m in after.metadata if m.name != OFFLINE_PLAN.encode()]
    assert others == [plain(m) for m in before.metadata if m.name != OFFLINE_PLAN.encode()]
    replaced = [m.buffer for m in before.metadata if m.name == OFFLINE_PLAN.encode()]
    kept = [i for i in range(len(before.buffers)) if i not in replaced]
    assert [plain(after.buffers[i]) for i in kept] == [plain(before.buffers[i]) for i in kept]
    # a replaced plan's buffer is reused: no buffer added
    assert len(after.buffers) == len(before.buffers) + (0 if replaced else 1)
    blob = bytes(after.buffers[plans[0].buffer].data)
    assert blob == b"".join(int(w).to_bytes(4, "little", signed=True) for w in [1, 0, n] + offsets)
    # and memcore's reader reads the offsets back
    reread = memcore.tflite.load_tflite("written", written)
    assert reread.offline_offsets == dict(enumerate(offsets))
    assert reread.tensors == memcore.load(path_of(name)).tensors


def test_the_writer_removes_a_plan_and_adds_other_metadata():
    data = path_of("offline_full_unet_small_i8.tflite").read_bytes()
    stripped = with_metadata(data, OFFLINE_PLAN, None)
    assert [name for name, _, _ in metadata(stripped)] == ["min_runtime_version", "CONVERSION_METADATA"]
    assert memcore.tflite.load_tflite("stripped", stripped).offline_offsets == {}
    tagged = with_metadata(stripped, "memcore", b"hello")
    assert metadata(tagged)[-1] == ("memcore", len(unpacked(stripped).buffers), b"hello")


def test_the_writer_refuses_data_outside_the_flatbuffer():
    m = unpacked(model("tiny_mlp_int8.tflite").read_bytes())
    m.buffers[1].offset, m.buffers[1].size = 4096, 16
    import flatbuffers
    b = flatbuffers.Builder(4096)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    with pytest.raises(memcore.MemcoreError, match="buffer 1 keeps its data outside the flatbuffer"):
        with_offline_plan(bytes(b.Output()), [-1] * 8, "big.tflite")


# ---- shrink, proven with TFLM -------------------------------------------------------------

@pytest.mark.parametrize("name", SHRINKS)
def test_a_shrunk_model_runs_in_tflm_at_its_recommended_arena_with_the_same_outputs(tmp_path, name):
    source = path_of(name)
    result = shrink(source, target="host64", kernels="reference")
    assert result.changed and result.saved_bytes > 0
    out = tmp_path / name
    out.write_bytes(result.data)
    after = memcore.tflm_arena(memcore.load(out), "host64", "reference")
    assert (after.head_bytes, after.recommended_arena_bytes) == (result.after.head_bytes,
                                                                  result.after.recommended_arena_bytes)
    # before: TFLM's measured numbers for the original (the corpus truth, or measured now)
    truth = TRUTH.get(name) or tflm_oracle.measure(source)
    assert result.before.head_bytes == truth["head"]
    measured = tflm_oracle.assert_runs_as_memcore_says(source, out, after, tmp_path)
    assert measured["head"] < truth["head"]


@pytest.mark.parametrize("name", AT_BEST)
def test_a_model_at_its_best_is_written_unchanged_and_said_so(tmp_path, name):
    out = tmp_path / name
    code, text, err = memcore_cli("shrink", path_of(name), "-o", out, "--target", "host64", "--kernels", "reference")
    assert code == 0, err
    assert out.read_bytes() == path_of(name).read_bytes()
    assert "already at its best" in text and "written unchanged" in text


def test_the_command_prints_before_after_and_the_saving(tmp_path):
    out = tmp_path / "dw.tflite"
    code, text, err = memcore_cli("shrink", path_of("dwconv_m1_k3_i8fio.tflite"), "-o", out, "--target", "host64",
                                  "--kernels", "reference", "--no-reorder")
    assert code == 0, err
    # head 6,912 -> 5,760 B (TFLM measured both: corpus truth, and the test above)
    assert "head (activations, scratch)   6,912  5,760" in text
    assert "recommended arena             8,144  6,992" in text
    assert "memcore's plan written as the offline plan: 1.12 KiB smaller (14.1 % of the recommended arena)" in text
    assert "operators kept in the file's order (--no-reorder)" in text
    code, data, err = cli_json("shrink", path_of("dwconv_m1_k3_i8fio.tflite"), "-o", out, "--target", "host64",
                               "--kernels", "reference")
    assert code == 0 and data["saved_bytes"] == 8144 - 6992 and data["plan"] == "best" and not data["reordered"]
    assert data["file_bytes"] == out.stat().st_size


def test_a_plan_already_in_the_file_is_replaced(tmp_path):
    out = tmp_path / "unet.tflite"
    code, data, err = cli_json("shrink", path_of("offline_poor_unet_small_i8.tflite"), "-o", out, "--target",
                               "host64", "--kernels", "reference")
    assert code == 0, err
    assert data["replaced_plan"] and data["before"]["head_bytes"] == TRUTH["offline_poor_unet_small_i8.tflite"]["head"]
    assert [name for name, _, _ in metadata(out.read_bytes())].count(OFFLINE_PLAN) == 1
    code, text, err = memcore_cli("shrink", path_of("offline_poor_unet_small_i8.tflite"), "-o", out)
    assert "memcore's plan replaces the file's offline plan" in text


def test_shrinking_a_shrunk_model_changes_nothing(tmp_path):
    first, second = tmp_path / "a.tflite", tmp_path / "b.tflite"
    first.write_bytes(shrink(path_of("dwconv_m1_k3_i8fio.tflite"), "host64", "reference").data)
    again = shrink(first, "host64", "reference")
    assert not again.changed and again.data == first.read_bytes()
    second.write_bytes(again.data)


@pytest.mark.parametrize("name, message", [
    ("control_if_f32.tflite", "subgraphs"),
    ("offline_bad_overlap_resnet_block_i8.tflite", "overlapping offsets"),
])
def test_what_cannot_be_shrunk_is_refused_and_nothing_written(tmp_path, name, message):
    out = tmp_path / "out.tflite"
    code, text, err = memcore_cli("shrink", path_of(name), "-o", out)
    assert code == 2 and message in err and not out.exists()


def test_an_onnx_or_garbage_file_is_refused(tmp_path):
    bad = tmp_path / "bad.tflite"
    bad.write_bytes(b"\0" * 64)
    code, text, err = memcore_cli("shrink", bad, "-o", tmp_path / "out.tflite")
    assert code == 2 and ("not a TFLite flatbuffer" in err or "writes TFLite files" in err), err
    assert not (tmp_path / "out.tflite").exists()


def test_the_armhf_oracle_measured_what_memcore_says_of_every_shrunk_file(tmp_path):
    """tests/corpus/shrunk/armhf.json: TFLM built for 32-bit Arm Linux, run under
    qemu-arm on each file `shrink --target armhf --kernels reference` writes (bench/shrink.py
    --truth), reordered ones included; the file's hash ties the measurement to the bytes
    shrink writes today."""
    import hashlib
    import reorder_models
    generated = reorder_models.write_all(tmp_path)
    truth = json.loads((CORPUS.parent / "shrunk" / "armhf.json").read_text())["models"]
    assert len(truth) >= 10 and set(generated) <= set(truth)
    for name, measured in truth.items():
        result = shrink(generated.get(measured["source"]) or path_of(measured["source"]), "armhf", "reference")
        assert hashlib.sha256(result.data).hexdigest() == measured["sha256"], name
        assert (result.after.head_bytes, result.after.total_bytes) == (measured["head"], measured["total"]), name
        assert result.before.head_bytes == measured["before_head"] > measured["head"], name


def test_check_suggests_shrinking_when_it_changes_the_verdict_and_the_shrunk_file_says_so(tmp_path):
    import shlex
    source = tmp_path / "dwconv.tflite"
    source.write_bytes(path_of("dwconv_m1_k3_i8fio.tflite").read_bytes())
    # esp32, ESP-NN kernels, the weights read in place: TFLM's recommended arena 7,648 B,
    # memcore's plan 1,152 B less; with 7,000 B free TFLM's plan does not fit and memcore's does
    code, report, err = cli_json("check", source, "--device", "esp32", "--weights-in", "flash", "--available-bytes",
                                 "7000")
    assert code == 1 and report["verdict"] == "does_not_fit"
    [s] = [s for s in report["suggestions"] if "prepare_command" in s]
    assert s["verdict"] == "fits" and "memcore's arena plan" in s["action"]
    words = shlex.split(s["prepare_command"])
    assert words[:3] == ["memcore", "shrink", str(source)]
    code, out, err = memcore_cli(*words[1:])
    assert code == 0, err
    shrunk = words[words.index("-o") + 1]
    code, again, err = cli_json("check", shrunk, "--device", "esp32", "--weights-in", "flash", "--available-bytes",
                                "7000")
    assert code == 0 and again["verdict"] == "fits"
    assert again["resources"]["ram"] == s["resources"]["ram"]
    code, text, err = memcore_cli("check", source, "--device", "esp32", "--weights-in", "flash", "--available-bytes",
                                  "7000")
    assert "  $ " + s["prepare_command"] in text


def test_check_does_not_suggest_shrinking_when_the_verdict_stays():
    for name, argv in [("dwconv_m1_k3_i8fio.tflite", ["--available-bytes", "5000"]),
                       ("dwconv_m1_k3_i8fio.tflite", []), ("resnet8_float32.tflite", [])]:
        code, report, err = cli_json("check", path_of(name), "--device", "esp32", *argv)
        assert all("prepare_command" not in s for s in report.get("suggestions", [])), name


def test_the_docs_example_prints_what_the_docs_show(tmp_path, monkeypatch):
    import re
    root = pathlib.Path(__file__).resolve().parent.parent
    text = (root / "docs" / "planner.md").read_text()
    section = text[text.index("## Giving memcore's plan to TFLM"):]
    examples = re.findall(r"```sh\n(.*?)\n```\n\n```text\n(.*?)\n```", section, re.S)
    assert len(examples) == 2     # the plan alone, and operators reordered
    monkeypatch.chdir(root)
    for command, shown in examples:
        words = command.split()
        name = words[words.index("-o") + 1]
        out = tmp_path / name
        words[words.index("-o") + 1] = str(out)
        code, printed, err = memcore_cli(*words[1:])
        assert code == 0, err
        assert printed.replace(str(out), name).strip() == shown.strip()


def test_the_writer_never_crashes_on_a_mutated_file():
    """Whatever bytes it is given, the writer returns a file or raises one MemcoreError
    naming the input (every offset it follows is bounds-checked)."""
    import random
    data = model("tiny_mlp_int8.tflite").read_bytes()
    rng = random.Random(26)
    written = refused = 0
    for _ in range(400):
        mutant = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            at = rng.randrange(min(len(mutant), 256))     # the tables near the root
            mutant[at] = rng.randrange(256)
        if rng.random() < 0.2:
            mutant = mutant[:rng.randrange(8, len(mutant))]
        try:
            out = with_offline_plan(bytes(mutant), [-1] * 8, "mutant.tflite")
        except memcore.MemcoreError as e:
            assert str(e).startswith("mutant.tflite: ")
            refused += 1
            continue
        assert out.endswith(bytes(mutant))
        written += 1
    assert written and refused
