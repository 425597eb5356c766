"""Who a simulated team fields (domain/swiss/simulate.py, ``fielded_lineup``; docs/swiss.md, "Reserves in
the simulation"): the main players, or a reserve in place of one of them, the team list's board order
kept (docs/rules.md §10)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from random import Random

from orchestrator.domain.swiss.simulate import RESERVE_CHANCE, fielded_lineup
from orchestrator.eventfile import parse_event

ROOT = Path(__file__).resolve().parents[2]
SMALL = parse_event((ROOT / "events" / "olympiad-2026-small.yaml").read_text())
EVENT_2020 = parse_event((ROOT / "events" / "online-olympiad-2020.yaml").read_text())


class Scripted(Random):
    """A generator whose draws the test sets: ``random()`` returns ``draw``, ``randrange`` ``resting``,
    ``choice`` the first item."""

    def __init__(self, draw: float, resting: int = 0) -> None:
        super().__init__(0)
        self.draw, self.resting = draw, resting

    def random(self) -> float:
        return self.draw

    def randrange(self, *_args: object, **_kwargs: object) -> int:
        return self.resting

    def choice(self, seq):
        return seq[0]


def test_the_reserve_replaces_the_resting_player_and_the_others_move_up() -> None:
    team = SMALL.teams[0]
    categories = SMALL.team_format.board_categories
    mains = list(team.main_players)
    reserve = next(e.player for e in team.roster if e.main_board is None)
    lineup = fielded_lineup(team, categories, Scripted(0.0, resting=1))  # board 2 rests
    assert list(lineup) == [mains[0], mains[2], mains[3], reserve]


def test_above_the_chance_the_main_players_play() -> None:
    team = SMALL.teams[0]
    lineup = fielded_lineup(team, SMALL.team_format.board_categories, Scripted(RESERVE_CHANCE))
    assert lineup == team.main_players


def test_a_lineup_that_would_move_a_player_to_a_board_of_another_category_is_not_fielded() -> None:
    # 2020 boards: open, open, women, women, junior, girl. Board 1 resting would move a women's player to
    # board 2 (open) and put the first reserve (open) on board 6 (girl): the main players play.
    team = EVENT_2020.teams[0]
    categories = EVENT_2020.team_format.board_categories
    assert fielded_lineup(team, categories, Scripted(0.0, resting=0)) == team.main_players


def test_a_team_without_a_reserve_plays_its_main_players() -> None:
    team = SMALL.teams[0]
    mains_only = replace(team, roster=tuple(e for e in team.roster if e.main_board is not None))
    assert fielded_lineup(mains_only, SMALL.team_format.board_categories, Scripted(0.0)) == team.main_players
