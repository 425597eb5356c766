"""Simulating an event with sections (docs/sections.md): each section plays among its own teams, ends
with its champion, the combined classification sums the places, the board prizes count the games played,
and ``olympiad simulate`` prints all of it; an event without sections prints as it always did."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from orchestrator.cli import app
from orchestrator.domain.event import EventDefinition
from orchestrator.domain.simulation import SimulationResult, simulate_event
from orchestrator.eventfile import parse_event

ROOT = Path(__file__).resolve().parents[2]
SECTIONS_FILE = ROOT / "tests" / "fixtures" / "events" / "olympiad-2026-sections.yaml"
GOLDEN_2020 = ROOT / "tests" / "fixtures" / "simulate" / "online-olympiad-2020-seed-2020.txt"
SEED = 5
runner = CliRunner()


@pytest.fixture(scope="module")
def event() -> EventDefinition:
    return parse_event(SECTIONS_FILE.read_text())


@pytest.fixture(scope="module")
def result(event: EventDefinition) -> SimulationResult:
    return simulate_event(event, seed=SEED)


def test_each_section_plays_among_its_own_teams(event: EventDefinition, result: SimulationResult) -> None:
    assert [s.key for s in result.sections] == ["open", "women"]
    for played in result.swiss:
        section = event.stage(played.key).section
        own = {team.name for team in event.teams_of(section)}
        assert {row.team for row in played.standings.rows} == own
        assert len(played.rounds) == event.stage(played.key).rounds
    for outcome, played in zip(result.sections, result.swiss, strict=True):
        assert outcome.champions == played.winners  # the section's Swiss decides it


def test_the_combined_classification_sums_each_federations_places(
    event: EventDefinition, result: SimulationResult
) -> None:
    place_of: dict[tuple[str, str], int] = {}
    for played in result.swiss:
        section = event.stage(played.key).section
        for row in played.standings.rows:
            place_of[section, event.team(row.team).federation] = row.rank
    federations = {federation for _, federation in place_of}
    assert {row.federation for row in result.combined} == federations
    for row in result.combined:
        places = [place_of.get((section, row.federation)) for section in ("open", "women")]
        assert row.complete == (None not in places)
        assert row.place_sum == sum(place for place in places if place is not None)
    # Federations with a team in both sections come first, the smaller sum of places first.
    complete = [row for row in result.combined if row.complete]
    assert result.combined[: len(complete)] == tuple(complete)
    assert [row.place_sum for row in complete] == sorted(row.place_sum for row in complete)


def test_board_prizes_count_every_game_played_at_the_board(
    event: EventDefinition, result: SimulationResult
) -> None:
    for outcome in result.sections:
        teams = event.teams_of(outcome.key)
        rounds = event.stages_of(outcome.key)[0].rounds
        # Each team lists four main players (boards 1-4) and one reserve, listed at number 5.
        assert [table.board for table in outcome.board_tables] == [1, 2, 3, 4, 5]
        listed = {
            (team.name, entry.player.account): entry.main_board or 5
            for team in teams
            for entry in team.roster
        }
        # The games of each player, counted from the lineups the rounds fielded.
        played: dict[tuple[str, str], int] = {}
        for stage in result.swiss:
            if event.stage(stage.key).section != outcome.key:
                continue
            for rnd in stage.rounds:
                for pairing, lineups in zip(rnd.pairing.pairings, rnd.lineups, strict=True):
                    for team, lineup in zip((pairing.first, pairing.second), lineups, strict=True):
                        for player in lineup:
                            played[team, player.account] = played.get((team, player.account), 0) + 1
        # An even field: no bye, so every team fields four players in every round.
        assert len(teams) % 2 == 0
        for team in teams:
            assert sum(n for (name, _), n in played.items() if name == team.name) == 4 * rounds
        rows = [row for table in outcome.board_tables for row in table.rows]
        assert {(row.player.team, row.player.key) for row in rows} == set(played)
        for table in outcome.board_tables:
            for row in table.rows:
                key = (row.player.team, row.player.key)
                assert row.player.board == table.board == listed[key]
                assert row.performance is not None and row.performance.games == played[key]
                assert row.eligible == (played[key] >= 8)  # the event's minimum: 8 games
            eligible = [row for row in table.rows if row.eligible]
            if len(eligible) >= 3:
                # Places 1-3 take gold, silver and bronze; players level on TPR and games share a place
                # and wait for a lot (the simulation draws none for board prizes): no medal yet.
                level = Counter((row.performance.rating, row.performance.games) for row in eligible)
                expected = [
                    None if level[row.performance.rating, row.performance.games] > 1 else medal
                    for row, medal in zip(eligible[:3], ("gold", "silver", "bronze"), strict=True)
                ]
                assert [row.medal for row in eligible[:3]] == expected


def test_a_team_fields_its_reserve_in_the_board_order_of_its_list(
    event: EventDefinition, result: SimulationResult
) -> None:
    """The reserve replaces one main player; the others keep their order and the reserve plays last."""
    fielded_reserve = 0
    for stage in result.swiss:
        for rnd in stage.rounds:
            for pairing, lineups in zip(rnd.pairing.pairings, rnd.lineups, strict=True):
                for name, lineup in zip((pairing.first, pairing.second), lineups, strict=True):
                    team = event.team(name)
                    mains = list(team.main_players)
                    if tuple(lineup) == tuple(mains):
                        continue
                    fielded_reserve += 1
                    assert len(lineup) == 4 and lineup[-1] not in mains
                    assert [p for p in mains if p in lineup] == list(lineup[:3])  # the mains' order kept
    # Half the lineups, about: 2 teams a match, every match of the two sections.
    lineups = sum(2 * len(rnd.pairing.pairings) for stage in result.swiss for rnd in stage.rounds)
    assert 0.3 * lineups < fielded_reserve < 0.7 * lineups


def test_the_board_prize_minimum_comes_from_the_event(event: EventDefinition) -> None:
    rounds = event.stages[0].rounds
    strict = simulate_event(replace(event, board_prize_min_games=rounds + 1), seed=SEED)
    for outcome in strict.sections:
        for table in outcome.board_tables:
            assert not any(row.eligible for row in table.rows)
            for row in table.rows:
                assert row.performance is not None
                assert row.games_needed == rounds + 1 - row.performance.games


def test_simulate_prints_both_sections_the_combined_classification_and_the_board_prizes(
    event: EventDefinition, result: SimulationResult, tmp_path: Path
) -> None:
    trf_dir = tmp_path / "trf"
    run = runner.invoke(app, ["simulate", str(SECTIONS_FILE), "--seed", str(SEED), "--trf-dir", str(trf_dir)])
    assert run.exit_code == 0, run.output
    text = run.output
    open_at, women_at = text.index("Open section"), text.index("Women section")
    combined_at, prizes_at = text.index("Combined classification"), text.index("Board prizes: Open")
    assert open_at < women_at < combined_at < prizes_at < text.index("Board prizes: Women")
    for played in result.swiss:
        section = event.stage(played.key).section
        block = text[open_at:women_at] if section == "open" else text[women_at:combined_at]
        leader = played.standings.rows[0]
        assert f"│  1 │ {leader.team}" in block or f"│ 1 │ {leader.team}" in block
        last = played.standings.rows[-1]
        assert f"top {len(played.standings.rows)} of {len(played.standings.rows)}" in block
        assert last.team in block  # fewer teams than the 20 lines: all of them
    first = result.combined[0]
    assert f"│ {first.federation}" in text[combined_at:prizes_at]
    for outcome in result.sections:
        gold = outcome.board_tables[0].rows[0]
        assert gold.player.name in text[prizes_at:]
    champions = "; ".join(f"{s.name} champion: {' and '.join(s.champions)}" for s in result.sections)
    assert champions in text
    # One TRF per Swiss stage of each section, each with the teams of its section (record 310).
    for played in result.swiss:
        trf = (trf_dir / f"{event.slug}-{played.key}.trf").read_text(encoding="latin-1")
        teams = [line for line in trf.splitlines() if line.startswith("310")]
        assert len(teams) == len(event.teams_of(event.stage(played.key).section))


def test_quiet_prints_one_champion_per_section(result: SimulationResult) -> None:
    run = runner.invoke(app, ["simulate", str(SECTIONS_FILE), "--seed", str(SEED), "--quiet"])
    assert run.exit_code == 0
    expected = "; ".join(f"{s.name} champion: {' and '.join(s.champions)}" for s in result.sections)
    assert run.output.strip() == expected


def test_the_2020_event_simulates_byte_for_byte_as_before_sections() -> None:
    # The golden output was written by `olympiad simulate events/online-olympiad-2020.yaml --seed 2020`
    # before sections existed; an event without sections must print exactly the same.
    run = runner.invoke(
        app, ["simulate", str(ROOT / "events" / "online-olympiad-2020.yaml"), "--seed", "2020"]
    )
    assert run.exit_code == 0
    assert run.stdout == GOLDEN_2020.read_text()
