"""The play-off bracket (docs/rules.md §3 table, §5): slots filled from pools and duels, withdrawals,
champion."""

import re

import pytest

from orchestrator.domain.bracket import DuelSpec, LoserOf, PoolPlace, WinnerOf
from orchestrator.domain.knockout import (
    BracketError,
    DuelMatch,
    DuelOutcome,
    DuelReason,
    DuelRecord,
    ResolvedDuel,
    Ruling,
    champions,
    decide_duel,
    duel_match_colours,
    resolve_bracket,
    rounds_for_display,
)
from orchestrator.domain.scoring import GameResult


def top(pool: str, place: int) -> PoolPlace:
    return PoolPlace("Top", pool, place)


W = WinnerOf
BRACKET_2020 = (
    DuelSpec("I", "Preliminary", top("A", 2), top("B", 3)),
    DuelSpec("II", "Preliminary", top("B", 2), top("A", 3)),
    DuelSpec("III", "Preliminary", top("C", 2), top("D", 3)),
    DuelSpec("IV", "Preliminary", top("D", 2), top("C", 3)),
    DuelSpec("V", "Quarter-final", top("A", 1), W("IV")),
    DuelSpec("VI", "Quarter-final", top("B", 1), W("III")),
    DuelSpec("VII", "Quarter-final", top("C", 1), W("II")),
    DuelSpec("VIII", "Quarter-final", top("D", 1), W("I")),
    DuelSpec("IX", "Semi-final", W("V"), W("VI")),
    DuelSpec("X", "Semi-final", W("VII"), W("VIII")),
    DuelSpec("XI", "Final", W("IX"), W("X")),
)
PLACES = {top(pool, place): f"{pool}{place}" for pool in "ABCD" for place in (1, 2, 3)}


def match_won_by_first(match_no: int, first_wins: bool) -> DuelMatch:
    """A 4–2 match: the named side wins boards 1–4 of its colours' games, loses 5 and 6."""
    results = []
    for board, colour in enumerate(duel_match_colours(match_no), start=1):
        first_scores = (board <= 4) == first_wins
        white_wins = first_scores == (colour == "W")
        results.append(GameResult.WHITE_WINS if white_wins else GameResult.BLACK_WINS)
    return DuelMatch(tuple(results))


def won(resolved: ResolvedDuel, winner: str) -> DuelOutcome:
    """The outcome of a 2–0 duel for ``winner`` between the teams the bracket put there."""
    assert resolved.first is not None and resolved.second is not None
    first_wins = winner == resolved.first
    matches = (match_won_by_first(1, first_wins), match_won_by_first(2, first_wins))
    outcome = decide_duel(DuelRecord(resolved.spec.key, resolved.first, resolved.second, matches))
    assert outcome.winner == winner
    return outcome


def by_key(resolved: tuple[ResolvedDuel, ...]) -> dict[str, ResolvedDuel]:
    return {d.spec.key: d for d in resolved}


def test_before_any_duel_only_pool_places_are_known() -> None:
    resolved = by_key(resolve_bracket(BRACKET_2020, PLACES, {}))
    assert (resolved["I"].first, resolved["I"].second) == ("A2", "B3")
    assert (resolved["IV"].first, resolved["IV"].second) == ("D2", "C3")
    assert (resolved["V"].first, resolved["V"].second) == ("A1", None)
    assert (resolved["XI"].first, resolved["XI"].second) == (None, None)
    assert champions(tuple(resolved.values())) == ()


def test_pool_places_not_yet_final_leave_their_slots_empty() -> None:
    partial = {place: team for place, team in PLACES.items() if place.pool != "D"}
    resolved = by_key(resolve_bracket(BRACKET_2020, partial, {}))
    assert (resolved["III"].first, resolved["III"].second) == ("C2", None)
    assert resolved["VIII"].first is None


def test_a_whole_play_off_replayed_duel_by_duel_crowns_the_champion() -> None:
    winners = {"I": "B3", "II": "B2", "III": "C2", "IV": "C3", "V": "C3", "VI": "B1",
               "VII": "C1", "VIII": "D1", "IX": "B1", "X": "C1", "XI": "C1"}  # fmt: skip
    outcomes: dict[str, DuelOutcome] = {}
    for key in winners:  # in bracket order: each duel's teams are known once earlier duels are decided
        resolved = by_key(resolve_bracket(BRACKET_2020, PLACES, outcomes))
        assert champions(tuple(resolved.values())) == ()
        outcomes[key] = won(resolved[key], winners[key])
    resolved = by_key(resolve_bracket(BRACKET_2020, PLACES, outcomes))
    assert (resolved["V"].first, resolved["V"].second) == ("A1", "C3")
    assert (resolved["IX"].first, resolved["IX"].second) == ("C3", "B1")
    assert (resolved["XI"].first, resolved["XI"].second) == ("B1", "C1")
    assert champions(tuple(resolved.values())) == ("C1",)


