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
