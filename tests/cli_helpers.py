"""Running `memcore` in-process for the CLI tests: argv in, (exit code, stdout, stderr) out."""
import io
import pathlib
from contextlib import redirect_stderr, redirect_stdout

from memcore.cli import main

MODELS = pathlib.Path(__file__).resolve().parent / "models"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def memcore_cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main([str(a) for a in argv])
        except SystemExit as exc:      # argparse's usage errors
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def model(name):
    return MODELS / name


def png_size(data):
    """(width, height) from a PNG's IHDR chunk, after checking the signature."""
    assert data[:8] == PNG_SIGNATURE, "not a PNG"
    assert data[12:16] == b"IHDR"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def schemas():
    """Every JSON Schema memcore ships, by its name ("memcore.ops/1", ...)."""
    import json
    from importlib import resources

    data = resources.files("memcore").joinpath("data")
    found = [json.loads(data.joinpath("report.schema.json").read_text())]
    found += [json.loads(p.read_text()) for p in data.joinpath("schemas").iterdir() if p.name.endswith(".schema.json")]
    return {s["title"]: s for s in found}


def validate(obj):
    """Validates `obj` against the schema its "schema" field names (with the other
    schemas it refers to resolvable by their $id), and returns it."""
    import jsonschema
    from referencing import Registry, Resource

    known = schemas()
    assert obj.get("schema") in known, "unknown schema %r" % obj.get("schema")
    registry = Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in known.values())
    jsonschema.Draft202012Validator(known[obj["schema"]], registry=registry).validate(obj)
    return obj


def cli_json(*argv):
    """(exit code, the JSON document on stdout, validated against its schema, stderr)."""
    import json

    code, out, err = memcore_cli(*argv, "--json")
    return code, validate(json.loads(out)), err


def child_env(**extra):
    """Environment for a child `python -m memcore`.  Under .ci/steps/40-py-asan.sh the
    extension is built with AddressSanitizer, whose runtime must be preloaded into any
    process that loads it; that step drops LD_PRELOAD for children that do not, so a
    child that does gets it back here."""
    import os
    import subprocess

    env = dict(os.environ, **extra)
    if "ASAN_OPTIONS" in os.environ and "LD_PRELOAD" not in os.environ:
        libs = [subprocess.run(["gcc", "-print-file-name=%s" % name], capture_output=True, text=True).stdout.strip()
                for name in ("libasan.so", "libstdc++.so")]
        env["LD_PRELOAD"] = " ".join(libs)
    return env


def read_pty(cmd, env):
    """Runs `cmd` on a pseudo-terminal with `env`, as a person's terminal runs it:
    (exit code, everything it wrote, as bytes)."""
    import os
    import pty

    pid, fd = pty.fork()
    if pid == 0:
        os.execvpe(cmd[0], cmd, env)
    chunks = []
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), b"".join(chunks)
