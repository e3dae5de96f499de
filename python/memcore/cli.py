# PYTHON_ARGCOMPLETE_OK
"""The `memcore` command.  Each subcommand lives in memcore/commands/<name>.py and
defines `register(subparsers)`, which adds its parser and sets `run(args) -> int`.

Exit status: one table for every command (memcore.exit_status, docs/exit-status.md): 0
fits, 1 does not fit, 3 misses a budget the user gave, 2 bad input or a board error.  A
bug in memcore itself is 2 as well, with its traceback: never 1, which a script would
read as "does not fit".

Every failure ends here as one line on stderr, `memcore COMMAND: error: MESSAGE`, with a
hint when one helps (an OS error's cause, the dialout group for a serial port); under
`--json` the same error is also one JSON object on stdout (docs/schemas/error.schema.json),
so a script reading stdout always gets JSON.  The exit status is the same either way.
"""
import argparse
import importlib
import json
import os
import pkgutil
import sys

import memcore
from memcore import commands, terminal
from memcore.errors import MemcoreError, os_error_hint, os_error_message

ERROR_SCHEMA = "memcore.error/1"


class UsageError(Exception):
    """argparse found the command line wrong (exit 2, like argparse itself)."""

    def __init__(self, parser, message):
        super().__init__(message)
        self.parser = parser
        self.message = message


class CommandError(Exception):
    """A failure a command reports itself: message, hint, exit status."""

    def __init__(self, message, hint=None, status=2):
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.status = status


class Parser(argparse.ArgumentParser):
    """argparse whose errors come back to main() (so --json can report them as JSON) and
    whose help prints in any encoding."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message):
        raise UsageError(self, message)

    def _print_message(self, message, file=None):
        if message:
            terminal.write(message, file or sys.stderr)


def build_parser():
    parser = Parser(prog="memcore", description=memcore.__doc__.strip().splitlines()[0],
                    epilog="Run `memcore COMMAND --help` for what each command prints and examples.\n"
                           "Shell completion: see the README (argcomplete).")
    parser.add_argument("--version", action="version", version="memcore %s (API %d)" % memcore.version())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if not info.name.startswith("_"):
            importlib.import_module("memcore.commands." + info.name).register(sub)
    return parser


def _completion(parser):
    """Tab completion through argcomplete when the shell asks for it (a no-op otherwise)."""
    try:
        import argcomplete
    except ImportError:      # declared in setup.py; a stripped-down install still runs
        return
    argcomplete.autocomplete(parser)


def describe(exc):
    """(message, hint, exit status) of anything a command may raise."""
    if isinstance(exc, CommandError):
        return exc.message, exc.hint, exc.status
    if isinstance(exc, MemcoreError):
        return str(exc), getattr(exc, "hint", None), 2
    if isinstance(exc, OSError):
        return os_error_message(exc, "cannot read"), os_error_hint(exc), 2
    raise exc


def error_json(command, message, hint, status):
    return {"schema": ERROR_SCHEMA, "command": command, "error": message, "hint": hint, "exit_status": status}


def report_error(command, message, hint, status, as_json):
    line = "memcore %s: error: %s" % (command, message) if command else "memcore: error: %s" % message
    if hint:
        line += " (hint: %s)" % hint
    # messages quote names from model files, device files and boards: one line, never a
    # terminal's command
    terminal.write(terminal.visible(line) + "\n", sys.stderr)
    if as_json:
        terminal.write(json.dumps(error_json(command, message, hint, status), indent=2) + "\n", sys.stdout)
    return status


def _wants_json(argv):
    return "--json" in argv


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    _completion(parser)
    try:
        args = parser.parse_args(argv)
    except UsageError as exc:
        exc.parser.print_usage(sys.stderr)
        command = exc.parser.prog.split(" ", 1)[1] if " " in exc.parser.prog else None
        # argparse's usage line above already says what the command takes: no hint.
        return report_error(command, exc.message, None, 2, _wants_json(argv))
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    try:
        return args.run(args)
    except BrokenPipeError:
        # The reader went away (`memcore check ... | head`): stop quietly, as Unix tools do,
        # and keep Python from complaining while it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (MemcoreError, OSError, CommandError) as exc:
        message, hint, status = describe(exc)
        return report_error(args.command, message, hint, status, getattr(args, "json", False))
    except Exception as exc:  # noqa: BLE001 - a bug: say so, and never exit with a verdict's status
        import traceback
        traceback.print_exc()
        return report_error(args.command, "internal error: %s: %s" % (type(exc).__name__, exc),
                            "a bug in memcore: please report it with the traceback above", 2,
                            getattr(args, "json", False))


if __name__ == "__main__":
    sys.exit(main())
