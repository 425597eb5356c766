"""``olympiad import-trf`` and ``olympiad replay-trf``: an event brought in from TRF-2026 team files, and a
file's rounds paired again by our engine (docs/trf.md, "Importing" and "Replaying").

Split from cli.py, which registers both commands; it loads only typer and rich at import, each command
imports what it uses.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from orchestrator.cli_common import EXIT_BAD_INPUT, EXIT_INVALID, err, flag, out

if TYPE_CHECKING:
    from orchestrator.domain.swiss.replay import Difference, RoundReplay

REPLAY_ENGINES = ("olympiad-2022", "fide-team-swiss")


def read_trf_text(path: Path) -> str:
    """A TRF file's text: UTF-8, else Latin-1 (as FIDE's programs often write them); exits when unreadable."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        err.print(f"error: cannot read {path}: {exc.strerror}", markup=False, highlight=False)
        raise typer.Exit(EXIT_BAD_INPUT) from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def import_trf_command(
    files: Annotated[
        list[Path], typer.Argument(help="TRF-2026 team file; two files: the Open and the Women section")
    ],
) -> None:
    """Create an event from TRF-2026 team files, every played round board by board (docs/trf.md)."""
    from orchestrator.adapters.uow import UnitOfWork
    from orchestrator.config import get_settings
    from orchestrator.db import init_db
    from orchestrator.errors import ServiceError, ValidationFailed
    from orchestrator.services.swiss.trf_import import import_trf

    texts = [(path.name, read_trf_text(path)) for path in files]
    settings = get_settings()
    init_db(settings)
    try:
        with UnitOfWork(settings=settings) as uow:
            report = import_trf(uow, files=texts, actor="cli")
    except ValidationFailed as exc:
        err.print(f"refused, nothing was written ({len(exc.problems)} problem(s)):", markup=False)
        for problem in exc.problems:
            err.print(f"  {problem}", markup=False, highlight=False)
        raise typer.Exit(EXIT_INVALID) from None
    except ServiceError as exc:
        err.print(f"error: {exc.message}", markup=False, highlight=False)
        raise typer.Exit(EXIT_INVALID) from None
    out.print(f"{report.slug}: {report.name}", markup=False, highlight=False)
    for stage in report.stages:
        out.print(
            f"  {stage.name} ({stage.source}): {stage.teams} teams, {stage.players} players, "
            f"{stage.rounds_played} of {stage.rounds} rounds played, {stage.matches} matches",
            markup=False,
            highlight=False,
        )


def _team(side: tuple[str, int, int]) -> dict[str, Any]:
    name, mp, rank = side
    return {"team": name, "mp": mp, "rank": rank}


def _difference(d: Difference) -> dict[str, Any]:
    return {"first": _team(d.first), "second": _team(d.second), "ours": list(d.ours), "article": d.article}


def replay_payload(path: Path, engine: str, found: tuple[RoundReplay, ...]) -> dict[str, Any]:
    """What ``--json`` prints."""
    return {
        "file": str(path),
        "engine": engine,
        "rounds": [
            {
                "round": r.round,
                "reproduced": r.reproduced,
                "total": r.total,
                "differences": [_difference(d) for d in r.differences],
            }
            for r in found
        ],
        "reproduced": sum(r.reproduced for r in found),
        "total": sum(r.total for r in found),
    }


def replay_trf_command(
    trf_file: Annotated[Path, typer.Argument(help="TRF-2026 team file with played rounds")],
    engine: Annotated[
        str | None,
        typer.Option("--engine", help="olympiad-2022 or fide-team-swiss (default: the file's record 192)"),
    ] = None,
    as_json: Annotated[bool, flag("--json", help="print JSON for machine reading")] = False,
) -> None:
    """Pair each played round of a TRF file with our engine from the rounds before it, and compare."""
    from orchestrator.domain.swiss.replay import replay_state
    from orchestrator.domain.swiss.systems import pairer_for
    from orchestrator.domain.trf.swiss_read import TrfNotReadable, read_team_trf

    if engine is not None and engine not in REPLAY_ENGINES:
        err.print(f"error: unknown engine {engine!r}: use {' or '.join(REPLAY_ENGINES)}", markup=False)
        raise typer.Exit(EXIT_BAD_INPUT)
    text = read_trf_text(trf_file)
    try:
        state, next_round = read_team_trf(text)
    except TrfNotReadable as exc:
        err.print(f"{escape(str(trf_file))}: refused ({len(exc.problems)} problem(s)):", highlight=False)
        for problem in exc.problems:
            err.print(f"  {problem}", markup=False, highlight=False)
        raise typer.Exit(EXIT_INVALID) from None
    system = engine or state.pairing
    state = replace(state, pairing=system)
    found = replay_state(pairer_for(system), state, next_round - 1)
    if as_json:
        typer.echo(json.dumps(replay_payload(trf_file, system, found), indent=2, ensure_ascii=False))
        return
    table = Table(title=f"{trf_file.name}: each round paired by {system} from the file's rounds before it")
    columns = ("Round", "Reproduced", "Total", "Published pair (MP, rank) not reproduced", "Ours", "Article")
    for column in columns:
        table.add_column(column, justify="right" if column in ("Round", "Reproduced", "Total") else "left")
    for rnd in found:
        table.add_row(str(rnd.round), str(rnd.reproduced), str(rnd.total), "", "", "")
        for d in rnd.differences:
            (a, amp, ar), (b, bmp, br) = d.first, d.second
            table.add_row(
                "",
                "",
                "",
                escape(f"{a} ({amp}, #{ar}) – {b} ({bmp}, #{br})"),
                escape(f"{a}–{d.ours[0] or 'none'}, {b}–{d.ours[1] or 'none'}"),
                escape(d.article),
            )
    out.print(table)
    done, total = sum(r.reproduced for r in found), sum(r.total for r in found)
    share = f" ({100 * done / total:.1f} %)" if total else ""
    out.print(f"Reproduced {done} / {total} pairs{share}", highlight=False)
