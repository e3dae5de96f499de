"""The `memcore` command.  Each subcommand lives in memcore/commands/<name>.py and
defines `register(subparsers)`, which adds its parser and sets `run(args) -> int`.

Exit codes: 0 fits / success, 1 does not fit, 2 bad input or error.
"""
import argparse
import importlib
import pkgutil
import sys

import memcore
from memcore import commands
from memcore.errors import MemcoreError


def build_parser():
    parser = argparse.ArgumentParser(prog="memcore", description=memcore.__doc__.strip().splitlines()[0])
    parser.add_argument("--version", action="version", version="memcore %s (API %d)" % memcore.version())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        importlib.import_module("memcore.commands." + info.name).register(sub)
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    try:
        return args.run(args)
    except (MemcoreError, OSError) as exc:
        print("memcore %s: error: %s" % (args.command, exc), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
