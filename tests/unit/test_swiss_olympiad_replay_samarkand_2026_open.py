"""Replaying the 46th Chess Olympiad (Samarkand 2026), Open section, rounds 1-11 (round 11 as its pairing
was published, before its results), with our Olympiad Pairing Rules 2022 engine (docs/swiss.md,
"Replaying a real Olympiad"): a second real event, not the one the engine's last choices were read from.
The share of the published pairs reproduced must not fall below what it reaches now, and the standings
after rounds 4 to 10 (docs/tiebreaks.md, ``olympiad-2026``) must give the published ranks; those after
rounds 1 to 3, listed by starting rank, the published places.

The fixture (tests/fixtures/olympiads/samarkand-2026-open/, built by scripts/olympiad_fixture.py) holds
facts only; its SOURCE.md says where they come from, what they lack (board results, colours: inferred)
and what is left of the replay. Round 6 has a match forfeited whole (Netherlands - Israel).
"""

from __future__ import annotations

import json
from dataclasses import replace
from itertools import pairwise
from pathlib import Path

import pytest

from orchestrator.domain.scoring import MatchForfeit, MatchRecord
from orchestrator.domain.standings import Standings, compute_standings
from orchestrator.domain.swiss.c046 import teams_before
from orchestrator.domain.swiss.model import SwissState, SwissTeam
from orchestrator.domain.swiss.olympiad2022 import Olympiad2022Pairer, banned
from orchestrator.domain.swiss.pairing import OLYMPIAD_2022
from orchestrator.domain.swiss.replay import replay_state, state_before
from orchestrator.domain.tiebreaks import parse_chain
from orchestrator.domain.trf.swiss_read import read_team_trf

FOLDER = Path(__file__).resolve().parents[1] / "fixtures/olympiads/samarkand-2026-open"
DATA = json.loads((FOLDER / "fixture.json").read_text(encoding="utf-8"))
# The floor: 1084 of the 1129 published pairs (96.0 %) on 2026-12-06. Raise it when the engine improves.
FLOOR = 1084


def trf_state() -> tuple[SwissState, int]:
    """Rounds 1-10 from the TRF file, and round 11's published pairs without points (the file has no round
    11: its results are not in the source; no round up to 11 reads them, ``state_before``)."""
    state, next_round = read_team_trf((FOLDER / "samarkand-2026-open.trf").read_text(encoding="utf-8"))
    assert next_round == 11
    pending = [m for r in DATA["rounds"] if r["round"] == 11 for m in r["matches"]]
    assert all(m["score"] is None for m in pending)
    extra = tuple(MatchRecord(11, m["first"], m["second"], 0, 0) for m in pending)
    return replace(state, matches=state.matches + extra), 12


def test_the_fixture_holds_rounds_1_to_11_of_the_open_section_as_published() -> None:
    teams = sorted(DATA["teams"], key=lambda t: t["no"])
    assert len(teams) == 206 and [t["name"] for t in teams[:3]] == [
        "United States of America",
        "India",
        "Uzbekistan",
    ]
    assert [len(r["matches"]) for r in DATA["rounds"]] == [101, 102, 102] + [103] * 8
    assert DATA["byes"] == [[3, "Kiribati"]] and DATA["unpaired_draws"] == []
    # Who had White on board 1 is inferred by art. 7 (SOURCE.md); a second source has Uzbekistan B, W, B, W,
    # B, W and India W, B, W, B, W, B in rounds 1-6.
    assert DATA["first_named"] == "inferred" and DATA["initial_colour"] == "B"
    for team, colours in (("Uzbekistan", "BWBWBW"), ("India", "WBWBWB")):
        found = "".join(
            "W" if m["first"] == team else "B"
            for r in DATA["rounds"][:6]
            for m in r["matches"]
            if team in (m["first"], m["second"])
        )
        assert found == colours, team
    # Round 1, table 1: the United States beat Iraq 3.5-0.5 with Black on board 1.
    first = DATA["rounds"][0]["matches"][0]
    assert (first["first"], first["second"], first["score"]) == (
        "Iraq",
        "United States of America",
        "0.5-3.5",
    )


