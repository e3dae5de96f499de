"""Hostile --device-file TOML: a profile, or one MemcoreError naming the file, the device
and the key; `memcore check` never says FITS for a tampered profile."""
import copy
import json
import pathlib
import random
import tempfile

from memcore import MemcoreError

from hostile_tally import MODELS, timed, traceback_text


BOARD = {
    "description": "STM32H743 board, bare-metal TFLM", "available_bytes": 900_000,
    "available_bytes_at_boot": 800_000, "ops_per_second_reference": 2e7, "ops_per_second_optimised": 2e8,
    "latency_budget_seconds": 0.05, "overhead_seconds": 50e-6, "pointer_bytes": 4, "arena_region": "ram",
    "weights_region": "flash",
    "regions": {"ram": {"size_bytes": 1_048_576, "read_bytes_per_second": 1.6e9},
                "flash": {"size_bytes": 2_097_152, "read_bytes_per_second": 8e8}},
}


def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return {float("inf"): "inf", float("-inf"): "-inf"}.get(v, "nan" if v != v else repr(v))
    if isinstance(v, str):
        return json.dumps(v)  # a TOML basic string reads JSON's escapes
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join("%s = %s" % (json.dumps(k), toml_value(x)) for k, x in v.items()) + "}"
    raise TypeError(v)


def board_toml(name, board):
    out = ["[%s]" % json.dumps(name)]
    for key, value in board.items():
        out.append("%s = %s" % (json.dumps(key), toml_value(value)))
    return "\n".join(out) + "\n"


_HOSTILE_VALUES = [[], [1], {"a": 1}, "text", "", True, -1, 0, 2 ** 70, -2 ** 63, 1e300, float("nan"),
                   float("inf"), -0.5, [[[[[[1]]]]]], 5e-324, 1e-300, 1e-12]   # a subnormal, tiny figures


def device_file_attempts(rng, count):
    """(name, TOML text, must_refuse, tampered) for hostile device files."""
    keys = [k for k in BOARD if k != "regions"]
    for k in range(count):
        board = copy.deepcopy(BOARD)
        how = rng.choice(("key", "key", "key", "region", "arena flash", "boot above total", "unknown key",
                          "missing", "deep", "description", "markup", "region name", "huge text"))
        text = None
        must_refuse, tampered = True, True
        if how == "key":
            key = rng.choice(keys)
            value = rng.choice(_HOSTILE_VALUES)
            board[key] = value
            how = "%s = %s" % (key, toml_value(value)[:30])
            if (key == "overhead_seconds" and value == 0 and value is not False
                    or key == "description" and value == "text"):
                must_refuse = tampered = False  # no fixed cost per request, a plain description: valid
        elif how == "region":
            region = rng.choice(("ram", "flash"))
            key = rng.choice(("size_bytes", "read_bytes_per_second", "extra"))
            board["regions"][region][key] = rng.choice(_HOSTILE_VALUES)
            how = "regions.%s.%s = %s" % (region, key, toml_value(board["regions"][region][key])[:30])
        elif how == "arena flash":
            board["arena_region"] = "flash"
            board["available_bytes"] = board["available_bytes_at_boot"] = 10_000
        elif how == "boot above total":
            board["available_bytes_at_boot"] = board["available_bytes"] + rng.randint(1, 10 ** 6)
        elif how == "unknown key":
            board[rng.choice(("avaliable_bytes", "arena", "Regions", "weights"))] = 1
        elif how == "missing":
            del board[rng.choice(("description", "available_bytes", "regions"))]  # required keys (a budget is optional)
        elif how == "deep":
            depth = rng.choice((5, 50, 3000))
            text = board_toml("my-board", board) + "a = " + "[" * depth + "]" * depth + "\n"
        elif how == "description":
            board["description"] = rng.choice(([], {"x": 1}, "", "line\nbreak", "nul\x00", "x" * 10_000))
        elif how == "markup":
            board["description"] = rng.choice(("[/]", "[red]red[/red]", "[bold", "[link=x]y[/link]"))
            must_refuse = tampered = False   # a valid profile: shown as written
        elif how == "region name":
            board["regions"][rng.choice(("sram", "RAM", "", "ram.x"))] = {"size_bytes": 1, "read_bytes_per_second": 1}
        elif how == "huge text":
            text = "[b]\n" + "x = 1\n" * 300_000
        yield "%s #%d" % (how, k), text or board_toml("my-board", board), must_refuse, tampered


def device_files(tally, count, seed=3, folder=None, cli_every=8):
    """Hostile --device-file TOML: a profile or one MemcoreError naming the file, device and
    key; every cli_every-th one through `memcore check`, which must never say FITS for a
    tampered profile nor print a traceback."""
    from memcore.profiles import profiles_from_toml
    from cli_helpers import memcore_cli
    rng = random.Random(seed)
    folder = pathlib.Path(folder or tempfile.mkdtemp(prefix="memcore-adv-"))
    tiny = MODELS / "tiny_mlp_int8.tflite"
    with timed(tally, "device files"):
        for k, (name, text, must_refuse, tampered) in enumerate(device_file_attempts(rng, count)):
            path = folder / ("board-%d.toml" % k)
            path.write_text(text)
            try:
                found = profiles_from_toml(text, str(path))
                outcome = "false_ok" if must_refuse else "accepted"
                detail = "accepted: %r" % (found,)
            except MemcoreError as exc:
                outcome, detail = "refused", str(exc)
                if str(path) not in detail:
                    outcome, detail = "traceback", "error without the file's name: " + detail
            except Exception as exc:  # noqa: BLE001
                outcome, detail = "traceback", traceback_text(exc)
            if outcome in ("accepted", "refused") and k % cli_every == 0:
                code, out, err = memcore_cli("check", tiny, "--device", "my-board", "--device-file", path)
                if "Traceback" in out + err:
                    outcome, detail = "traceback", err
                elif tampered and ("FITS" in out and "DOES NOT FIT" not in out):
                    outcome, detail = "fits_for_tampered", out
                elif must_refuse and (code != 2 or len(err.strip().splitlines()) != 1):
                    outcome, detail = "false_ok", "exit %d: %s" % (code, err or out)
                elif not must_refuse and "[" in BOARD["description"] + text and code in (0, 1):
                    code2, out2, err2 = memcore_cli("devices", "--device-file", path)
                    if code2 != 0 or "Traceback" in out2 + err2:
                        outcome, detail = "traceback", err2
            tally.add("device files", outcome, name, detail)

