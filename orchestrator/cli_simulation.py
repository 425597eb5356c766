"""What ``olympiad simulate`` prints and writes: every stage, section by section in an event with sections,
then the combined classification and the board prizes (docs/sections.md), and a TRF per Swiss stage.

Split from cli.py (which imports this module in its ``simulate`` command); it loads only rich at import.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

if TYPE_CHECKING:
    from orchestrator.domain.board_prizes import BoardTable
    from orchestrator.domain.combined import CombinedRow
    from orchestrator.domain.event import EventDefinition
    from orchestrator.domain.simulation import SimulatedStage, SimulationResult
    from orchestrator.domain.swiss.simulate import SimulatedSwiss

TOP = 20  # lines of a Swiss stage's standings and of the combined classification
PRIZE_LINES = 3  # lines of a board's prize table (the medals)


def show(value: Fraction | int) -> str:
    """One decimal as FIDE prints them (28.5); quarter points keep two (899.25)."""
    value = Fraction(value)
    if value.denominator == 1:
        return str(value.numerator)
    if value.denominator == 2:
        return f"{float(value):.1f}"
    return f"{float(value):.2f}"


def write_swiss_trfs(folder: Path, event: EventDefinition, stages: Sequence[SimulatedSwiss]) -> list[Path]:
    """One TRF-2026 file per Swiss stage (record 192 names the pairing system), e.g. for FIDE's checker;
    stage keys are unique in the event, so each section's Swiss stages get their own files."""
    from orchestrator.domain.trf.swiss import export_trf

    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for stage in stages:
        path = folder / f"{event.slug}-{stage.key}.trf"
        path.write_text(export_trf(stage.state), encoding="latin-1", errors="replace")
        written.append(path)
    return written


def champion_line(event: EventDefinition, result: SimulationResult) -> str:
    """``Champion: X``, or with sections one champion per section: ``Open champion: X; Women champion: Y``."""
    if not event.sections:
        return f"Champion: {' and '.join(result.champions) or 'none'}"
    return "; ".join(
        f"{section.name} champion: {' and '.join(section.champions) or 'none'}" for section in result.sections
    )


def print_swiss(out: Console, stage: SimulatedSwiss, top: int = TOP) -> None:
    """The top of a Swiss stage's final standings with every tie-break column."""
    from orchestrator.domain.tiebreaks import tiebreak

    standings = stage.standings
    chain = [code for code in standings.chain if code != "LOT"]
    grid = Table(
        title=f"{stage.name}: standings after round {len(stage.rounds)} (top {min(top, len(standings.rows))} "
        f"of {len(standings.rows)})",
        title_justify="left",
    )
    grid.add_column("#", justify="right")
    grid.add_column("Team")
    for code in chain:
        grid.add_column(tiebreak(code).short, justify="right")
    for row in standings.rows[:top]:
        grid.add_row(str(row.rank), row.team, *(show(row.values[c]) for c in chain))
    out.print(grid)


def print_simulation(out: Console, event: EventDefinition, result: SimulationResult) -> None:
    out.print(f"[bold]{event.name}[/] — simulation with seed {result.seed}")
    swiss = {played.key: played for played in result.swiss}
    pools = {played.key: played for played in result.stages}
    # Stages in the order of the event file, so a Swiss of pool qualifiers follows its pools.
    for section in event.section_list():
        if event.sections:
            out.rule(f"{section.name} section")
        for stage in event.stages_of(section.key):
            if not event.sections and (stage.key in swiss or stage.key in pools):
                out.rule(stage.name)
            if stage.key in swiss:
                print_swiss(out, swiss[stage.key])
            elif stage.key in pools:
                _print_pool_stage(out, pools[stage.key])
    _print_playoff(out, result)
    if result.combined:
        out.rule("Combined classification")
        _print_combined(out, event, result.combined)
    for outcome in result.sections:
        if outcome.board_tables:
            title = f"Board prizes: {outcome.name}" if event.sections else "Board prizes"
            out.rule(title)
            _print_board_prizes(out, outcome.board_tables, event.board_prize_min_games)
    out.rule()
    out.print(f"[bold green]{champion_line(event, result)}[/]")