def test_a_team_withdrawn_before_its_quarter_final_lets_its_opponent_advance_by_forfeit() -> None:
    outcomes: dict[str, DuelOutcome] = {}
    waiting = by_key(resolve_bracket(BRACKET_2020, PLACES, outcomes, withdrawn={"A1"}))
    assert waiting["V"].outcome is None  # the opponent (winner IV) is not known yet
    outcomes["IV"] = won(waiting["IV"], "D2")
    resolved = by_key(resolve_bracket(BRACKET_2020, PLACES, outcomes, withdrawn={"A1"}))
    quarter = resolved["V"]
    assert quarter.outcome is not None
    assert quarter.outcome.reason is DuelReason.WITHDRAWAL
    assert quarter.winner == "D2"
    assert "A1 withdrew; D2 goes through" in quarter.outcome.sentence
    assert quarter.outcome.key == "V"
    assert resolved["IX"].first == "D2"


def test_joint_winners_of_the_final_are_both_champions() -> None:
    outcomes: dict[str, DuelOutcome] = {}
    for key, winner in {"I": "A2", "II": "B2", "III": "C2", "IV": "D2", "V": "A1", "VI": "B1",
                        "VII": "C1", "VIII": "D1", "IX": "A1", "X": "C1"}.items():  # fmt: skip
        outcomes[key] = won(by_key(resolve_bracket(BRACKET_2020, PLACES, outcomes))[key], winner)
    final = by_key(resolve_bracket(BRACKET_2020, PLACES, outcomes))["XI"]
    ruling = Ruling(("A1", "C1"), "declared joint winners by the organiser after a disconnection appeal")
    outcomes["XI"] = decide_duel(DuelRecord("XI", "A1", "C1", ruling=ruling))
    resolved = resolve_bracket(BRACKET_2020, PLACES, outcomes)
    assert (final.first, final.second) == ("A1", "C1")
    assert champions(resolved) == ("A1", "C1")


def test_rounds_are_listed_earliest_first_whatever_the_order_of_the_definition() -> None:
    shuffled = tuple(reversed(BRACKET_2020))
    rounds = rounds_for_display(resolve_bracket(shuffled, PLACES, {}))
    assert [name for name, _ in rounds] == ["Preliminary", "Quarter-final", "Semi-final", "Final"]
    assert [d.spec.key for d in rounds[0][1]] == ["IV", "III", "II", "I"]


def test_a_third_place_duel_takes_the_semi_final_losers() -> None:
    with_bronze = (*BRACKET_2020, DuelSpec("XII", "Third place", LoserOf("IX"), LoserOf("X")))
    outcomes: dict[str, DuelOutcome] = {}
    for key in ("I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X"):
        duel = by_key(resolve_bracket(with_bronze, PLACES, outcomes))[key]
        assert duel.first is not None
        outcomes[key] = won(duel, duel.first)
    resolved = resolve_bracket(with_bronze, PLACES, outcomes)
    bronze = by_key(resolved)["XII"]
    assert (bronze.first, bronze.second) == (by_key(resolved)["IX"].loser, by_key(resolved)["X"].loser)
    assert bronze.first is not None
    names = [name for name, _ in rounds_for_display(resolved)]
    assert names.index("Third place") > names.index("Semi-final")
    assert champions(resolved) == ()


def test_an_outcome_for_other_teams_than_the_bracket_has_is_refused() -> None:
    wrong = decide_duel(
        DuelRecord("I", "B3", "A2", (match_won_by_first(1, True), match_won_by_first(2, True)))
    )
    with pytest.raises(BracketError, match="duel I: the outcome is for B3 – A2, but the bracket has A2 – B3"):
        resolve_bracket(BRACKET_2020, PLACES, {"I": wrong})


def test_unknown_duels_cycles_and_duplicate_keys_are_refused() -> None:
    with pytest.raises(BracketError, match="refers to duel XX, which does not exist"):
        resolve_bracket((DuelSpec("V", "Quarter-final", top("A", 1), W("XX")),), PLACES, {})
    loop = (
        DuelSpec("P", "Semi-final", W("Q"), top("A", 1)),
        DuelSpec("Q", "Semi-final", W("P"), top("B", 1)),
    )
    with pytest.raises(BracketError, match="cycle"):
        resolve_bracket(loop, PLACES, {})
    with pytest.raises(BracketError, match="defined twice"):
        resolve_bracket((BRACKET_2020[0], BRACKET_2020[0]), PLACES, {})


