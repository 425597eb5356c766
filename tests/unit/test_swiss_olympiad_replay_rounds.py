"""Olympiad Pairing Rules 2022, art. 6, on the real event: the rounds of the Chennai 2022 Open replay
(tests/fixtures/olympiads/chennai-2022-open/) where each reading of art. 6 shows, reproduced pair for
pair. Short enough to run for every mutant of ``olympiad2022.py`` (bench/mutation.sh); the whole event's
floor is ``test_swiss_olympiad_replay.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orchestrator.domain.swiss.olympiad2022 import Olympiad2022Pairer
from orchestrator.domain.swiss.pairing import OLYMPIAD_2022
from orchestrator.domain.swiss.replay import PublishedMatch, replay_round

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures/olympiads/chennai-2022-open/fixture.json"
CHAD = frozenset({(1, "Chad")})  # see test_swiss_olympiad_replay.py and the fixture's SOURCE.md
DATA = json.loads(FIXTURE.read_text(encoding="utf-8"))
TEAMS = [team["name"] for team in sorted(DATA["teams"], key=lambda t: t["no"])]
ROUNDS = {
    rnd["round"]: [PublishedMatch(m["first"], m["second"], tuple(m["boards"])) for m in rnd["matches"]]
    for rnd in DATA["rounds"]
}


@pytest.mark.parametrize(
    "round_no",
    [
        2,  # a floater from above meets the highest team of the group below (Chad, Angola)
        4,  # below the median: the transposition from the other end (2-MP group), floaters going up
        5,  # above the median: the first transposition of the bottom half (7-MP group)
        6,  # below the median: a rotation of three pairs (4-MP group)
        9,  # above the median: top against bottom whenever possible (10-MP group)
        10,  # below the median: a pair inside a half comes first (6-MP group)
    ],
)
def test_the_round_is_reproduced_pair_for_pair(round_no: int) -> None:
    found = replay_round(
        Olympiad2022Pairer(),
        TEAMS,
        ROUNDS,
        round_no,
        boards=4,
        total_rounds=11,
        pairing=OLYMPIAD_2022,
        unpaired_draws=CHAD,
    )
    assert (found.reproduced, found.differences) == (found.total, ())
