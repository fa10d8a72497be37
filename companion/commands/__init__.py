"""Subcommands of `companion`: every module here has `register(cli)` (see companion.cli)."""
