"""Parity: the shared vectors computed on the board and on the host, compared field by field.

1. deploy the device scripts (micropython/*.py) and the vector files onto the board;
2. run the device-side vector runner; it prints a header (its memcore version, API
   version, float width) and one `@memcore` line per case;
3. compute every case on the host with the cffi package;
4. compare: versions first (another memcore on the board is reported, not diffed), then
   each case under the parity rule (memcore.hil.rule): integers and strings exactly,
   floats within the board's own precision, and what the core derives from float
   arguments as far as the board's precision moves those arguments.

Whatever goes wrong on the way (a timeout, a reboot, a lost line), the cases that did
arrive are still compared, and the failure is part of the report.
"""
import json
import os
import pathlib
import time
from dataclasses import dataclass, field

import memcore
from memcore import vectors
from memcore.hil import lines, rule
from memcore.hil.deploy import deploy
from memcore.hil.errors import HilError, RemoteError

VECTOR_DIR_ON_BOARD = "memcore_vectors_data"


def repo_root():
    return pathlib.Path(__file__).resolve().parents[3]


def _board_dir(in_checkout, in_package):
    """The checkout's folder when running from one (an editable install), else the copy
    that setup.py ships in the package as memcore/board/."""
    local = repo_root().joinpath(*in_checkout)
    if local.is_dir():
        return local
    return pathlib.Path(__file__).resolve().parents[1] / "board" / in_package


def default_vector_dir():
    return _board_dir(("tests", "vectors"), "vectors")


def default_device_dir():
    return _board_dir(("micropython",), "micropython")


#: the environment variable naming a native module (memcore.mpy, `memcore firmware-module`)
#: that board_files adds: how the firmware suite's tests deploy it to stock firmware
MODULE_ENV = "MEMCORE_BOARD_MODULE"


def board_files(vector_dir=None, device_dir=None, module=None):
    """{name on the board: local path}: the device scripts and the vector files, and the
    native module `module` (default: $MEMCORE_BOARD_MODULE) as memcore.mpy when one is
    named, which `import memcore` then loads on firmware without the C module."""
    vector_dir = pathlib.Path(vector_dir or default_vector_dir())
    device_dir = pathlib.Path(device_dir or default_device_dir())
    # memcore_*.py only: boot.py and main.py would change how a real board boots
    files = {p.name: p for p in sorted(device_dir.glob("memcore_*.py"))}
    module = module or os.environ.get(MODULE_ENV)
    if module:
        files["memcore.mpy"] = pathlib.Path(module)
    files.update({"%s/%s" % (VECTOR_DIR_ON_BOARD, p.name): p for p in sorted(vector_dir.glob("*.json"))})
    return files


def runner_code(vector_names):
    """What the host types into the raw REPL to run the vectors on the board."""
    paths = ["%s/%s.json" % (VECTOR_DIR_ON_BOARD, n) for n in vector_names]
    return "import memcore_vectors\nmemcore_vectors.main(%r)\n" % (paths,)


@dataclass
class BoardRun:
    """What the board said: its header, one result per case, noise, any failure, and every
    line that broke the protocol (`problems`: (transcript line, what is wrong))."""
    header: dict = None
    end: dict = None
    results: list = field(default_factory=list)    # (transcript line, result object)
    noise: list = field(default_factory=list)
    problems: list = field(default_factory=list)   # (transcript line, text)
    error: str = None
    error_kind: str = None
    seconds: float = 0.0
    transcript: str = None
    float_bits: int = None      # the board's float width as measured (FLOAT_PROBE), not as claimed

    def take(self, output, first_line=1):
        objects, noise, bad = lines.parse(output, first_line)
        self.noise.extend(noise)
        self.problems.extend((number, problem) for number, problem, _ in bad)
        for number, obj in objects:
            kind = obj["schema"]
            if kind == lines.HEADER:
                if self.header is not None or self.results:
                    self.problems.append((number, "a second header line"))
                else:
                    self.header = obj
            elif kind == lines.RESULT:
                if self.header is None:
                    self.problems.append((number, "a result line before the header"))
                elif self.end is not None:
                    self.problems.append((number, "a result line after the end line"))
                self.results.append((number, obj))
            elif kind == lines.END:
                if self.end is not None:
                    self.problems.append((number, "a second end line"))
                else:
                    self.end = obj
                    if obj["cases"] != len(self.results):
                        self.problems.append((number, "the end line counts %d cases, %d result lines came"
                                              % (obj["cases"], len(self.results))))
            else:
                self.problems.append((number, "a %s line in a vector run" % kind))


