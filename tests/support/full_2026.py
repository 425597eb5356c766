"""The full Olympiad 2026 (events/olympiad-2026.yaml: 350 teams, Open and Women Swiss sections) stored in
a database in process, for the browser tests and bench/page_bytes.py: both sections started, some rounds
paired, published and played (every board's result written on its row, a fixed pattern, then the pool's
standings stored), and the next round paired and published, not yet played. No game server is involved.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sqlmodel import col, select

from orchestrator.adapters.tables import Board, Match, Round, RoundStatus
from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.domain.scoring import GameResult
from orchestrator.services.results.standings import recompute_pool
from orchestrator.services.setup import event_setup, stage_start
from orchestrator.services.swiss import rounds as swiss_rounds

EVENT_FILE = Path(__file__).resolve().parents[2] / "events" / "olympiad-2026.yaml"
ACTOR = "full-2026"
_CYCLE = (
    GameResult.WHITE_WINS,
    GameResult.DRAW,
    GameResult.BLACK_WINS,
    GameResult.DRAW,
    GameResult.WHITE_WINS,
)


@dataclass(frozen=True)
class Full2026:
    slug: str
    stage_ids: dict[str, int]  # by section key: open, women
    pool_ids: dict[str, int]
    played: int  # rounds played in each section
    open_round_id: int  # the round paired and published, not played (0: none)
    women_round_id: int


def _play(uow: UnitOfWork, round_id: int, number: int) -> None:
    match_ids = [m.id for m in uow.session.exec(select(Match).where(Match.round_id == round_id)).all()]
    for board in uow.session.exec(select(Board).where(col(Board.match_id).in_(match_ids))).all():
        board.result = _CYCLE[(board.match_id * 3 + board.board_no + number) % len(_CYCLE)].value
        uow.session.add(board)
    rnd = uow.session.get(Round, round_id)
    assert rnd is not None
    rnd.status = RoundStatus.FINISHED.value
    uow.session.add(rnd)
    uow.flush()


def store_full_2026(factory: UnitOfWorkFactory, *, played: int = 2, paired_next: bool = True) -> Full2026:
    """The full 2026 event in ``factory``'s database (module docstring); ``played`` rounds per section."""
    text = EVENT_FILE.read_text(encoding="utf-8")
    with factory() as uow:
        event_id = event_setup.create_event(uow, definition_text=text, source="test", actor=ACTOR)
        stage_ids = event_setup.stage_ids_by_key(uow, event_id=event_id)
        for stage_id in stage_ids.values():
            stage_start.start_stage(uow, stage_id=stage_id, actor=ACTOR, initial_colour="W")
        slug = uow.events.event_and_stage(next(iter(stage_ids.values())))[0].slug
        pool_ids = {key: uow.rounds.pools_in_letter_order(sid)[0].id or 0 for key, sid in stage_ids.items()}
    next_round: dict[str, int] = {}
    for key, stage_id in stage_ids.items():
        for number in range(1, played + 1):
            with factory() as uow:
                draft = swiss_rounds.pair_next_round(uow, stage_id=stage_id, actor=ACTOR)
                swiss_rounds.publish_round_pairing(uow, round_id=draft.round_id, actor=ACTOR)
                _play(uow, draft.round_id, number)
                recompute_pool(uow, pool_id=pool_ids[key], actor=ACTOR)
        if paired_next:
            with factory() as uow:
                draft = swiss_rounds.pair_next_round(uow, stage_id=stage_id, actor=ACTOR)
                swiss_rounds.publish_round_pairing(uow, round_id=draft.round_id, actor=ACTOR)
                next_round[key] = draft.round_id
    opened, women = next_round.get("open", 0), next_round.get("women", 0)
    return Full2026(slug, dict(stage_ids), pool_ids, played, opened, women)
