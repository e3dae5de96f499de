"""Subcommands of `memcore`, one module each, discovered by memcore.cli."""