#: What the host has the board compute to learn its float width, whatever its header says:
#: 1 + 2^-40 is 1 in single precision (24-bit significand) and not in double, so this
#: prints 0.0 on a 32-bit float board and 2^-40 on a 64-bit one.
FLOAT_PROBE = "print(repr(1.0 + 2.0 ** -40 - 1.0))  # memcore float width probe\n"


def measured_float_bits(output):
    """32 or 64 from FLOAT_PROBE's output, or None if it printed anything else."""
    text = output.decode("utf-8", "replace").strip() if isinstance(output, bytes) else output.strip()
    try:
        value = float(text)
    except ValueError:
        return None
    if value == 0.0:
        return 32
    if abs(value - 2.0 ** -40) <= 2.0 ** -60:
        return 64
    return None


def run_on_board(board, vector_names, vector_dir=None, device_dir=None, timeout_s=120.0, code=None,
                 deploy_files=True, module=None):
    """Deploy and run the vector runner on an opened board; never raises a HilError."""
    run = BoardRun()
    start = time.monotonic()
    taken = False
    try:
        repl = board.repl
        if deploy_files:
            deploy(repl, board_files(vector_dir, device_dir, module))
            # as at boot, on a heap the deploying has not fragmented: memcore.mpy's code is
            # one heap block on a Cortex-M (50 KB), which a fragmented 110 KiB heap refuses
            board.reset()
            repl = board.repl
        out, err = repl.exec_raw(code or runner_code(vector_names), timeout_s)
        run.take(out, repl.output_first_line)
        taken = True
        if err:
            raise RemoteError("the vector runner raised on the board", out, err, repl.transcript)
        # after the runner, so its lines keep their transcript numbers
        probe, err = repl.exec_raw(FLOAT_PROBE, timeout_s)
        run.float_bits = measured_float_bits(probe) if not err else None
        if run.float_bits is None:
            run.problems.append((repl.output_first_line, "the float width probe (%s) printed %r, not 0.0 or 2^-40"
                                 % (FLOAT_PROBE.split("  #")[0], (probe + err)[:80])))
    except HilError as exc:
        if exc.stdout and not taken:
            run.take(exc.stdout, board.repl.output_first_line)
        run.error = str(exc)
        run.error_kind = type(exc).__name__
    run.seconds = time.monotonic() - start
    run.transcript = str(board.transcript.path) if board.transcript else None
    return run


@dataclass
class Difference:
    file: str
    case: str
    field: str
    host: object
    board: object


@dataclass
class ParityReport:
    status: str                    # ok | differences | malformed | version_mismatch | incomplete
    host: dict
    board: dict
    float_rel: float = None
    cases: int = 0                 # cases the board reported and the host compared
    agreed: int = 0
    differences: list = field(default_factory=list)
    per_file: dict = field(default_factory=dict)   # file -> {"cases", "agreed", "differing", "missing"}
    noise_lines: int = 0
    problems: list = field(default_factory=list)   # [{"line": transcript line, "problem": text}]
    error: str = None
    error_kind: str = None
    transcript: str = None
    seconds: float = 0.0

    @property
    def ok(self):
        return self.status == "ok"

    def as_json(self):
        return {
            "schema": "memcore.parity/1", "status": self.status, "host": self.host, "board": self.board,
            "float_rel": self.float_rel, "cases": self.cases, "agreed": self.agreed,
            "differences": [d.__dict__ for d in self.differences], "per_file": self.per_file,
            "noise_lines": self.noise_lines, "problems": self.problems, "error": self.error,
            "error_kind": self.error_kind,
            "transcript": self.transcript, "seconds": round(self.seconds, 3),
        }

    def write(self, path):
        pathlib.Path(path).write_text(json.dumps(self.as_json(), indent=2, default=repr) + "\n")


