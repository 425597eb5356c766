"""C.04.6 colours worked by hand: the Type A colour preference of art. 1.7.1 and the last rule of the
colour allocation, art. 4.3.9 (docs/swiss.md, "The engines")."""

from __future__ import annotations

import pytest

from orchestrator.domain.swiss.c046 import Team, colour_preference, colours


@pytest.mark.parametrize(
    ("csq", "expected"),
    [
        # Art. 1.7.1: White when the colour difference is below -1 ...
        ("bbwb", "w"),
        ("bbb", "w"),
        # ... or is 0 or -1 after Black in the last two played matches;
        ("wwbb", "w"),
        ("wbb", "w"),
        # Black symmetrically;
        ("wwbw", "b"),
        ("bbww", "b"),
        ("bww", "b"),
        # otherwise none.
        ("", ""),
        ("wb", ""),
        ("wbw", ""),
        ("bwb", ""),
        ("bbwbw", ""),
        ("wwbwb", ""),
    ],
)
def test_the_type_a_colour_preference(csq: str, expected: str) -> None:
    assert colour_preference(csq.count("w") - csq.count("b"), csq) == expected


def team(tpn: int, csq: str) -> Team:
    cod = csq.count("w") - csq.count("b")
    return Team(
        tpn, f"T{tpn}", 0, 0, 1, len(csq), cod, csq, colour_preference(cod, csq), False, False, frozenset()
    )


@pytest.mark.parametrize(("csq", "first_colour"), [("bw", "w"), ("wb", "b"), ("wbbw", "w"), ("bwwb", "b")])
def test_a_first_team_that_has_not_played_takes_the_other_team_s_last_colour(
    csq: str, first_colour: str
) -> None:
    """Art. 4.3.9: equal scores, the first team (the smaller TPN, art. 4.2.3) has played no match and the
    other, with no preference and no colour difference, alternates: the first team gets its last colour."""
    first, second = team(1, ""), team(2, csq)
    white, black = colours(first, second, "w")
    assert (white if first_colour == "w" else black) is first