def test_each_round_reproduces_at_least_the_floor_of_the_published_pairs() -> None:
    state, next_round = trf_state()
    found = replay_state(Olympiad2022Pairer(), state, next_round - 1)
    assert [r.total for r in found] == [101, 102, 102] + [103] * 8
    assert sum(r.reproduced for r in found) >= FLOOR, [(r.round, r.reproduced, r.total) for r in found]
    # Rounds 1, 3, 5-8 and 10 pair for pair; what is left is in the 0-MP groups of rounds 2 and 4, the
    # 12-MP group of round 9 and the 15-, 14- and 11-MP groups of round 11, the last (SOURCE.md).
    assert [r.round for r in found if r.reproduced < r.total] == [2, 4, 9, 11]
    groups = {(r.round, d.first[1], d.second[1]) for r in found for d in r.differences}
    last = {(11, 15, 15), (11, 14, 15), (11, 14, 14), (11, 11, 11)}
    assert groups == {(2, 0, 0), (4, 0, 0), (9, 12, 12)} | last


def test_round_3_gives_the_bye_to_the_published_team() -> None:
    state, _ = trf_state()
    ours = Olympiad2022Pairer().pair_round(state_before(state, 3), 3)
    assert ours.bye == "Kiribati"


def test_round_2_floats_the_two_lowest_2_mp_teams_to_the_median_group_that_met() -> None:
    # Olympiad Pairing Rules 2022, art. 6, as the Samarkand pairings show it: Brazil and Botswana, the
    # whole 1-MP (median) group, drew each other in round 1. The 2-MP group (100 teams) floats its two
    # lowest, Trinidad & Tobago and Sudan, down to them; the 0-MP group floats nobody up.
    state, _ = trf_state()
    ours = Olympiad2022Pairer().pair_round(state_before(state, 2), 2)
    pairs = {frozenset((p.first, p.second)) for p in ours.pairings}
    assert frozenset(("Brazil", "Trinidad & Tobago")) in pairs
    assert frozenset(("Botswana", "Sudan")) in pairs
    assert frozenset(("United States of America", "Mongolia")) in pairs  # 1 v 50 of the 98 left


def test_a_median_group_that_met_takes_its_floaters_from_above() -> None:
    # Ten teams; round 1: T3 - T8 drawn, the top five won. Round 2: 2 MP T1 T2 T4 T5, 1 MP (the median)
    # T3 T8, who met, 0 MP T6 T7 T9 T10. The 2-MP group floats its two lowest down (T4 meets T3, the
    # highest of the median group; T5 meets T8) rather than the 0-MP group floating two up.
    teams = tuple(SwissTeam(f"T{n}") for n in range(1, 11))
    results = [(1, 6, 8, 0), (2, 7, 8, 0), (3, 8, 4, 4), (4, 9, 8, 0), (5, 10, 8, 0)]
    matches = tuple(MatchRecord(1, f"T{a}", f"T{b}", ga, gb) for a, b, ga, gb in results)
    state = SwissState(teams, boards=4, rounds=5, matches=matches, pairing=OLYMPIAD_2022)
    ours = Olympiad2022Pairer().pair_round(state, 2)
    assert {frozenset((p.first, p.second)) for p in ours.pairings} == {
        frozenset(pair) for pair in (("T1", "T2"), ("T4", "T3"), ("T5", "T8"), ("T6", "T9"), ("T7", "T10"))
    }


def test_a_match_forfeited_whole_is_not_played_and_scores_as_published() -> None:
    # Round 6: Netherlands 4-0 Israel, every board "+" against "-" in the source. Not played (no colour,
    # the two may meet again: C.04.6 art. 1.6.1), its 2 match points and 4 game points counted. Entered as
    # played, Netherlands would have one more White and round 8 would part in two pairs (SOURCE.md).
    table = next(m for m in DATA["rounds"][5]["matches"] if "Israel" in (m["first"], m["second"]))
    assert (table["first"], table["second"], table["score"], table.get("forfeit")) == (
        "Netherlands",
        "Israel",
        "4-0",
        True,
    )
    assert sum(bool(m.get("forfeit")) for r in DATA["rounds"] for m in r["matches"]) == 1
    state, _ = trf_state()
    match = next(m for m in state.matches if m.round == 6 and "Israel" in (m.team_a, m.team_b))
    assert (match.team_a, match.team_b, match.gp_a, match.gp_b) == ("Netherlands", "Israel", 8, 0)
    assert match.forfeit is MatchForfeit.A_WINS and not match.is_played
    assert not state.have_played("Netherlands", "Israel")


