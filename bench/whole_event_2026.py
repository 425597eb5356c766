"""Wall-clock time of the 2026 Swiss event through the real stack, with instant games.

Run: .venv/bin/python bench/whole_event_2026.py [--event events/olympiad-2026-small.yaml]
        [--swiss-engine gacrux|own] [--no-celery] [--sqlite] [--runs 1] [--tick 0.1]
Needs PostgreSQL (OLYMPIAD_BENCH_PG_ADMIN_URL, default postgresql+psycopg://postgres@127.0.0.1:5432/postgres;
a scratch database is created and dropped after) and Redis (REDIS_URL, default redis://127.0.0.1:6379/0).

bench/whole_event.py with the 2026 defaults: the small 2026 file (24 teams, 11 Swiss rounds; pass
``--event events/olympiad-2026.yaml`` for the full field) and a real Celery worker process (``--celery``).
What runs is ``olympiad demo``'s driver (orchestrator/demo/driver.py and swiss.py) without the web app and
with no demo time: for each Swiss stage, each round is paired (``pair_next_round``, by the system the
stage names: the 2026 files name the Olympiad Pairing Rules, our ``olympiad2022.py``; a C.04.6 stage by
gacrux unless ``--swiss-engine own``; docs/swiss.md "Which system each event file uses"), published and
timed as soon as the round before is finished; the Celery worker
creates the games on the stand-in (its own process, over HTTP, ending each game as soon as it is paired),
pulls the results, computes the standings, finishes the rounds and closes the stage; then any play-off.

Printed: the set-up (not in the figure), the event's wall clock from the first step to the champion, each
stage's share with its games, and a yardstick in the same run: the pure simulation of the same event
(``simulate_event``, our own pairing engine, in process, best of 3).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from whole_event import main  # noqa: E402  (bench/ is scripts, not a package)

if __name__ == "__main__":
    main(description=__doc__, event=ROOT / "events" / "olympiad-2026-small.yaml", celery=True)
