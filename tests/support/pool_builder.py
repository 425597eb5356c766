"""A small stored round-robin pool for the results tests, built row by row (no setup services needed).

``build_pool(uow)`` stores an event, a running pool stage with one pool of ``teams`` teams, their players,
every Berger round with its matches and boards (players seated by docs/rules.md §1 colours, no results yet).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from orchestrator.adapters.tables import (
    Board,
    Event,
    Match,
    Player,
    Pool,
    PoolEntry,
    PoolStatus,
    Round,
    Stage,
    StageStatus,
    Team,
)
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.domain.round_robin import berger_table

TEAM_NAMES = ("Norway", "Sweden", "Denmark", "Finland", "Iceland", "Estonia")


@dataclass
class BuiltPool:
    event_id: int
    event_slug: str
    stage_id: int
    pool_id: int
    teams: dict[str, int]
    players: dict[tuple[str, int], int]  # (team, board) -> player id
    matches: dict[tuple[int, str, str], int] = field(default_factory=dict)  # (round, first, second)
    boards: dict[int, list[int]] = field(default_factory=dict)  # match id -> board ids by board_no
    later_stage_id: int | None = None

    def match(self, round_no: int, team: str) -> int:
        for (rnd, a, b), match_id in self.matches.items():
            if rnd == round_no and team in (a, b):
                return match_id
        raise KeyError((round_no, team))

    def pairing(self, match_id: int) -> tuple[int, str, str]:
        return next(key for key, value in self.matches.items() if value == match_id)


def build_pool(
    uow: UnitOfWork,
    *,
    teams: int = 4,
    boards: int = 4,
    chain: Sequence[str] = ("MP", "GP", "DE:MP", "DE:GP", "EMMSB", "EGGSB", "LOT"),
    slug: str = "cup",
    later_stage: bool = False,
) -> BuiltPool:
    event = uow.events.insert(Event(slug=slug, name="Cup", status="running"))
    event_id = event.id or 0
    stage = uow.events.insert(
        Stage(
            event_id=event_id,
            key="group",
            name="Group stage",
            kind="pools",
            position=1,
            status=StageStatus.RUNNING.value,
            tiebreaks=list(chain),
        )
    )
    pool = uow.rounds.insert(Pool(stage_id=stage.id or 0, letter="A", status=PoolStatus.PUBLISHED.value))
    built = BuiltPool(event_id, slug, stage.id or 0, pool.id or 0, {}, {})
    for number, name in enumerate(TEAM_NAMES[:teams], start=1):
        team = uow.teams.insert(Team(event_id=event_id, name=name, federation=name[:3].upper(), seed=number))
        built.teams[name] = team.id or 0
        uow.rounds.insert(PoolEntry(pool_id=pool.id or 0, team_id=team.id or 0, pairing_number=number))
        for board in range(1, boards + 1):
            player = uow.teams.insert(
                Player(
                    event_id=event_id,
                    team_id=team.id or 0,
                    name=f"{name} {board}",
                    account=f"{name.lower()}{board}",
                    sex="m",
                    birth_year=1990,
                    rating=2000 - board,
                    main_board=board,
                    category="open",
                )
            )
            built.players[(name, board)] = player.id or 0
    names = TEAM_NAMES[:teams]
    for rr_round in berger_table(teams):
        rnd = uow.rounds.insert(Round(stage_id=stage.id or 0, number=rr_round.number, status="playing"))
        for pairing in rr_round.pairings:
            first, second = names[pairing.first - 1], names[pairing.second - 1]
            match = uow.rounds.insert(
                Match(
                    round_id=rnd.id or 0,
                    pool_id=pool.id,
                    match_no=pairing.table,
                    first_team_id=built.teams[first],
                    second_team_id=built.teams[second],
                    status="playing",
                )
            )
            match_id = match.id or 0
            built.matches[(rr_round.number, first, second)] = match_id
            built.boards[match_id] = []
            for board_no in range(1, boards + 1):
                white, black = (first, second) if board_no % 2 == 1 else (second, first)
                board = uow.boards.insert(
                    Board(
                        match_id=match_id,
                        board_no=board_no,
                        white_player_id=built.players[(white, board_no)],
                        black_player_id=built.players[(black, board_no)],
                    )
                )
                built.boards[match_id].append(board.id or 0)
    if later_stage:
        later = uow.events.insert(
            Stage(event_id=event_id, key="final", name="Final stage", kind="pools", position=2)
        )
        built.later_stage_id = later.id
    return built
