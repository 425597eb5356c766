"""The command line's help screens, as a federation's staff read them, and ``olympiad standin``'s declared
options reaching the stand-in game server as its own command line (typer's runner, nothing served)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from typer.testing import CliRunner

from orchestrator.cli import app
from orchestrator.standin import __main__ as standin_entry

runner = CliRunner()
COMMANDS = (
    "validate",
    "standings",
    "trf",
    "pair",
    "simulate",
    "migrate",
    "serve",
    "create-user",
    "chesscom-import",
    "tick",
    "standin",
    "demo",
    "export-event",
    "import-event",
    "import-trf",
    "replay-trf",
)


def help_of(*command: str) -> str:
    result = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    return result.output


def test_the_overview_lists_every_command() -> None:
    text = help_of()
    for command in COMMANDS:
        assert command in text


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_no_flag_shows_a_value_placeholder(command: str) -> None:
    # A flag takes no value: "--keep <bool>" reads as if it wanted one.
    text = help_of(*([command] if command else []))
    assert "--help" in text and "<bool>" not in text


def test_the_demo_help_speaks_to_its_users_not_to_developers() -> None:
    text = help_of("demo")
    assert "Play the whole event" in text and "staff login" in text
    assert "typer" not in text and "signature" not in text
    for option in ("--event", "--minutes", "--no-web", "--keep", "--seed", "--exit", "--swiss-engine"):
        assert option in text


def test_the_standin_help_lists_its_options() -> None:
    text = help_of("standin")
    for option in ("--host", "--port", "--speed", "--seed", "--faults", "--fault-rate"):
        assert option in text


def test_the_standin_gets_the_options_given_and_nothing_else(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Sequence[str]] = []
    monkeypatch.setattr(standin_entry, "main", lambda argv=None: calls.append(list(argv or [])))
    given = ["--port", "8123", "--speed", "instant", "--faults", "429,slow", "--fault-rate", "0.25"]
    assert runner.invoke(app, ["standin", *given]).exit_code == 0
    assert runner.invoke(app, ["standin"]).exit_code == 0
    assert calls == [given, []]


def test_the_standin_refuses_an_option_it_does_not_know() -> None:
    result = runner.invoke(app, ["standin", "--colour", "white"])
    assert result.exit_code != 0
