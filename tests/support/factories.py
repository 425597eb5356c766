"""Builders of stored events for tests, on any database (SQLite in a tmp path, or PostgreSQL).

Each builder takes an OPEN unit of work and works inside it (the caller's ``with`` block commits):

    with uow_factory() as uow:
        stage_id = running_stage(uow)              # the small event, its first stage running
    with uow_factory() as uow:
        event_id = make_event(uow, EVENT_2020)     # the 2020 Online Olympiad with its 163-team demo field

``small.yaml`` (tests/fixtures/events): 4 teams (Norway, Sweden, Denmark, Finland; seeds 1-4), stage
``group`` = one pool of 4 (3 rounds, 2 matches a round, 6 boards a match), stage ``final`` = the top 2
in a pool of 2 (1 round).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from orchestrator.adapters.repositories import ModelT
from orchestrator.adapters.tables import Board, Match, Player, Standing, Team
from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.services.setup import event_setup, pool_draft, stage_start

REPO_ROOT = Path(__file__).resolve().parents[2]
SMALL_EVENT_PATH = REPO_ROOT / "tests" / "fixtures" / "events" / "small.yaml"
EVENT_2020_PATH = REPO_ROOT / "events" / "online-olympiad-2020.yaml"
SMALL_EVENT = SMALL_EVENT_PATH.read_text(encoding="utf-8")


def without_lot_delay(text: str) -> str:
    """An event file whose lots are drawn as soon as committed: the real-event files in events/ keep each
    commitment public 10 minutes (docs/lots.md), which a test that publishes and starts a stage at once, or
    an Armageddon tick, cannot wait for."""
    return re.sub(r"^lot_publication_delay\s*:.*$", "lot_publication_delay: 0", text, flags=re.M)


EVENT_2020 = without_lot_delay(EVENT_2020_PATH.read_text(encoding="utf-8"))  # the 2020 file as a test field
TEST_PAIRING_SEED = bytes(range(32))  # fixed, so that a test's pairings are the same every run
ACTOR = "test"


def make_event(
    uow: UnitOfWork, text: str | None = None, *, slug: str | None = None, actor: str = ACTOR
) -> int:
    """Store an event (default: the small test event); ``slug`` replaces the file's to store it twice."""
    definition = SMALL_EVENT if text is None else text
    if slug is not None:
        lines = definition.splitlines(keepends=True)
        definition = "".join(f"slug: {slug}\n" if line.startswith("slug:") else line for line in lines)
    return event_setup.create_event(uow, definition_text=definition, source="event.yaml", actor=actor)


def stage_id_of(uow: UnitOfWork, event_id: int, key: str | None = None) -> int:
    """The id of stage ``key`` of an event (default: its first stage)."""
    ids = event_setup.stage_ids_by_key(uow, event_id=event_id)
    return ids[key] if key is not None else next(iter(ids.values()))


def drafted_stage(
    uow: UnitOfWork, *, event_id: int | None = None, stage_key: str | None = None, actor: str = ACTOR
) -> int:
    """A stage with draft pools (a new small event unless ``event_id`` is given)."""
    event_id = make_event(uow) if event_id is None else event_id
    stage_id = stage_id_of(uow, event_id, stage_key)
    pool_draft.draft_pools(uow, stage_id=stage_id, actor=actor)
    return stage_id


def published_stage(
    uow: UnitOfWork,
    *,
    event_id: int | None = None,
    stage_key: str | None = None,
    actor: str = ACTOR,
    pairing_seed: bytes | None = TEST_PAIRING_SEED,
) -> int:
    """A stage whose pools are drafted and published (each pool's pairing-number lot committed, sealed)."""
    stage_id = drafted_stage(uow, event_id=event_id, stage_key=stage_key, actor=actor)
    pool_draft.publish_pools(uow, stage_id=stage_id, actor=actor, pairing_seed=pairing_seed)
    return stage_id


def running_stage(
    uow: UnitOfWork,
    *,
    event_id: int | None = None,
    stage_key: str | None = None,
    actor: str = ACTOR,
    pairing_seed: bytes | None = TEST_PAIRING_SEED,
) -> int:
    """A started stage, as staff get there (publish, then start): rounds, matches and boards (default
    lineups, no results) exist, and each pool's pairing-number lot is drawn."""
    stage_id = published_stage(
        uow, event_id=event_id, stage_key=stage_key, actor=actor, pairing_seed=pairing_seed
    )
    stage_start.start_stage(uow, stage_id=stage_id, actor=actor).raise_refusal()
    return stage_id


def store_final_standings(
    uow: UnitOfWork, *, stage_id: int, orders: Mapping[str, Sequence[str]] | None = None
) -> None:
    """Write FINAL standing rows for a stage's pools (what closing a stage leaves behind).

    ``orders`` maps a pool letter to team names, best first; a pool not given keeps its pairing order.
    Only for tests that need the next stage's entrants; the standings service computes real ones.
    """
    pools = pool_draft.describe_pools(uow, stage_id=stage_id)
    for pool in pools.pools:
        by_name = {team.name: team.team_id for team in pool.teams}
        names = (
            list(orders[pool.letter]) if orders and pool.letter in orders else [t.name for t in pool.teams]
        )
        for rank, name in enumerate(names, start=1):
            uow.rounds.insert(
                Standing(
                    stage_id=stage_id, pool_id=pool.id, team_id=by_name[name], rank=rank, provisional=False
                )
            )


def stored_row(factory: UnitOfWorkFactory, model: type[ModelT], row_id: int) -> ModelT:
    """A row of ``model`` as it is stored now, detached from the unit of work that read it."""
    with factory() as uow:
        row = uow.boards.get_or_raise(model, row_id)
        uow.session.expunge(row)
        return row


def stored_board(factory: UnitOfWorkFactory, board_id: int) -> Board:
    """A board as it is stored now, detached from the unit of work that read it."""
    return stored_row(factory, Board, board_id)


def add_match(
    uow: UnitOfWork,
    *,
    round_id: int,
    pool_id: int | None,
    teams: tuple[Team, Team],
    lineups: tuple[Sequence[Player], Sequence[Player]],
    game_ids: Sequence[str | None] | None = None,
) -> tuple[Match, list[Board]]:
    """Match 1 of a round and its boards, board n with the n-th player of each lineup; the first team has
    White on odd boards. ``game_ids``: each board's game, if any."""
    match = uow.rounds.insert(
        Match(
            round_id=round_id,
            pool_id=pool_id,
            match_no=1,
            first_team_id=teams[0].id or 0,
            second_team_id=teams[1].id or 0,
        )
    )
    ids = game_ids or [None] * len(lineups[0])
    boards = []
    for n, (first, second) in enumerate(zip(*lineups, strict=True)):
        white, black = (first, second) if n % 2 == 0 else (second, first)
        boards.append(
            uow.boards.insert(
                Board(
                    match_id=match.id or 0,
                    board_no=n + 1,
                    white_player_id=white.id,
                    black_player_id=black.id,
                    game_id=ids[n],
                )
            )
        )
    return match, boards
