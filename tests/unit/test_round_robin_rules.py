"""Round-robin rules (domain/round_robin.py), worked by hand: the FIDE Berger tables of C.05 Annex 1 for
three to six participants, every field of a round (its number, each pairing's round and table, the bye),
and what counts as a complete round robin for the tie-breaks (FIDE C.07 Art. 15.2 against Art. 16)."""

from __future__ import annotations

import pytest

from orchestrator.domain.round_robin import Pairing, RoundRobinRound, berger_table, is_complete_round_robin

# FIDE C.05 Annex 1, "3 or 4 players" and "5 or 6 players": the first number of each pair has White.
FIDE_4 = ["1-4 2-3", "4-3 1-2", "2-4 3-1"]
FIDE_6 = ["1-6 2-5 3-4", "6-4 5-3 1-2", "2-6 3-1 4-5", "6-5 1-4 2-3", "3-6 4-2 5-1"]


def rendered(players: int) -> list[str]:
    return [" ".join(f"{p.first}-{p.second}" for p in rnd.pairings) for rnd in berger_table(players)]


def test_c05_annex_1_tables_for_four_and_six_participants() -> None:
    assert rendered(4) == FIDE_4
    assert rendered(6) == FIDE_6


def test_c05_annex_1_an_odd_field_plays_the_next_even_table_with_the_highest_number_as_the_bye() -> None:
    three = berger_table(3)
    assert three == (
        RoundRobinRound(1, (Pairing(1, 1, 2, 3),), 1),
        RoundRobinRound(2, (Pairing(2, 1, 1, 2),), 3),
        RoundRobinRound(3, (Pairing(3, 1, 3, 1),), 2),
    )
    five = berger_table(5)
    assert [rnd.bye for rnd in five] == [1, 4, 2, 5, 3]
    # The tables are numbered again from 1 without the bye's pair.
    assert [[(p.round, p.table) for p in rnd.pairings] for rnd in five] == [
        [(r, 1), (r, 2)] for r in range(1, 6)
    ]
    assert rendered(5) == ["2-5 3-4", "5-3 1-2", "3-1 4-5", "1-4 2-3", "4-2 5-1"]


def test_an_even_field_has_no_bye_and_every_round_its_number() -> None:
    six = berger_table(6)
    assert [rnd.number for rnd in six] == [1, 2, 3, 4, 5]
    assert all(rnd.bye is None for rnd in six)
    assert [[(p.round, p.table) for p in rnd.pairings] for rnd in six] == [
        [(r, 1), (r, 2), (r, 3)] for r in range(1, 6)
    ]


def test_two_participants_meet_once_the_first_with_white() -> None:
    assert berger_table(2) == (RoundRobinRound(1, (Pairing(1, 1, 1, 2),), None),)


def test_a_round_robin_needs_at_least_two_participants() -> None:
    for players in (1, 0, -3):
        with pytest.raises(ValueError, match=r"^a round robin needs at least two participants$"):
            berger_table(players)


def test_c07_15_2_two_teams_that_met_once_are_a_complete_round_robin() -> None:
    assert is_complete_round_robin(["A", "B"], [("A", "B")]) is True
    assert is_complete_round_robin(["A", "B"], [("A", "B"), ("B", "A")]) is True  # a double round robin
    assert is_complete_round_robin(["A", "B"], []) is False


def test_c07_15_2_a_double_round_robin_counts_when_every_two_met_twice() -> None:
    single: list[tuple[str, str | None]] = [
        ("A", "B"), ("C", None), ("B", "C"), ("A", None), ("C", "A"), ("B", None)
    ]  # fmt: skip
    swapped: list[tuple[str, str | None]] = [
        ("B", "A"),
        ("C", None),
        ("C", "B"),
        ("A", None),
        ("A", "C"),
        ("B", None),
    ]
    assert is_complete_round_robin(["A", "B", "C"], single + swapped) is True
    assert is_complete_round_robin(["A", "B", "C"], single + swapped[:2]) is False


def test_a_single_team_or_none_is_never_a_round_robin() -> None:
    assert is_complete_round_robin(["A"], [("A", None)]) is False
    assert is_complete_round_robin(["A", "A"], [("A", None)]) is False  # one name, listed twice
    assert is_complete_round_robin([], []) is False


def test_a_match_with_a_team_not_listed_or_against_itself_is_not_a_round_robin() -> None:
    teams = ["A", "B"]
    assert is_complete_round_robin(teams, [("A", "B"), ("A", "X")]) is False
    assert is_complete_round_robin(teams, [("A", "B"), ("X", "A")]) is False
    assert is_complete_round_robin(teams, [("A", "B"), ("A", "A")]) is False
    # Only the bye's missing opponent is skipped: a listed team's bye changes nothing.
    assert is_complete_round_robin(teams, [("A", "B"), ("B", None), ("A", None)]) is True


def test_one_unlisted_team_in_a_match_is_enough_to_refuse_even_when_the_counts_would_fit() -> None:
    # Three pairs met once, as three teams would, but one of them is against a team not listed.
    teams = ["A", "B", "C"]
    assert is_complete_round_robin(teams, [("A", "B"), ("A", "C"), ("B", "X")]) is False
    assert is_complete_round_robin(teams, [("A", "B"), ("A", "C"), ("X", "B")]) is False
    assert is_complete_round_robin(teams, [("A", "B"), ("A", "C"), ("B", "C")]) is True
