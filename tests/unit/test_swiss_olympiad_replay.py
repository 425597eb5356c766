"""Replaying the 44th Chess Olympiad (Chennai 2022), Open section, with our Olympiad Pairing Rules 2022
engine (docs/swiss.md, "Replaying a real Olympiad"): round by round from the published results, the
share of the published pairs our engine reproduces must not fall below what it reaches now.

The fixture (tests/fixtures/olympiads/chennai-2022-open/, built by scripts/olympiad_fixture.py) holds
facts only; its SOURCE.md says where they come from and what they lack.
"""

from __future__ import annotations

import json
from pathlib import Path

from orchestrator.domain.swiss.olympiad2022 import Olympiad2022Pairer
from orchestrator.domain.swiss.pairing import OLYMPIAD_2022
from orchestrator.domain.swiss.replay import PublishedMatch, published_state, replay, replay_round

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures/olympiads/chennai-2022-open/fixture.json"
# Chad was not paired in round 1 (it arrived late); the published rounds 2 and 3 pair it as a team on
# 1 MP, i.e. its unpaired round 1 was credited as a drawn match (SOURCE.md of the fixture).
CHAD = frozenset({(1, "Chad")})
# The floor: 1,011 of the 1,018 published pairs (99.3 %) on 2026-12-06. Raise it when the engine improves.
FLOOR = 1011


def load() -> tuple[list[str], dict[int, list[PublishedMatch]], dict[str, object]]:
    data = json.loads(FIXTURE.read_text(encoding="utf-8"))
    teams = [team["name"] for team in sorted(data["teams"], key=lambda t: t["no"])]
    rounds = {
        rnd["round"]: [PublishedMatch(m["first"], m["second"], tuple(m["boards"])) for m in rnd["matches"]]
        for rnd in data["rounds"]
    }
    return teams, rounds, data


def test_the_fixture_holds_the_open_section_as_published() -> None:
    teams, rounds, data = load()
    assert len(teams) == 188 and teams[:3] == ["United States of America", "India", "Norway"]
    assert sorted(rounds) == list(range(1, 12))
    assert [len(rounds[r]) for r in sorted(rounds)] == [92, 92, 92, 93, 93, 93, 93, 93, 93, 92, 92]
    assert data["boards"] == 4 and data["rounds_total"] == 11
    # Round 1, table 1: India (starting rank 2) had White on board 1 against Zimbabwe and won 4-0.
    first = rounds[1][0]
    assert (first.first, first.second, first.game_points()) == ("India", "Zimbabwe", (8, 0))


def test_each_round_reproduces_at_least_the_floor_of_the_published_pairs() -> None:
    teams, rounds, _ = load()
    found = replay(
        Olympiad2022Pairer(),
        teams,
        rounds,
        boards=4,
        total_rounds=11,
        pairing=OLYMPIAD_2022,
        unpaired_draws=CHAD,
    )
    reproduced = sum(r.reproduced for r in found)
    assert sum(r.total for r in found) == 1018
    assert reproduced >= FLOOR, [(r.round, r.reproduced, r.total) for r in found]
    # Every round but 1 and 11 is reproduced pair for pair.
    assert [r.round for r in found if r.reproduced < r.total] == [1, 11]
    # Every difference names both teams with their match points and ranks before the round.
    difference = found[0].differences[0]
    assert difference.first[0] == "Morocco" and difference.first[1] == 0
    assert difference.ours[0] is not None


def test_without_chads_credit_round_2_falls_apart() -> None:
    # The data gap shows: with Chad's unpaired round 1 scored 0, it joins the 0-MP group at its bottom
    # instead of floating down from 1 MP, and every pair of that group shifts.
    teams, rounds, _ = load()
    kwargs = {"boards": 4, "total_rounds": 11, "pairing": OLYMPIAD_2022}
    with_credit = replay_round(Olympiad2022Pairer(), teams, rounds, 2, unpaired_draws=CHAD, **kwargs)
    without = replay_round(Olympiad2022Pairer(), teams, rounds, 2, **kwargs)
    assert (with_credit.reproduced, with_credit.total) == (92, 92)
    assert without.reproduced < 60


def test_a_team_missing_from_a_published_round_is_not_paired_in_it() -> None:
    teams, rounds, _ = load()
    state = published_state(teams, rounds, before=2, boards=4, total_rounds=11, pairing=OLYMPIAD_2022)
    assert "Pakistan" not in state.available(1) and "Pakistan" not in state.available(2)
    assert "Chad" not in state.available(1) and "Chad" in state.available(2)
    assert state.points("Chad") == (0, 0)
    credited = published_state(
        teams, rounds, before=2, boards=4, total_rounds=11, pairing=OLYMPIAD_2022, unpaired_draws=CHAD
    )
    assert credited.points("Chad") == (1, 4)


def test_a_board_without_a_published_game_gives_nothing_to_either_team() -> None:
    # Results are White's score first; the first-named team has White on boards 1 and 3, Black on 2 and 4
    # (half-points). Board 1 missing (round 8, Hong Kong - Haiti): nothing; board 2 "0-1": Black, the
    # first team, wins (2-0); board 3 "1-0": the first team (2-0); board 4 "1-0": White, the second (0-2).
    assert PublishedMatch("A", "B", (None, "0-1", "1-0", "1-0")).game_points() == (4, 2)
    # "0-0" (both lost, round 9 table 90): nothing; a draw: 1 each.
    assert PublishedMatch("A", "B", ("0-0", "1/2-1/2", "1-0", "0-1")).game_points() == (5, 1)
