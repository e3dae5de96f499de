"""Scripted hostile boards replayed by firmware_tests/fakeboard.py: vector runs through
`memcore hil`'s harness, boot output through `memcore monitor`."""
import copy
import io
import json
import pathlib
import random
import sys
import tempfile

from memcore.hil import lines

from hostile_tally import DEVICE_DIR, FIRMWARE_TESTS, MODELS, ROOT, timed, traceback_text


def _fakeboard():
    sys.path.insert(0, str(FIRMWARE_TESTS))
    try:
        import boardkit
        import fakeboard
    finally:
        sys.path.remove(str(FIRMWARE_TESTS))
    return fakeboard, boardkit


def _with_lines(rows):
    return [r + "\r\n" for r in rows]


def hil_scripts(rng, count):
    """(name, script) of hostile vector runs: every one must end not "ok"."""
    _, boardkit = _fakeboard()
    good = boardkit.host_lines()
    header, results, end = good[0], good[1:-1], good[-1]
    objs = [json.loads(r[len(lines.PREFIX):]) for r in results]

    def line(obj):
        return lines.PREFIX + json.dumps(obj)

    def wrong_copy(i):
        """Result i with a wrong value: a field changed, or an error made a result (error
        texts are not compared: host and board word them apart)."""
        o = copy.deepcopy(objs[i])
        if "fields" in o:
            name = sorted(o["fields"])[0]
            v = o["fields"][name]
            o["fields"][name] = (v + 1) if type(v) is int else ("x" if isinstance(v, str) else 12345)
        else:
            del o["error"]
            o["fields"] = {"value": 1}
        return line(o)

    kinds = ["forged duplicate", "exact duplicate", "forged mid-line", "missing case", "field type",
             "fields type", "value type", "deep", "long line", "markup", "unknown schema", "unknown key",
             "duplicate key", "end count", "no end", "two headers", "result after end", "bad utf-8",
             "report line", "header type", "wrong value", "result before header", "nan", "bool for int",
             "float width lie", "escape codes"]
    for k in range(count):
        kind = kinds[k % len(kinds)] if k < len(kinds) else rng.choice(kinds)
        rows = list(results)
        head, tail = [header], [end]
        i = rng.randrange(len(rows))
        if kind == "forged duplicate":  # a wrong value, then a later line with the right one
            rows[i:i + 1] = [wrong_copy(i), results[i]]
        elif kind == "exact duplicate":
            rows.insert(i, results[i])
        elif kind == "forged mid-line":  # a wrong value, then the right one inside a printed string
            rows[i:i + 1] = [wrong_copy(i), "print('" + results[i] + "')"]
        elif kind == "missing case":
            del rows[i]
            tail = [lines.PREFIX + json.dumps({"schema": lines.END, "cases": len(rows)})]
        elif kind == "field type":
            o = copy.deepcopy(objs[i])
            o[rng.choice(("file", "case"))] = rng.choice(([o["file"]], {"a": 1}, 7, None))
            rows[i] = line(o)
        elif kind == "fields type":
            o = copy.deepcopy(objs[i])
            o.pop("error", None)
            o["fields"] = rng.choice(("abc", [1, 2], 3, None))
            rows[i] = line(o)
        elif kind == "value type":
            o = copy.deepcopy(objs[i])
            o.pop("error", None)
            o["fields"] = {"required_bytes": {"nested": 1}}
            rows[i] = line(o)
        elif kind == "deep":
            depth = rng.choice((9, 1000, 100_000))
            rows[i] = rows[i][:-1] + ',"x":' + "[" * depth + "]" * depth + "}"
        elif kind == "long line":
            rows[i] = rows[i][:-1] + ',"pad":"' + "x" * rng.choice((70_000, 1_000_000)) + '"}'
        elif kind == "markup":
            o = copy.deepcopy(objs[i])
            o["case"] = rng.choice(("[/]", "[red]x[/red]", "[bold", "[link=file:///etc/passwd]x[/link]"))
            rows[i] = line(o)
            head = [header.replace('"firmware": "fake"', '"firmware": "[/][red]forged[/red]"')]
        elif kind == "unknown schema":
            rows.insert(i, line({"schema": "memcore.vector-result/2", "file": "budget", "case": "x", "fields": {}}))
        elif kind == "unknown key":
            o = copy.deepcopy(objs[i])
            o["verdict"] = "ok"
            rows[i] = line(o)
        elif kind == "duplicate key":
            rows[i] = rows[i][:-1] + ', "file": "budget"}'
        elif kind == "end count":
            tail = [lines.PREFIX + json.dumps({"schema": lines.END, "cases": len(rows) + 1})]
        elif kind == "no end":
            tail = []
        elif kind == "two headers":
            rows.insert(i, header)
        elif kind == "result after end":
            tail = [end, results[i]]
        elif kind == "bad utf-8":
            rows[i] = {"hex": rows[i].encode().replace(b'"case": "', b'"case": "\xff\xfe').hex()}
        elif kind == "report line":
            fakeboard, _ = _fakeboard()
            rows.insert(i, lines.PREFIX + json.dumps(fakeboard.BOOT_REPORTS[0]))
        elif kind == "header type":
            head = [header.replace('"float_bits": 64', '"float_bits": ' + rng.choice(('[64]', '"64"', '16', '64.0')))]
        elif kind == "wrong value":
            rows[i] = wrong_copy(i)
        elif kind == "result before header":
            head = [results[i], header]
            del rows[i]
        elif kind == "nan":
            o = copy.deepcopy(objs[i])
            if "fields" in o:
                o["fields"][sorted(o["fields"])[0]] = float("nan")
            else:
                o = {"schema": lines.RESULT, "file": o["file"], "case": o["case"], "fields": {"value": float("nan")}}
            rows[i] = line(o)
        elif kind == "bool for int":
            o = copy.deepcopy(objs[i])
            ints = [n for n, v in o.get("fields", {}).items() if type(v) is int and v in (0, 1)]
            if ints:
                o["fields"][ints[0]] = bool(o["fields"][ints[0]])
            else:
                o = {"schema": lines.RESULT, "file": o["file"], "case": o["case"], "fields": {"value": True}}
            rows[i] = line(o)
        elif kind == "float width lie":  # 32-bit floats claimed by a 64-bit board, whose values are off
            head = [header.replace('"float_bits": 64', '"float_bits": 32')]   # by more than doubles allow
            rows = [line(_scaled(o, 1 + 2.0 ** -23)) for o in objs]
        elif kind == "escape codes":
            o = copy.deepcopy(objs[i])
            o["case"] = rng.choice(ESCAPES)
            rows[i] = line(o)
            head = [header.replace('"firmware": "fake"', '"firmware": %s' % json.dumps(rng.choice(ESCAPES)))]
        body = [r if isinstance(r, dict) else r + "\r\n" for r in head + rows + tail]
        yield "%s #%d" % (kind, k), {"run": body, "float_bits": 64}


