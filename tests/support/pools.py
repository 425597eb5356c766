"""The small test pool seeded for the read-model and page tests, and its matches played through the results
service.

    seeded = seed_small_pool(uow_factory)           # 4 teams, one pool, 3 rounds, no results yet
    play(uow_factory, seeded.match_of(1, "Norway"), FIRST_WINS_6_0)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from orchestrator.adapters.tables import Event
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.services.results import results
from tests.support.factories import TEST_PAIRING_SEED, make_event, running_stage


@dataclass(frozen=True)
class SeededPool:
    slug: str
    stage_key: str
    stage_id: int
    pool_id: int
    letter: str
    teams: dict[str, int]  # name -> id
    matches: dict[tuple[int, str, str], int]  # (round, first, second) -> match id

    @property
    def pool_path(self) -> str:
        """The pool's spectator page."""
        return f"/events/{self.slug}/stages/{self.stage_key}/pools/{self.letter}"

    def match_of(self, round_no: int, team: str) -> int:
        return next(m for (r, a, b), m in self.matches.items() if r == round_no and team in (a, b))

    def pairing(self, match_id: int) -> tuple[int, str, str]:
        return next(key for key, value in self.matches.items() if value == match_id)


def seed_small_pool(
    uow_factory: UnitOfWorkFactory, *, slug: str | None = None, pairing_seed: bytes = TEST_PAIRING_SEED
) -> SeededPool:
    """The small test event (4 teams, one pool, 3 rounds) with its first stage running, no results."""
    with uow_factory() as uow:
        event_id = make_event(uow, slug=slug)
        stage_id = running_stage(uow, event_id=event_id, pairing_seed=pairing_seed)
    with uow_factory() as uow:
        event = uow.events.get_or_raise(Event, event_id)
        pool = uow.read.pools_of_stages([stage_id])[0]
        teams = {t.name: t.id or 0 for t in uow.teams.teams_of_event(event_id)}
        names = {v: k for k, v in teams.items()}
        rounds = {r.id: r.number for r in uow.read.rounds_of_stages([stage_id])}
        matches = {
            (rounds[m.round_id], names[m.first_team_id], names[m.second_team_id]): m.id or 0
            for m in uow.read.matches_of_pools([pool.id or 0])
        }
        stage_key = uow.read.stages_of_events([event_id])[0].key
        return SeededPool(event.slug, stage_key, stage_id, pool.id or 0, pool.letter, teams, matches)


def play(
    uow_factory: UnitOfWorkFactory, match_id: int, codes: Sequence[str], *, actor: str = "arbiter"
) -> None:
    """Enter each board's result (White's side, board order) through the results service."""
    with uow_factory() as uow:
        boards = [(b.id or 0, b.version) for b in uow.read.boards_of_matches([match_id])]
    for (board_id, version), code in zip(boards, codes, strict=True):
        with uow_factory() as uow:
            results.record_result(uow, board_id=board_id, result=code, expected_version=version, actor=actor)


# Board results from White's side; the first-named team has White on the odd boards.
DRAW_3_3 = ("½-½",) * 6
FIRST_WINS_6_0 = ("1-0", "0-1", "1-0", "0-1", "1-0", "0-1")
