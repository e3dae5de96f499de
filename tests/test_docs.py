"""The docs as tests: every code block of README.md and micropython/README.md is run, or
checked against what runs it, as its docs-test comment says (docs/docs-tests.md).  The
blocks that need a board run in the firmware suite (firmware_tests/test_board_docs.py)."""
import doctest
import inspect
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

import memcore
from docs_blocks import KINDS, REPO, blocks, checkout_view, of_kind

sys.path.insert(0, str(REPO / "micropython"))
import memcore_fallback  # noqa: E402  (the board API, in pure Python)

SHELL = [b for b in of_kind("shell")]


def test_every_block_says_how_it_is_tested():
    found = blocks()
    assert len(found) >= 15, "the docs' blocks were not found: %r" % found
    unmarked = [b.where() for b in found if b.kind is None]
    assert unmarked == [], "blocks without a <!-- docs-test: KIND --> comment before them: %s" % unmarked
    unknown = [(b.where(), b.kind) for b in found if b.kind not in KINDS]
    assert unknown == [], "unknown docs-test kinds (known: %s): %s" % (", ".join(KINDS), unknown)
    unexplained = [b.where() for b in found if b.kind == "not-run" and len(b.args) < 20]
    assert unexplained == [], "a block that is not run must say why: %s" % unexplained


def _bash(script, cwd, timeout_s, env=None):
    return subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=str(cwd), capture_output=True,
                          text=True, timeout=timeout_s, env=env)


def _fresh_checkout(folder):
    """The tracked files alone, as a clone has them."""
    names = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    for name in names.decode().split("\0"):
        if name and (REPO / name).is_file():
            target = folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, target)
    return folder


@pytest.mark.parametrize("block", SHELL, ids=[b.where() for b in SHELL])
def test_shell_block_runs_as_written(block, tmp_path):
    expected = int(block.option("exit", "0"))
    env = dict(os.environ)
    if block.flag("fresh-checkout"):
        # verbatim in a clean copy of the checkout: its own virtual environment, its own install
        folder = _fresh_checkout(tmp_path / "clone")
        env.pop("VIRTUAL_ENV", None)
        env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if not p.startswith(sys.prefix))
        timeout_s = 900
    else:
        folder = checkout_view(tmp_path)
        env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env["PATH"]  # this memcore, this python
        if "MEMCORE_SANITIZER_PRELOAD" in env:  # CI's sanitized extension: its runtime first (step 40)
            env["LD_PRELOAD"] = env["MEMCORE_SANITIZER_PRELOAD"]
        timeout_s = 300
    out = _bash(block.text, folder, timeout_s, env)
    assert out.returncode == expected, "%s exited %d, the docs say %d:\n%s\n%s" % (
        block.where(), out.returncode, expected, out.stdout[-3000:], out.stderr[-3000:])


def test_the_first_command_checks_the_bundled_model_on_the_esp32():
    (block,) = [b for b in SHELL if b.flag("fresh-checkout")]
    assert block.doc == "README.md" and block.text.strip().endswith(
        "memcore check examples/kws_dscnn_int8.tflite --device esp32-psram")


def _commands(text):
    """A shell text's commands, split at && and newlines, comments and -q flags dropped."""
    found = []
    for line in text.splitlines():
        line = line.split(" #", 1)[0].strip()
        for command in line.split("&&"):
            words = [w for w in command.split() if w != "-q"]
            if words:
                found.append(" ".join(words))
    return found


@pytest.mark.parametrize("block", of_kind("ci"), ids=[b.where() for b in of_kind("ci")])
def test_ci_block_is_what_ci_runs(block):
    """Each command of the block is in the CI files named: verbatim, or (where it has the
    reader's own paths and ports) its program with its subcommand."""
    files = block.args.split()
    ci = "\n".join(c for f in files for c in _commands((REPO / f).read_text()))
    for command in _commands(block.text):
        words = command.split()
        head = " ".join(words[:2]) if words[0] == "memcore" else words[0]
        assert command in ci or head in ci, "%s: %r is not run by %s" % (block.where(), command, files)


def test_ci_runs_the_readme_test_command_from_a_fresh_environment():
    run = (REPO / ".ci" / "run").read_text()
    assert 'python3 -m venv "$venv"' in run and 'source "$venv/bin/activate"' in run


@pytest.mark.parametrize("block", of_kind("doctest"), ids=[b.where() for b in of_kind("doctest")])
def test_python_examples_run_as_doctests(block, monkeypatch):
    monkeypatch.chdir(REPO)
    test = doctest.DocTestParser().get_doctest(block.text, {}, block.where(), str(REPO / block.doc), block.line)
    assert len(test.examples) >= 10
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    out = []
    result = runner.run(test, out=out.append)
    assert result.failed == 0, "".join(out)


# ---- the board API's listing --------------------------------------------------------

def _listed_calls(text):
    return re.findall(r"^memcore\.(\w+)\((.*?)\)(?:\s|$)", text, re.M)


