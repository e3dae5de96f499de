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