def compare(run, vector_names, vector_dir=None):
    """Host vs board, field by field.  Every case must come exactly once; a line that broke
    the protocol makes the run "malformed" (never "ok"), naming its transcript line."""
    vector_dir = pathlib.Path(vector_dir or default_vector_dir())
    host_version, host_api = memcore.version()
    report = ParityReport(status="ok", host={"memcore_version": host_version, "api_version": host_api},
                          board=run.header or {}, noise_lines=len(run.noise), error=run.error,
                          error_kind=run.error_kind, transcript=run.transcript, seconds=run.seconds)
    problems = list(run.problems)
    got = {}
    for number, result in run.results:
        key = (result["file"], result["case"])
        if key in got:
            problems.append((number, "case %r of %r reported again (first on line %d)"
                             % (result["case"], result["file"], got[key][0])))
        else:
            got[key] = (number, result)
    problems.sort()
    report.problems = [{"line": n, "problem": p} for n, p in problems]
    if problems and report.error is None:
        report.error_kind = "ProtocolError"
        report.error = "transcript line %d: %s" % problems[0] + (
            " (and %d more lines that broke the protocol)" % (len(problems) - 1) if len(problems) > 1 else "")
    if run.header is None:
        report.status = "incomplete"
        report.error = report.error or "the board printed no memcore header"
        return report
    if (run.header["memcore_version"], run.header["api_version"]) != (host_version, host_api):
        report.status = "version_mismatch"
        report.error = "board runs memcore %s (API %s), host %s (API %s): not compared" % (
            run.header["memcore_version"], run.header["api_version"], host_version, host_api)
        return report
    float_bits = run.header["float_bits"]
    if run.float_bits is not None and run.float_bits != float_bits:
        # A header claiming single precision on a double board would widen the tolerance
        # to 2^-22 and let wrong values pass.
        report.status, report.error_kind = "malformed", "ProtocolError"
        report.error = ("the board's header says %d-bit floats, but it computes with %d-bit ones (measured on the "
                        "board): not compared" % (float_bits, run.float_bits))
        return report
    report.float_rel = rule.tolerance(float_bits)
    for name in vector_names:
        data = vectors.load(vector_dir / (name + ".json"))
        stats = report.per_file.setdefault(name, {"cases": len(data["cases"]), "agreed": 0, "differing": 0,
                                                  "missing": 0, "fields": {}})
        for case in data["cases"]:
            _, board_result = got.pop((name, case["name"]), (None, None))
            if board_result is None:
                stats["missing"] += 1
                report.differences.append(Difference(name, case["name"], "(case)", "computed", "not reported"))
                continue
            report.cases += 1
            board_outcome = ({"error": board_result["error"]} if "error" in board_result
                             else {"fields": board_result["fields"]})

            def host(args, function=data["function"], case=case, board_result=board_result):
                return host_result(function, dict(case, args=args), board_result)

            diffs = rule.differences(host, case["args"], board_outcome, float_bits, stats["fields"])
            if diffs:
                stats["differing"] += 1
                report.differences.extend(Difference(name, case["name"], f, h, b) for f, h, b in diffs)
            else:
                stats["agreed"] += 1
                report.agreed += 1
    for (name, case_name) in got:
        report.differences.append(Difference(name, case_name, "(case)", "no such case", "reported"))
    if report.error is None and run.end is None:
        report.error, report.error_kind = "the runner's end line never came", "ProtocolError"
    if run.error:
        report.status = "incomplete"
    elif problems:
        report.status = "malformed"
    elif report.error:
        report.status = "incomplete"
    elif report.differences:
        report.status = "differences"
    return report


def host_result(function, case, board_result):
    """The host's outcome of a case, with every field the board reported (not only the
    ones the vector file checks), so nothing the board computes goes uncompared."""
    names = list(case.get("expect", {}))
    names += [n for n in board_result.get("fields", {}) if n not in names]
    try:
        result = getattr(memcore, function)(**case["args"])
    except ValueError as exc:
        return {"error": str(exc)}
    if names == ["value"] or not hasattr(result, "__dataclass_fields__") and not hasattr(result, "_fields"):
        return {"fields": {"value": result}}
    return {"fields": {n: vectors._plain(getattr(result, n, "<no such field on the host>")) for n in names}}


def vector_names(vector_dir=None):
    return sorted(p.stem for p in pathlib.Path(vector_dir or default_vector_dir()).glob("*.json"))


def parity(board, names=None, vector_dir=None, device_dir=None, timeout_s=120.0, deploy_files=True):
    """Run the whole comparison on an opened board."""
    names = names or vector_names(vector_dir)
    run = run_on_board(board, names, vector_dir, device_dir, timeout_s, deploy_files=deploy_files)
    return compare(run, names, vector_dir)
