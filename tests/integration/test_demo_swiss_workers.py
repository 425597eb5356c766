"""The demo driver's Swiss stages on the real stack: PostgreSQL, a real Celery worker process over Redis and
the stand-in in its own process over HTTP, as bench/whole_event_2026.py runs them (here on the two-section
fixture: two Swiss stages of three rounds side by side, then a play-off).

The bench prints each stage's games; every Swiss round must have been played in full, so each section's
count is what the file defines (rounds x matches x boards), and the run must end with a champion.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from orchestrator.domain.event import SeedRange
from orchestrator.eventfile import parse_event
from tests.integration.conftest import _require_postgres
from tests.support.factories import REPO_ROOT
from tests.support.workers import require_redis

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

TWO_SECTIONS = REPO_ROOT / "tests" / "fixtures" / "events" / "two-swiss-playoff.yaml"


def test_the_swiss_bench_plays_both_sections_and_the_play_off_through_postgres_and_a_celery_worker():
    _require_postgres()
    require_redis()
    definition = parse_event(TWO_SECTIONS.read_text(encoding="utf-8"))
    command = [sys.executable, str(REPO_ROOT / "bench" / "whole_event_2026.py"), "--event", str(TWO_SECTIONS)]
    command += ["--swiss-engine", "own"]
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    done = subprocess.run(command, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=280)

    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"^run 1 \(PostgreSQL, Celery worker .*\): .* champion \S", done.stdout, re.M), (
        done.stdout
    )
    games = {
        found[1].strip(): int(found[2])
        for found in re.finditer(r"^  (\S.*?)\s+[\d.]+ s\s+(\d+) games$", done.stdout, re.M)
    }
    for stage in definition.stages:
        if stage.is_swiss:
            entrants = sum(e.size for e in stage.entrants if isinstance(e, SeedRange))  # seeds only here
            # every team in a match each round (an even field: no bye), every board with a game
            assert games[stage.name] == stage.rounds * (entrants // 2) * definition.team_format.boards
    knockout = next(s for s in definition.stages if s.kind == "knockout")
    # two matches per duel, each of every board: at least that many games (an Armageddon adds one)
    assert games[knockout.name] >= 2 * len(definition.bracket) * definition.team_format.boards
