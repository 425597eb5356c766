"""What every ``olympiad`` command shares: the two consoles, the exit codes, the default event file, and
the help screens' classes and flag option.

Split from cli.py so that cli_demo.py can use them too; it loads only typer and rich at import.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from typer.core import TyperCommand, TyperGroup

out = Console()
err = Console(stderr=True, soft_wrap=True)

EXIT_INVALID = 1  # a definition that does not validate
EXIT_BAD_INPUT = 2  # input that cannot be read

DEFAULT_EVENT = Path("events/online-olympiad-2020.yaml")


def flag(*names: str, help: str) -> Any:
    """An on/off option (``--keep``, or ``--web/--no-web``): its help line shows no value placeholder,
    since a flag takes none (typer would print ``<bool>`` after it)."""
    return typer.Option(*names, help=help, metavar="")


class _HelpFlag:
    """``--help`` is a flag too: no value placeholder on its help line either."""

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)  # type: ignore[misc]
        if option is not None:
            option.metavar = ""
        return option


class Command(_HelpFlag, TyperCommand):
    """Every ``olympiad`` command (``@app.command(cls=Command)``)."""


class Group(_HelpFlag, TyperGroup):
    """The ``olympiad`` command itself, whose help lists the commands."""
