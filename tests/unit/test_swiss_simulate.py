"""Simulating Swiss stages: every round paired by FIDE's engine (gacrux) through the port, standings by
the Olympiad 2026 chain after each round, the TRF of the stage accepted by FIDE's own checker, and a Swiss
that takes pool qualifiers or feeds a knockout (docs/swiss.md)."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from random import Random

import pytest
from typer.testing import CliRunner

from orchestrator.cli import app
from orchestrator.domain.event import EventDefinition
from orchestrator.domain.simulation import match_count, simulate_event
from orchestrator.domain.swiss.simulate import play_swiss_stage, swiss_standings
from orchestrator.eventfile import parse_event
from tests.support.swiss_event_files import POOLS_FIRST, STAGE_HEAD, with_playoff

pytest.importorskip("gacrux")

from orchestrator.adapters.gacrux_pairing import GacruxPairer

EVENTS = Path(__file__).resolve().parents[2] / "events"
SMALL = EVENTS / "olympiad-2026-small.yaml"
# The small file as a C.04.6 stage: gacrux pairs C.04.6 only (the file names the Olympiad Pairing Rules).
SMALL_TEXT = SMALL.read_text().replace("pairing: olympiad-2022", "pairing: fide-team-swiss")
PAIRER = GacruxPairer()


def shortened(event: EventDefinition, rounds: int) -> EventDefinition:
    """The event with its Swiss stage cut to ``rounds`` rounds (fewer gacrux calls in a test)."""
    stages = tuple(
        replace(stage, round_count=rounds, schedule=stage.schedule[:rounds]) if stage.is_swiss else stage
        for stage in event.stages
    )
    return replace(event, stages=stages)


@pytest.fixture(scope="module")
def small() -> EventDefinition:
    return parse_event(SMALL_TEXT, source=SMALL.name)


def test_every_round_pairs_every_team_once_and_the_standings_add_up(small: EventDefinition) -> None:
    event = shortened(small, 5)
    stage = event.stages[0]
    names = [team.name for team in event.teams]
    played = play_swiss_stage(event, stage, names, pairer=PAIRER, rng=Random(4))
    assert len(played.rounds) == 5
    met: set[frozenset[str]] = set()
    for number, rnd in enumerate(played.rounds, 1):
        paired = [team for p in rnd.pairing.pairings for team in (p.first, p.second)]
        assert sorted(paired) == sorted(names) and rnd.pairing.bye is None
        pairs = {frozenset((p.first, p.second)) for p in rnd.pairing.pairings}
        assert not pairs & met, f"a rematch in round {number}"
        met |= pairs
        # 12 matches a round, each worth 2 MP and 4 GP between the two teams.
        assert sum(row.values["MP"] for row in rnd.standings.rows) == 2 * 12 * number
        assert sum(row.values["GP"] for row in rnd.standings.rows) == 4 * 12 * number
    assert played.standings.chain == ("MP", "OLY-TB1", "GP", "OLY-TB3")
    assert played.standings == swiss_standings(played.state, stage.tiebreaks)


def test_an_odd_field_gives_one_bye_a_round_worth_one_match_point_and_two_game_points(
    small: EventDefinition,
) -> None:
    event = shortened(small, 4)
    names = [team.name for team in event.teams][:23]
    played = play_swiss_stage(event, event.stages[0], names, pairer=PAIRER, rng=Random(5))
    byes = [rnd.pairing.bye for rnd in played.rounds]
    assert None not in byes and len(set(byes)) == 4
    first = byes[0]
    assert first is not None
    assert played.state.points(first, through=1) == (1, 4)  # 4 half-points: 2 game points


def test_a_simulation_is_reproducible_for_a_seed(small: EventDefinition) -> None:
    event = shortened(small, 3)
    first = simulate_event(event, seed=9, pairer=PAIRER)
    again = simulate_event(event, seed=9, pairer=PAIRER)
    assert first.swiss[0].state == again.swiss[0].state
    assert first.champions == first.swiss[0].winners


def test_without_a_pairing_engine_our_own_pairs_the_rounds_gacrux_pairs(small: EventDefinition) -> None:
    event = shortened(small, 4)
    ours = simulate_event(event, seed=1)
    theirs = simulate_event(event, seed=1, pairer=PAIRER)
    assert [r.pairing for r in ours.swiss[0].rounds] == [r.pairing for r in theirs.swiss[0].rounds]
    assert ours.swiss[0].state == theirs.swiss[0].state


def test_the_progress_count_includes_every_swiss_match(small: EventDefinition) -> None:
    assert match_count(small) == 11 * 12


def test_a_swiss_feeds_its_top_four_to_a_knockout() -> None:
    event = shortened(parse_event(with_playoff(SMALL_TEXT)), 4)
    result = simulate_event(event, seed=2, pairer=PAIRER)
    order = result.swiss[0].standings.order
    semis = {duel.key: (duel.record.first, duel.record.second) for duel in result.duels[:2]}
    assert semis == {"I": (order[0], order[3]), "II": (order[1], order[2])}
    final = result.duels[2]
    assert result.champions == final.outcome.winners and result.champions[0] in order[:4]


def test_a_swiss_takes_the_pool_qualifiers_as_well_as_its_seeded_teams() -> None:
    event = shortened(
        parse_event(SMALL_TEXT.replace(STAGE_HEAD.replace("olympiad-2022", "fide-team-swiss"), POOLS_FIRST)),
        3,
    )
    result = simulate_event(event, seed=3, pairer=PAIRER)
    qualified = set(result.stages[0].advancing)
    swiss_teams = {team.name for team in result.swiss[0].state.teams}
    assert len(qualified) == 4 and qualified <= swiss_teams and len(swiss_teams) == 20


def test_simulate_prints_the_swiss_standings_and_writes_a_trf_fides_checker_accepts(tmp_path: Path) -> None:
    copy = tmp_path / SMALL.name  # the small file as a C.04.6 stage (SMALL_TEXT)
    copy.write_text(SMALL_TEXT)
    result = CliRunner().invoke(app, ["simulate", str(copy), "--seed", "3", "--trf-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "standings after round 11 (top 20 of 24)" in result.output
    header = next(line for line in result.output.splitlines() if "TB1" in line)
    assert all(column in header for column in ("MP", "TB1", "GP", "TB3"))
    assert "Champion:" in result.output
    trf = tmp_path / "olympiad-2026-small-open.trf"
    assert "192 FIDE_TEAM_TYPEA_MP_GP" in trf.read_text(encoding="latin-1").splitlines()
    check = subprocess.run(
        [sys.executable, "-m", "gacrux.pairingchecker", "-m", "fideteam", "-c", "-i", str(trf), "-d", "T"],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert check.returncode == 0 and "Check: True" in check.stdout, check.stdout + check.stderr
