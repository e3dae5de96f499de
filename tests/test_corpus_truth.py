"""The conformance corpus and its measured truth agree with each other: every model has
a truth entry and every entry a model, every file is a TFLite flatbuffer, and
COVERAGE.md's claims hold for the files it names."""
import json
import pathlib
import re

import pytest
from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema

TESTS = pathlib.Path(__file__).resolve().parent
CORPUS = TESTS / "corpus"
MODELS = CORPUS / "models"
TRUTH_FILES = sorted((CORPUS / "truth").glob("*.json"))
OP_NAMES = {v: k for k, v in vars(schema.BuiltinOperator).items() if not k.startswith("_")}

corpus_files = sorted(MODELS.glob("*.tflite"))


def truth(path):
    return json.loads(path.read_text())


def operator_kinds(path):
    """The operator kinds in every subgraph of a .tflite file (custom ops as CUSTOM:<code>)."""
    data = path.read_bytes()
    assert data[4:8] == b"TFL3", "%s: no TFL3 identifier" % path.name
    m = schema.Model.GetRootAsModel(data, 0)
    assert m.SubgraphsLength() >= 1, "%s: no subgraph" % path.name
    kinds = set()
    for g in range(m.SubgraphsLength()):
        sg = m.Subgraphs(g)
        assert sg.OperatorsLength() >= 1, "%s: subgraph %d has no operator" % (path.name, g)
        for k in range(sg.OperatorsLength()):
            op = sg.Operators(k)
            assert 0 <= op.OpcodeIndex() < m.OperatorCodesLength()
            code = m.OperatorCodes(op.OpcodeIndex())
            name = OP_NAMES[max(code.BuiltinCode(), code.DeprecatedBuiltinCode())]
            kinds.add("CUSTOM:" + code.CustomCode().decode() if name == "CUSTOM" else name)
            for i in list(op.InputsAsNumpy()) + list(op.OutputsAsNumpy()):
                assert -1 <= i < sg.TensorsLength(), "%s: operator %d names tensor %d" % (path.name, k, i)
    return kinds


def test_the_corpus_is_large_and_small():
    assert len(corpus_files) >= 100
    assert all(p.stat().st_size < 200 * 1024 for p in corpus_files)
    assert sum(p.stat().st_size for p in corpus_files) < 6 * 1024 * 1024


@pytest.mark.parametrize("path", corpus_files, ids=lambda p: p.name)
def test_each_model_is_a_tflite_flatbuffer(path):
    assert operator_kinds(path)


def test_there_is_a_host64_truth():
    assert CORPUS / "truth" / "host64.json" in TRUTH_FILES


@pytest.mark.parametrize("truth_path", TRUTH_FILES, ids=lambda p: p.name)
def test_every_model_has_truth_and_every_truth_a_model(truth_path):
    t = truth(truth_path)
    # Where the numbers came from: the PyPI interpreter's versions, or the TFLM commit,
    # compiler and ABI of a build from source (tools/tflm_oracle).
    built = "tflm_commit" in t["header"]
    for field in ("tflm_commit", "compiler_version", "cxxflags", "abi_runtime", "command") if built else \
            ("tflite_micro", "tensorflow", "python", "platform", "command"):
        assert t["header"][field], field
    expected = {p.name for p in corpus_files} | {"models/" + p.name for p in (TESTS / "models").glob("*.tflite")}
    if t["header"].get("subset"):
        # A vendor library's run covers the kinds it replaces, not the whole corpus.
        assert set(t["models"]) <= expected and len(t["models"]) >= 50
    else:
        assert set(t["models"]) == expected


@pytest.mark.parametrize("truth_path", TRUTH_FILES, ids=lambda p: p.name)
def test_truth_entries_are_whole(truth_path):
    for key, e in truth(truth_path)["models"].items():
        if e["error"] is None:
            assert e["head"] + e["tail"] == e["total"], key
            assert e["total"] > 0 and e["minimum_arena_bytes"] > 0, key
            assert e["categories"], key
        else:
            assert e["minimum_arena_bytes"] is None, key
            assert e["error"].strip(), key


def coverage_rows():
    rows = {}
    for line in (CORPUS / "COVERAGE.md").read_text().splitlines():
        m = re.match(r"\| (\S+) \| (.*) \|$", line)
        if m and m.group(1) not in ("operator", "custom", "---|---|") and not m.group(1).startswith("-"):
            rows[m.group(1)] = m.group(2)
    return rows


def test_coverage_names_only_existing_models_that_hold_the_operator():
    rows = coverage_rows()
    assert len(rows) > 100
    kinds_of = {}
    for kind, cell in rows.items():
        if cell.startswith("not produced: "):
            assert len(cell) > len("not produced: ") + 20 and "UNEXPLAINED" not in cell, kind
            continue
        files = cell.split()
        assert files, kind
        for file in files:
            path = MODELS / file
            assert path.exists(), "COVERAGE.md names %s for %s, but there is no such model" % (file, kind)
            if file not in kinds_of:
                kinds_of[file] = operator_kinds(path)
            custom = "CUSTOM:" + kind
            assert kind in kinds_of[file] or custom in kinds_of[file], "%s does not contain %s" % (file, kind)


def test_coverage_lists_every_model_that_holds_a_listed_operator():
    rows = coverage_rows()
    for path in corpus_files:
        for kind in operator_kinds(path):
            name = kind[len("CUSTOM:"):] if kind.startswith("CUSTOM:") else kind
            if name in rows:
                assert path.name in rows[name].split(), "COVERAGE.md misses %s for %s" % (path.name, name)


def test_structures_name_existing_models():
    text = (CORPUS / "COVERAGE.md").read_text()
    bullets = [l for l in text.split("## Structures and parameters", 1)[1].splitlines() if l.startswith("- ")]
    assert len(bullets) >= 15
    for line in bullets:
        files = line.rsplit(": ", 1)[1].split()
        assert files, line
        for file in files:
            assert (MODELS / file).exists(), "COVERAGE.md names %s, but there is no such model" % file