def test_the_board_api_listing_is_the_fallbacks_signatures():
    (block,) = of_kind("signatures")
    # continuation lines belong to the call above them
    text = re.sub(r",\n\s+", ", ", block.text)
    calls = _listed_calls(text)
    assert len(calls) >= 9
    for name, params in calls:
        if name == "check":  # the C module only: the whole check over the model file
            assert not hasattr(memcore_fallback, "check")
            continue
        listed = [p.strip() for p in params.split(",") if p.strip()]
        real = inspect.signature(getattr(memcore_fallback, name)).parameters.values()
        spelled = [p.name if p.default is inspect.Parameter.empty else "%s=%r" % (p.name, p.default)
                   for p in real]
        assert listed == [s.replace("'", '"') for s in spelled], (name, listed, spelled)
    version = re.search(r"memcore\.version\(\)\s+# (\('.*?', \d+\))", block.text).group(1)
    assert version == repr(memcore_fallback.version()) == repr(memcore.version())


# ---- firmware recipes: the make variables build_firmware.sh uses ----------------------

def _recipe(target):
    script = (REPO / "micropython" / "build_firmware.sh").read_text()
    case = script[script.index("case $target in\nunix64)"):]
    return script[:script.index("case $target in\nunix64)")], case.split("\n%s)" % target, 1)[1].split(";;")[0]


@pytest.mark.parametrize("block", of_kind("build"), ids=[b.args for b in of_kind("build")])
def test_build_recipe_is_what_build_firmware_sh_runs(block):
    common, recipe = _recipe(block.args)
    text = block.text.replace("\\\n", " ")
    make = [line for line in text.splitlines() if line.startswith("make ")]
    assert make, block.where()
    port = re.search(r"-C (ports/\w+)", make[0]).group(1)
    assert '"$mpy/%s"' % port in common + recipe
    for word in re.findall(r'(\w+=(?:"[^"]*"|\S*))', make[0]):
        key, value = word.split("=", 1)
        if key in ("USER_C_MODULES", "BUILD"):
            continue  # the reader's paths
        value = value.strip('"')
        if key == "CFLAGS_EXTRA":
            assert all(flag in recipe for flag in value.split()), (key, value)
        elif key == "MICROPY_HEAP_SIZE":
            assert "${QEMU_HEAP_BYTES:-%s}" % value in common
        else:
            assert "%s=%s" % (key, value) in common + recipe, "%s: %s=%s is not in build_firmware.sh %s" % (
                block.where(), key, value, block.args)


# ---- lines the board prints ---------------------------------------------------------

def _documented_fields():
    text = (REPO / "micropython" / "README.md").read_text()
    table = text[text.index("| field | meaning |"):]
    table = table[:table.index("\n\n")]
    return set(re.findall(r"`(\w+)`", "\n".join(line.split("|")[1] for line in table.splitlines()[2:])))


def test_the_example_boot_report_is_a_report_with_documented_fields():
    (block,) = of_kind("report-line")
    line = block.text.strip()
    assert line.startswith("@memcore ")
    report = json.loads(line[len("@memcore "):])
    assert report["schema"] == "memcore.report/1"
    assert report["memcore_version"] == memcore.version()[0]
    undocumented = set(report) - _documented_fields() - {"schema"}
    assert undocumented == set(), "fields of the example without a row in the table: %s" % undocumented
    # its numbers are the KWS model's, as the host computes them for the same available bytes
    from memcore.check import check
    from memcore.profiles import profile
    host = check(memcore.load(REPO / "examples" / "kws_dscnn_int8.tflite"), profile("esp32"),
                 available_bytes=report["available_bytes"], suggest=False).to_json()
    for key in ("weights_bytes", "arena_tflm_bytes", "arena_best_bytes", "runtime_overhead_bytes", "runtime_bytes",
                "recommended_arena_bytes", "required_bytes", "headroom_bytes", "verdict"):
        assert report[key] == host[key], key


@pytest.mark.parametrize("block", of_kind("boot-line"), ids=[b.where() for b in of_kind("boot-line")])
def test_the_example_error_line_is_what_the_board_prints(block, tmp_path, monkeypatch, capsys):
    from memcore import descriptor
    monkeypatch.chdir(tmp_path)
    from memcore.profiles import profile
    described = descriptor.describe(memcore.load(REPO / "examples" / "kws_dscnn_int8.tflite"), profile("esp32"))
    for change in block.args.split():
        key, value = change.split("=", 1)
        described[key] = value
    (tmp_path / "model.json").write_text(json.dumps(described))
    import memcore_boot
    assert memcore_boot.main("model.json") is None
    assert capsys.readouterr().out == block.text


def test_the_example_vector_run_is_the_shared_vectors():
    (block,) = of_kind("vector-lines")
    lines = [json.loads(line[len("@memcore "):]) for line in block.text.splitlines()]
    header, end = lines[0], lines[-1]
    assert header["schema"] == "memcore.board/1" and header["api_version"] == memcore.version()[1]
    cases = {}
    for path in sorted((REPO / "tests" / "vectors").glob("*.json")):
        data = json.loads(path.read_text())
        for case in data["cases"]:
            cases[(path.stem, case["name"])] = case
    assert end == {"schema": "memcore.vector-end/1", "cases": len(cases),
                   "errors": sum(1 for c in cases.values() if c.get("error"))}
    for line in lines[1:-1]:
        case = cases[(line["file"], line["case"])]
        if "error" in line:
            assert case.get("error") is True
        else:
            assert line["fields"] == case["expect"], line


def test_blocks_for_a_board_are_run_by_the_firmware_suite():
    suite = (REPO / "firmware_tests" / "test_board_docs.py").read_text()
    for kind, where in KINDS.items():
        if where == "firmware":
            assert 'of_kind("%s")' % kind in suite, kind