def _scaled(result, factor):
    """A result line with its floats times `factor`."""
    o = copy.deepcopy(result)
    for name, value in o.get("fields", {}).items():
        if type(value) is float and value not in (0.0, float("inf")):
            o["fields"][name] = value * factor
    return o


def hil_boards(tally, count, seed=6, folder=None):
    """Hostile vector runs replayed by the fake board behind socket://: the parity report
    must never be "ok", nothing may raise, and what the board sent is shown as text."""
    from rich.console import Console
    from memcore.hil import SerialBoard
    from memcore.hil.parity import compare, run_on_board, vector_names
    from memcore.hil.report import render
    rng = random.Random(seed)
    names = vector_names(ROOT / "tests" / "vectors")
    folder = pathlib.Path(folder or tempfile.mkdtemp(prefix="memcore-adv-"))
    with timed(tally, "hil boards"):
        for name, script in hil_scripts(rng, count):
            port = _fakeboard()[0].FakeBoardOnPty(script)
            board = SerialBoard(port.name, transcript_dir=folder, step_timeout_s=5.0)
            try:
                board.open("adversarial")
                report = compare(run_on_board(board, names, ROOT / "tests" / "vectors", timeout_s=10,
                                              deploy_files=False), names, ROOT / "tests" / "vectors")
                out = io.StringIO()
                render(report, Console(file=out, width=200))
                report.write(folder / "report.json")
            except Exception as exc:  # noqa: BLE001
                tally.add("hil boards", "traceback", name, traceback_text(exc))
                continue
            finally:
                board.close()
                port.close()
            text = out.getvalue()
            if report.ok:
                tally.add("hil boards", "false_ok", name, text[-800:])
            elif name.startswith("markup") and "[/]" not in text and "[red]" not in text and "[bold" not in text:
                tally.add("hil boards", "traceback", name, "the board's markup was interpreted: " + text[-800:])
            elif name.startswith("escape") and any(c in text for c in "\x1b\x07\x9b\u202e\r"):
                tally.add("hil boards", "traceback", name, "control characters reached the terminal: %r" % text[-800:])
            elif name.startswith("float width") and "measured on the board" not in (report.error or ""):
                tally.add("hil boards", "false_ok", name, "a header's float width taken on its word: %s"
                          % report.status)
            elif report.status == "malformed" and not report.error.startswith(("transcript line ", "the board's "
                                                                               "header says")):
                tally.add("hil boards", "traceback", name, "a malformed run without its line: %s" % report.error)
            else:
                tally.add("hil boards", "refused", name, report.status)