def test_a_cycle_is_refused_with_the_duels_that_make_it() -> None:
    loop = (
        DuelSpec("P", "Semi-final", W("Q"), top("A", 1)),
        DuelSpec("Q", "Semi-final", W("P"), top("B", 1)),
    )
    with pytest.raises(BracketError, match=r"^the bracket has a cycle: P → Q → P$"):
        resolve_bracket(loop, PLACES, {})


def test_an_outcome_for_a_duel_whose_teams_are_not_known_yet_is_refused() -> None:
    early = decide_duel(DuelRecord("IX", "A1", "B1", withdrawn="B1"))
    message = "duel IX: the outcome is for A1 – B1, but the bracket has ? – ?"
    with pytest.raises(BracketError, match=f"^{re.escape(message)}$"):
        resolve_bracket(BRACKET_2020, PLACES, {"IX": early})


def decide_all(bracket: tuple[DuelSpec, ...], keys: list[str]) -> dict[str, DuelOutcome]:
    """Each duel in ``keys`` won 2-0 by its first-named team, in that order."""
    outcomes: dict[str, DuelOutcome] = {}
    for key in keys:
        duel = by_key(resolve_bracket(bracket, PLACES, outcomes))[key]
        assert duel.first is not None
        outcomes[key] = won(duel, duel.first)
    return outcomes


def test_the_champion_is_the_winner_of_the_duel_named_final_not_of_the_third_place_duel() -> None:
    with_bronze = (*BRACKET_2020, DuelSpec("XII", "Third place", LoserOf("IX"), LoserOf("X")))
    outcomes = decide_all(with_bronze, [spec.key for spec in with_bronze])
    resolved = by_key(resolve_bracket(with_bronze, PLACES, outcomes))
    # Every duel goes to its first-named team: V A1 beats IV's winner D2, VI B1 beats C2, VII C1 beats
    # B2, VIII D1 beats A2; IX A1 beats B1, X C1 beats D1; final A1 – C1; third place B1 – D1, won by B1.
    assert (resolved["XI"].first, resolved["XI"].second, resolved["XII"].winner) == ("A1", "C1", "B1")
    assert champions(tuple(resolved.values())) == ("A1",)


# Four teams, rounds named by the organiser: none is called "Final".
NAMED_BY_ORGANISER = (
    DuelSpec("T", "Round 3", W("S1"), W("S2")),
    DuelSpec("S1", "Round 2", top("A", 1), top("B", 2)),
    DuelSpec("S2", "Round 2", top("B", 1), top("A", 2)),
)


def test_without_a_duel_named_final_the_champion_wins_the_duel_whose_winner_nobody_takes() -> None:
    outcomes = decide_all(NAMED_BY_ORGANISER, ["S1", "S2"])
    assert champions(resolve_bracket(NAMED_BY_ORGANISER, PLACES, outcomes)) == ()
    outcomes = decide_all(NAMED_BY_ORGANISER, ["S1", "S2", "T"])
    assert champions(resolve_bracket(NAMED_BY_ORGANISER, PLACES, outcomes)) == ("A1",)


def test_two_duels_whose_winners_nobody_takes_and_no_final_have_no_champion() -> None:
    two = (
        DuelSpec("S1", "Round 1", top("A", 1), top("B", 2)),
        DuelSpec("S2", "Round 1", top("B", 1), top("A", 2)),
    )
    outcomes = decide_all(two, ["S1"])
    assert champions(resolve_bracket(two, PLACES, outcomes)) == ()


def test_rounds_with_the_organisers_names_are_listed_by_how_far_they_are_from_the_pools() -> None:
    rounds = rounds_for_display(resolve_bracket(NAMED_BY_ORGANISER, PLACES, {}))
    assert [(name, [d.spec.key for d in duels]) for name, duels in rounds] == [
        ("Round 2", ["S1", "S2"]),
        ("Round 3", ["T"]),
    ]


def test_the_final_is_listed_before_a_third_place_duel_of_the_same_depth_whatever_the_definition_order() -> (
    None
):
    bronze_first = (
        *BRACKET_2020[:-1],
        DuelSpec("XII", "Third place", LoserOf("IX"), LoserOf("X")),
        BRACKET_2020[-1],
    )
    names = [name for name, _ in rounds_for_display(resolve_bracket(bronze_first, PLACES, {}))]
    assert names == ["Preliminary", "Quarter-final", "Semi-final", "Final", "Third place"]