def _print_pool_stage(out: Console, stage: SimulatedStage) -> None:
    for pool in stage.pools:
        chain = [code for code in pool.standings.chain if code != "LOT"]
        grid = Table(
            title=f"{stage.name} pool {pool.letter} (average rating {pool.average:.0f})",
            title_justify="left",
        )
        grid.add_column("#", justify="right")
        grid.add_column("Team")
        for code in chain:
            grid.add_column(code, justify="right")
        grid.add_column("separated by", style="dim")
        for row in pool.standings.rows:
            grid.add_row(
                str(row.rank), row.team, *(show(row.values[c]) for c in chain), row.separated_by or ""
            )
        out.print(grid)
    out.print(f"Qualified from {stage.name}: {', '.join(stage.advancing)}", highlight=False)
    for lot in stage.lots:
        if "tie-break" in lot.purpose:
            out.print(
                f"Lot ({lot.purpose}): {' > '.join(lot.outcome)}; seed {lot.seed_hex[:16]}…",
                highlight=False,
            )


def _print_playoff(out: Console, result: SimulationResult) -> None:
    if not result.duels:
        return
    out.rule("Play-off")
    for duel in result.duels:
        out.print(f"[bold]{duel.key}[/] {duel.round_name}: {duel.outcome.sentence}", highlight=False)
        state = duel.armageddon
        if state is not None and state.category is not None:
            nominees = ", ".join(
                f"{n.team}: {n.player.name if n.player else 'nobody'}"
                + (" (default)" if n.by_default else "")
                for n in state.sealed
                if n is not None
            )
            out.print(
                f"    Armageddon: category {state.category.value} (lot), nominated {nominees}; "
                f"{state.chooser} chose the colour; {state.white} had White",
                highlight=False,
            )


def _print_combined(
    out: Console, event: EventDefinition, rows: Sequence[CombinedRow], top: int = TOP
) -> None:
    """The top of the combined classification: each section's place, the sum, TB1-TB4 (docs/sections.md)."""
    grid = Table(
        title=f"Combined classification (top {min(top, len(rows))} of {len(rows)} federations)",
        title_justify="left",
    )
    grid.add_column("#", justify="right")
    grid.add_column("Federation")
    for section in event.sections:
        grid.add_column(section.name, justify="right")
    grid.add_column("Sum", justify="right")
    for number in range(1, 5):
        grid.add_column(f"TB{number}", justify="right")
    for row in rows[:top]:
        places = [str(team.place) if team is not None else "–" for team in row.teams]
        mark = "" if row.complete else " (incomplete)"
        grid.add_row(
            str(row.place), row.federation + mark, *places, str(row.place_sum), *(show(k) for k in row.keys)
        )
    out.print(grid)


def _print_board_prizes(out: Console, tables: Sequence[BoardTable], min_games: int) -> None:
    """The medal places of every board: player, team, TPR, games (``min_games`` at least to be eligible)."""
    for table in tables:
        eligible = [row for row in table.rows if row.eligible]
        grid = Table(
            title=f"Board {table.board} (TPR; at least {min_games} games; {len(eligible)} eligible)",
            title_justify="left",
        )
        for name, justify in (("#", "right"), ("Player", "left"), ("Team", "left"), ("TPR", "right")):
            grid.add_column(name, justify=justify)  # type: ignore[arg-type]
        grid.add_column("Games", justify="right")
        grid.add_column("Medal")
        for row in eligible[:PRIZE_LINES]:
            perf = row.performance
            assert perf is not None  # an eligible player has played
            medal = row.medal or ("lot to draw" if any(row.player.key in tie for tie in table.ties) else "")
            grid.add_row(
                str(row.place), row.player.name, row.player.team, str(perf.rating), str(perf.games), medal
            )
        out.print(grid)