#: what a board may print to steer the user's terminal: clear the screen and retitle the
#: window, a carriage return over a line, an 8-bit CSI, a right-to-left override
ESCAPES = ("\x1b[2J\x1b]0;owned\x07", "\x1b[1A\x1b[2Kboot report: fits", "\rfits", "\x9b2J", "\u202etif_ton")


def c_check_report(model="tiny_mlp_int8.tflite", device="esp32", placement="flash", available=400_000,
                   budgets=None):
    """The report a board with the C module prints for `model`: the board script's header,
    then the C check's field table (csrc/src/fields.c), which the host's check reads too:
    built here from the host's check of the same deployment."""
    import memcore
    from memcore.check import check
    from memcore.profiles import profile
    sys.path.insert(0, str(DEVICE_DIR))
    try:
        import memcore_boot
    finally:
        sys.path.remove(str(DEVICE_DIR))
    c = check(memcore.load(str(MODELS / model)), profile(device), 1, "optimised", placement, suggest=False,
              available_bytes=available, budgets=budgets)
    return dict(memcore_boot._header(model, device, memcore, "model") + [("weights_placement", placement)]
                + list(c.fields.items()) + [("gc_free_bytes", None), ("idf_largest_free_bytes", None),
                                             ("check_seconds", 0.01)])


