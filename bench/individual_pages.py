"""Time the individual read models on a played Olympiad: board prizes, rating changes, a player page and
the rating file, beside the Swiss stage's public view (the yardstick: a page spectators already get).

Run: .venv/bin/python bench/individual_pages.py [--rounds 11] [--repeat 5]
The 24-team Olympiad 2026 file (events/olympiad-2026-small.yaml, marked rated here) on a temporary SQLite
database: ``--rounds`` rounds are paired, published and played through the services (every board's result
written on the rows, a fixed pattern), then each read model is built ``--repeat`` times. CPU seconds per
build are printed (the best of the repeats): compare the ratios. The public pages are built once per change
(docs/caching.md), so this is the cost after each result, not per visitor.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from swiss_server_pairing import ROOT, play

from orchestrator.adapters.tables import Event
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.config import Settings
from orchestrator.db import init_db, make_engine, make_session_factory
from orchestrator.services.read import board_prizes, rating_trf, ratings, swiss
from orchestrator.services.results.standings import recompute_pool
from orchestrator.services.setup import event_setup, stage_start
from orchestrator.services.swiss import rounds


def best(factory: Callable[[], UnitOfWork], build: Callable[[UnitOfWork], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        with factory() as uow:
            start = time.process_time()
            build(uow)
            times.append(time.process_time() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        engine = make_engine(Settings(data_dir=Path(tmp)).sqlalchemy_url)
        init_db(engine=engine)
        session_factory = make_session_factory(engine)

        def factory() -> UnitOfWork:
            return UnitOfWork(session_factory)

        text = (ROOT / "events" / "olympiad-2026-small.yaml").read_text(encoding="utf-8")
        text = text.replace("\nteam_format:", "\nrated: true\nteam_format:", 1)
        with factory() as uow:
            event_id = event_setup.create_event(uow, definition_text=text, source="bench", actor="bench")
            stage_id = event_setup.stage_ids_by_key(uow, event_id=event_id)["open"]
            stage_start.start_stage(uow, stage_id=stage_id, actor="bench", initial_colour="W")
            slug = uow.events.get_or_raise(Event, event_id).slug
        for number in range(1, args.rounds + 1):
            with factory() as uow:
                draft = rounds.pair_next_round(uow, stage_id=stage_id, actor="bench")
                rounds.publish_round_pairing(uow, round_id=draft.round_id, actor="bench")
                play(uow, draft.round_id, number)
                pool_id = uow.rounds.pools_in_letter_order(stage_id)[0].id or 0
                recompute_pool(uow, pool_id=pool_id)
        with factory() as uow:
            teams = [t.id or 0 for t in uow.teams.teams_of_event(event_id)]
            player_id = uow.read.players_of_teams(teams)[0].id or 0

        def stage_view(uow: UnitOfWork) -> object:
            return swiss.swiss_view(uow, slug=slug, stage_key="open").as_json()

        yardstick = best(factory, stage_view, args.repeat)
        timed: dict[str, Callable[[UnitOfWork], object]] = {
            "board prizes (JSON)": lambda uow: board_prizes.board_prizes_view(
                uow, slug=slug, stage_key="open"
            ).as_json(),
            "rating changes (JSON)": lambda uow: ratings.ratings_view(uow, slug=slug).as_json(),
            "player page (JSON)": lambda uow: ratings.player_view(
                uow, slug=slug, player_id=player_id
            ).as_json(),
            "rating file (TRF)": lambda uow: rating_trf.pool_rating_trf(uow, pool_id=pool_id),
        }
        figures = {name: best(factory, build, args.repeat) for name, build in timed.items()}
        engine.dispose()
    print(f"24 teams, {args.rounds} rounds played, best of {args.repeat} (CPU seconds per build)")
    print(f"  Swiss stage view (yardstick)  {yardstick:7.3f}")
    for name, value in figures.items():
        print(f"  {name:<29} {value:7.3f}  ratio {value / yardstick:5.2f}")


if __name__ == "__main__":
    main()
