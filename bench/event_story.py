"""Seconds to build an Olympiad's event page (docs/spectators.md, "The event page") from a played event's
database, against the Swiss stage pages it summarises.

Run: PYTHONPATH=. .venv/bin/python bench/event_story.py DATA_DIR SLUG [--runs 3]

DATA_DIR holds the SQLite database of an event played to the end, e.g. after
``olympiad demo --event events/olympiad-2026.yaml --swiss-engine own --minutes 0 --data-dir DATA_DIR``
(slug ``olympiad-2026``). Printed: best-of-``runs`` seconds for the event page's whole view (timeline and
story: each section's podium, the combined top three, the board prizes' gold medals), for the story's parts,
and for each Swiss stage's own page view, which the story's podium replaces with one round's standings.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from orchestrator.adapters.uow import UnitOfWork, unit_of_work_factory
from orchestrator.config import Settings
from orchestrator.services.read import board_prizes, combined, events, swiss
from orchestrator.web.pages.public.event_story import event_story


def best(runs: int, step: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("slug")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    settings = Settings(
        data_dir=args.data_dir, database_url=f"sqlite:///{args.data_dir / 'olympiad.sqlite3'}"
    )
    factory = unit_of_work_factory(settings)

    def with_uow(use: Callable[[UnitOfWork], object]) -> Callable[[], object]:
        def run() -> object:
            with factory() as uow:
                return use(uow)

        return run

    with factory() as uow:
        view = events.event_view(uow, slug=args.slug)
    swiss_keys = [s.key for s in view.stages if s.kind == "swiss" and s.has_page]

    def page(uow: UnitOfWork) -> object:
        return event_story(uow, events.event_view(uow, slug=args.slug))

    print(f"event page (timeline and story): {best(args.runs, with_uow(page)):.3f} s")
    for key in swiss_keys:
        where = {"slug": args.slug, "stage_key": key}
        leaders = best(args.runs, with_uow(partial(swiss.swiss_leaders, **where)))
        prizes = best(args.runs, with_uow(partial(board_prizes.board_prizes_view, **where)))
        whole = best(args.runs, with_uow(partial(swiss.swiss_view, **where)))
        print(
            f"  {key}: podium {leaders:.3f} s, board prizes {prizes:.3f} s "
            f"(the Swiss page's view: {whole:.3f} s)"
        )
    if view.combined:
        top = best(args.runs, with_uow(partial(combined.combined_view, slug=args.slug)))
        print(f"  combined classification: {top:.3f} s")


if __name__ == "__main__":
    main()
