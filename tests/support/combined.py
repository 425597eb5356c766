"""Small two-section events for the combined classification's tests, cut out of
``tests/fixtures/events/olympiad-2026-sections.yaml`` (Open and Women, each a Swiss stage, the Olympiad 2026
tie-breaks): the teams of the federations asked for, seeds renumbered, fewer rounds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import yaml

from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.domain.scoring import GameResult, board_colours
from orchestrator.services.results import results
from orchestrator.services.setup import event_setup, stage_start
from tests.support.factories import REPO_ROOT, make_event
from tests.support.swiss import ACTOR

SECTIONS_FILE = REPO_ROOT / "tests" / "fixtures" / "events" / "olympiad-2026-sections.yaml"


def sections_event(
    open_feds: Sequence[str], women_feds: Sequence[str], *, rounds: int, slug: str = "combined-cup"
) -> str:
    """The event file with the Open teams of ``open_feds`` and the Women teams of ``women_feds`` (in that
    order: seeds 1.. then the Women), each section's Swiss stage ``rounds`` rounds long."""
    source: dict[str, Any] = yaml.safe_load(SECTIONS_FILE.read_text(encoding="utf-8"))
    by_key = {(team["section"], team["federation"]): team for team in source["teams"]}
    chosen = [by_key[("open", fed)] for fed in open_feds] + [by_key[("women", fed)] for fed in women_feds]
    for seed, team in enumerate(chosen, start=1):
        team["seed"] = seed
    first_women = len(open_feds) + 1
    ranges = {"open": f"1-{len(open_feds)}", "women": f"{first_women}-{len(chosen)}"}
    for stage in source["stages"]:
        stage["rounds"] = rounds
        stage["entrants"] = [{"seeds": ranges[stage["section"]]}]
        stage["schedule"]["rounds"] = stage["schedule"]["rounds"][:rounds]
    source.update(slug=slug, teams=chosen)
    return yaml.safe_dump(source, sort_keys=False, allow_unicode=True)


def start_sections(uow: UnitOfWork, text: str) -> dict[str, int]:
    """Store the event and start both Swiss stages (White first, as ``running_swiss``); their ids by key."""
    event_id = make_event(uow, text)
    ids = event_setup.stage_ids_by_key(uow, event_id=event_id)
    for stage_id in ids.values():
        stage_start.start_stage(uow, stage_id=stage_id, actor=ACTOR, initial_colour="W")
    return ids


def enter_scores(factory: UnitOfWorkFactory, round_id: int, wins: Mapping[str, Sequence[int]]) -> None:
    """Enter a published round's boards so that the team named in ``wins`` scores, board by board, the
    half-points given (2 a win, 1 a draw, 0 a loss) against its opponent, whichever colours it has."""
    with factory() as uow:
        matches = list(uow.rounds.matches_of_round(round_id))
        teams = uow.teams.teams_by_id(t for m in matches for t in (m.first_team_id, m.second_team_id))
        boards = uow.boards.boards_by_match(m.id for m in matches)
        todo: list[tuple[int, int, GameResult]] = []
        for match in matches:
            first, second = teams[match.first_team_id].name, teams[match.second_team_id].name
            mine = list(wins[first]) if first in wins else [2 - h for h in wins[second]]
            colours = board_colours(len(mine))
            for board in boards[match.id or 0]:
                half = mine[board.board_no - 1]  # the first team's half-points on this board
                white_half = half if colours[board.board_no - 1] == "W" else 2 - half
                result = {2: GameResult.WHITE_WINS, 1: GameResult.DRAW, 0: GameResult.BLACK_WINS}[white_half]
                todo.append((board.id or 0, board.version, result))
    for board_id, version, result in todo:
        with factory() as uow:
            results.record_result(
                uow, board_id=board_id, result=result.value, expected_version=version, actor=ACTOR
            )
