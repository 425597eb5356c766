"""Time what the server adds to pairing a Swiss round: reading the stage from the database
(``swiss_state_of``), storing the draft and publishing it, beside the engine's own pairing of the same
state (the yardstick).

Run: .venv/bin/python bench/swiss_server_pairing.py [--rounds 4]
The 24-team Olympiad 2026 file (events/olympiad-2026-small.yaml) on a temporary SQLite database: the
rounds before the timed one are paired, published and played through the services (every board's result
entered directly on the rows, a fixed pattern); then the next round is timed: ``swiss_state_of``, the
engine alone on that state (``GacruxPairer.pair_round``), ``pair_next_round`` (state, engine, draft) and
``publish_round_pairing`` (matches, boards, bye). CPU seconds are printed: compare the ratios.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from sqlmodel import select

from orchestrator.adapters.gacrux_pairing import GacruxPairer
from orchestrator.adapters.tables import Board, Match, Round, RoundStatus
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.config import Settings
from orchestrator.db import init_db, make_engine, make_session_factory
from orchestrator.domain.scoring import GameResult
from orchestrator.services.results.standings import recompute_pool
from orchestrator.services.setup import event_setup, stage_start
from orchestrator.services.swiss import rounds
from orchestrator.services.swiss.state import swiss_state_of

ROOT = Path(__file__).resolve().parents[1]
W, D, B = GameResult.WHITE_WINS, GameResult.DRAW, GameResult.BLACK_WINS
CYCLE = (W, D, B, D, W)


def cpu() -> float:
    return time.process_time()


def play(uow: UnitOfWork, round_id: int, number: int) -> None:
    """Every board of the round gets a result (rows written directly: the bench times pairing)."""
    match_ids = [m.id for m in uow.session.exec(select(Match).where(Match.round_id == round_id)).all()]
    for board in uow.session.exec(select(Board).where(Board.match_id.in_(match_ids))).all():  # type: ignore[union-attr]
        board.result = CYCLE[(board.match_id * 3 + board.board_no + number) % len(CYCLE)].value
        uow.session.add(board)
    rnd = uow.session.get(Round, round_id)
    assert rnd is not None
    rnd.status = RoundStatus.FINISHED.value
    uow.session.add(rnd)
    uow.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4, help="rounds played before the timed one")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        engine = make_engine(Settings(data_dir=Path(tmp)).sqlalchemy_url)
        init_db(engine=engine)
        factory = make_session_factory(engine)
        text = (ROOT / "events" / "olympiad-2026-small.yaml").read_text(encoding="utf-8")
        with UnitOfWork(factory) as uow:
            event_id = event_setup.create_event(uow, definition_text=text, source="bench", actor="bench")
            stage_id = event_setup.stage_ids_by_key(uow, event_id=event_id)["open"]
            stage_start.start_stage(uow, stage_id=stage_id, actor="bench", initial_colour="W")
        for number in range(1, args.rounds + 1):
            with UnitOfWork(factory) as uow:
                draft = rounds.pair_next_round(uow, stage_id=stage_id, actor="bench")
                rounds.publish_round_pairing(uow, round_id=draft.round_id, actor="bench")
                play(uow, draft.round_id, number)
                recompute_pool(uow, pool_id=uow.rounds.pools_in_letter_order(stage_id)[0].id or 0)
        with UnitOfWork(factory) as uow:
            start = cpu()
            state = swiss_state_of(uow, stage_id).state
            read = cpu() - start
            start = cpu()
            GacruxPairer().pair_round(state, args.rounds + 1)
            engine_alone = cpu() - start
        with UnitOfWork(factory) as uow:
            start = cpu()
            draft = rounds.pair_next_round(uow, stage_id=stage_id, actor="bench")
            paired = cpu() - start
        with UnitOfWork(factory) as uow:
            start = cpu()
            rounds.publish_round_pairing(uow, round_id=draft.round_id, actor="bench")
            published = cpu() - start
        engine.dispose()
    print(f"24 teams, round {args.rounds + 1} (CPU seconds)")
    print(f"  engine alone (yardstick)      {engine_alone:7.3f}")
    print(f"  swiss_state_of (DB read)      {read:7.3f}  ratio {read / engine_alone:5.2f}")
    print(f"  pair_next_round (all)         {paired:7.3f}  ratio {paired / engine_alone:5.2f}")
    print(f"  publish_round_pairing         {published:7.3f}  ratio {published / engine_alone:5.2f}")


if __name__ == "__main__":
    main()
