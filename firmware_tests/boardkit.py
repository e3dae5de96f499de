"""What the firmware tests share besides fixtures: paths, and the lines a correct board
prints.  A module of its own (not conftest.py) so test files can import it by a name no
other test folder uses."""
import json
import pathlib

import memcore
from memcore import vectors

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent
VECTOR_DIR = REPO / "tests" / "vectors"


def host_lines():
    """The `@memcore` lines a correct board prints for every shared vector, computed on the host."""
    version, api = memcore.version()
    out = ["@memcore " + json.dumps({"schema": "memcore.board/1", "memcore_version": version, "api_version": api,
                                     "implementation": "fallback", "float_bits": 64, "firmware": "fake",
                                     "platform": "fake"})]
    for path in sorted(VECTOR_DIR.glob("*.json")):
        data = vectors.load(path)
        for case in data["cases"]:
            result = vectors.outcome(memcore, data["function"], case)
            out.append("@memcore " + json.dumps(dict({"schema": "memcore.vector-result/1", "file": path.stem,
                                                      "case": case["name"]}, **result)))
    out.append("@memcore " + json.dumps({"schema": "memcore.vector-end/1", "cases": len(out) - 1}))
    return out


def board_is_64_bit(board):
    return int(board.repl.exec("import sys\nprint(sys.maxsize)\n").split()[-1]) > 2**32


def scratch_agrees(board, host, got):
    """The board's check_scratch_bytes against the host's (x86-64).  The figure is
    sizeof-based: to the byte on a 64-bit board.  On a 32-bit one a tensor's and an
    operator's records hold a 4-byte pointer (and the i386 ABI aligns int64_t to 4), as
    does the core's own state (the reader's, the planners', TFLM's model's), so it is
    smaller there, never larger: by at most 8 B a tensor and an operator, and 1 KB of
    state.  The host's figure holds for every board."""
    host_bytes, board_bytes = host["check_scratch_bytes"], got["check_scratch_bytes"]
    if board_is_64_bit(board):
        return board_bytes == host_bytes
    return host_bytes - 8 * (host["tensors"] + host["operators"]) - 1024 <= board_bytes <= host_bytes