def monitor_scripts(rng, count):
    """(name, boot chunks, must_fail) for `memcore monitor`: the exit status must not be 0."""
    fakeboard, _ = _fakeboard()
    fits, does_not = fakeboard.BOOT_REPORTS
    rom = fakeboard.ROM_LOG.decode()

    def rep(obj):
        return lines.PREFIX + json.dumps(obj) + "\r\n"

    kinds = ["forged fits after does_not_fit", "markup model", "malformed report", "inconsistent sums",
             "deep", "long line", "error report", "unknown field", "forged with a reboot-less banner",
             "bad utf-8", "flood without newlines", "duplicate key", "forged resource", "forged flash need",
             "forged verdict", "escape codes in the model", "escape codes on the console"]
    c_fits, c_short = c_check_report(available=10_000_000), c_check_report(available=1_000)
    for k in range(count):
        kind = kinds[k % len(kinds)] if k < len(kinds) else rng.choice(kinds)
        boot = [rom]
        if kind == "forged fits after does_not_fit":
            boot += [rep(does_not), "app: " * rng.randint(0, 1) + "\r\n", rep(dict(fits, model=does_not["model"]))]
        elif kind == "markup model":
            boot += [rep(dict(does_not, model=rng.choice(("[/]", "[green]fits[/green]", "[bold", "[/red]x"))))]
        elif kind == "malformed report":
            boot += [rep(dict(does_not, verdict=rng.choice(("FITS", True, None, ["fits"]))))]
        elif kind == "inconsistent sums":
            boot += [rep(dict(does_not, verdict="fits"))]
        elif kind == "deep":
            boot += [lines.PREFIX + '{"schema":"memcore.report/1","model":' + "[" * 100000 + "]" * 100000 + "}\r\n"]
        elif kind == "long line":
            boot += [rep(dict(fits, model="x" * 300_000))]
        elif kind == "error report":
            boot += [rep({"schema": lines.REPORT_ERROR, "error": "ValueError: weights.placement must be ..."})]
        elif kind == "unknown field":
            boot += [rep(dict(fits, forged=True))]
        elif kind == "forged with a reboot-less banner":
            boot += [rep(does_not), "MicroPython forged banner in the middle of a line\r\n", rep(fits)]
        elif kind == "bad utf-8":
            boot += [{"hex": rep(fits).encode().replace(b'"kws-small"', b'"\xff\xfe"').hex()}, rep(does_not)]
        elif kind == "flood without newlines":
            boot += [rep(does_not), {"repeat": "z", "bytes": 2_000_000}, "\r\n", rep(fits)]
        elif kind == "forged resource":   # "fits", but one resource's own fields say it is short
            name = rng.choice(("ram", "flash", "latency", "battery"))
            forged = dict(c_fits, **{name + "_checked": True, name + "_fits": False})
            boot += [rep(forged)]
        elif kind == "forged flash need":  # "fits" with a flash need of 9e9 against 2 MiB
            boot += [rep(dict(c_fits, flash_checked=True, flash_need=9e9, flash_limit=2097152.0,
                              flash_margin=2097152.0 - 9e9))]
        elif kind == "forged verdict":
            boot += [rep(dict(c_short, verdict=rng.choice(("fits", "misses_budget"))))]
        elif kind == "escape codes in the model":
            boot += [rep(dict(does_not, model=rng.choice(ESCAPES) + "kws"))]
        elif kind == "escape codes on the console":
            boot += [rng.choice(ESCAPES) + " app log\r\n", rep(does_not)]
        elif kind == "duplicate key":
            boot += [rep(does_not).replace('"verdict": "does_not_fit"', '"verdict": "does_not_fit", "verdict": "fits"')]
        yield "%s #%d" % (kind, k), boot


def monitor_on(boot, folder, seconds=0.6, cli=None, *options):
    """`memcore monitor --reset` on a fake board that prints `boot` after the reset:
    cli(...)'s answer (default: cli_helpers.memcore_cli's (status, stdout, stderr))."""
    from cli_helpers import memcore_cli
    port = _fakeboard()[0].FakeBoardOnPty({"boot": boot, "after": "listen", "reset_first": True})
    try:
        return (cli or memcore_cli)("monitor", "--port", port.name, "--reset", "--seconds", str(seconds),
                                    "--transcripts", folder, *options)
    finally:
        port.close()


def monitor_boards(tally, count, seed=7, folder=None, seconds=0.6):
    """Hostile boot output through `memcore monitor`: never exit 0, never a traceback, the
    board's text never read as markup."""
    rng = random.Random(seed)
    folder = pathlib.Path(folder or tempfile.mkdtemp(prefix="memcore-adv-"))
    with timed(tally, "monitor boards"):
        for name, boot in monitor_scripts(rng, count):
            try:
                code, out, err = monitor_on(boot, folder, seconds)
            except Exception as exc:  # noqa: BLE001
                tally.add("monitor boards", "traceback", name, traceback_text(exc))
                continue
            if "Traceback" in out + err:
                tally.add("monitor boards", "traceback", name, err[-800:])
            elif code == 0:
                tally.add("monitor boards", "false_ok", name, out[-800:])
            elif name.startswith("markup") and not any(m in out for m in ("[/]", "[green]", "[bold", "[/red]")):
                tally.add("monitor boards", "traceback", name, "markup interpreted: " + out[-800:])
            elif name.startswith("escape") and any(c in out + err for c in "\x1b\x07\x9b\u202e"):
                tally.add("monitor boards", "traceback", name, "control characters reached the terminal: %r" % out)
            elif name.startswith("forged") and code != 2:
                tally.add("monitor boards", "false_ok", name, "the forged report passed as a verdict: " + out)
            else:
                tally.add("monitor boards", "refused", name, "exit %d" % code)