STARTING_RANKS = {team["name"]: team["no"] for team in DATA["teams"]}


def standings_after(state: SwissState, round_no: int) -> Standings:
    """Our ``olympiad-2026`` standings after a round; teams that share a rank listed by starting rank."""
    return compute_standings(
        [team.name for team in state.teams],
        [m for m in state.matches if m.round <= round_no],
        chain=parse_chain("olympiad-2026"),
        boards=4,
        round_robin=False,
        bye_mp=1,
        starting_ranks=STARTING_RANKS,
    )


@pytest.mark.parametrize("round_no", [4, 5, 6, 7, 8, 9, 10])
def test_the_standings_after_rounds_4_to_10_give_every_published_rank(round_no: int) -> None:
    state, _ = trf_state()
    published = DATA["rounds"][round_no - 1]["ranks"]
    ours = {row.team: row.rank for row in standings_after(state, round_no).rows}
    assert len(published) == 206
    assert {team: ours[team] for team in published} == published


@pytest.mark.parametrize(("round_no", "places"), [(1, 191), (2, 191), (3, 192)])
def test_the_ranks_after_rounds_1_to_3_are_the_places_of_our_list_by_starting_rank(
    round_no: int, places: int
) -> None:
    # The source's ranks after rounds 1-3 (taken with round 4's, SOURCE.md) are places in a list: the
    # teams our tie-breaks leave equal are listed by starting rank and numbered one by one (all 73 teams
    # that won 4-0 in round 1 would share rank 1; the source has Uzbekistan 1, China 2, Germany 3 ...). A
    # team listed just below a team it is tied with after round 4 has that team's number in rounds 1-3 as
    # well (France, Armenia, England 5 after round 1; Germany and Armenia share rank 3 after round 4): 14
    # teams. So every published rank follows, and no published list ranks a team above one ours ranks higher.
    state, _ = trf_state()
    after_4 = standings_after(state, 4).rows
    below_a_tie = {row.team for above, row in pairwise(after_4) if row.rank == above.rank}
    assert len(below_a_tie) == 14 and {"Armenia", "England"} <= below_a_tie
    published = DATA["rounds"][round_no - 1]["ranks"]
    listed = [row.team for row in standings_after(state, round_no).rows if row.team in published]
    numbered: dict[str, int] = {}
    for place, team in enumerate(listed, start=1):
        numbered[team] = numbered[listed[place - 2]] if team in below_a_tie and place > 1 else place
    assert sum(published[team] == place for place, team in enumerate(listed, start=1)) == places
    assert numbered == published


def test_only_the_last_round_pairs_teams_whose_colours_break_art_7_3_either_way() -> None:
    # Olympiad Pairing Rules 2022, art. 7.3, by the inferred colours: no published pair of rounds 5-10 breaks
    # it whichever team has White; round 11 has two, both in the top groups (Azerbaijan - Serbia, each with
    # White in its last two matches; China - Uzbekistan 2). Our engine avoids such pairs (art. 7.4), hence
    # most of round 11's differences; the 2022 text we follow has no last-round exception (SOURCE.md).
    state, next_round = trf_state()
    clashes: dict[int, list[tuple[str, str]]] = {}
    for round_no in range(5, next_round):
        teams = {team.name: team for team in teams_before(state_before(state, round_no), round_no).values()}
        clashes[round_no] = [
            (m.team_a, m.team_b)
            for m in state.matches
            if m.round == round_no
            and m.team_b
            and (banned(teams[m.team_a], "w") or banned(teams[m.team_b], "b"))
            and (banned(teams[m.team_a], "b") or banned(teams[m.team_b], "w"))
        ]
    assert {n: len(pairs) for n, pairs in clashes.items()} == {5: 0, 6: 0, 7: 0, 8: 0, 9: 0, 10: 0, 11: 2}
    assert {frozenset(pair) for pair in clashes[11]} == {
        frozenset(("Azerbaijan", "Serbia")),
        frozenset(("China", "Uzbekistan 2")),
    }
