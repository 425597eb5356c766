import pytest

from orchestrator.adapters.match_csv import MatchCsvError, read_matches
from orchestrator.domain.scoring import MatchForfeit

HEADER = "round,team_a,team_b,score_a,score_b,forfeit\n"


def problems(text: str, **kwargs) -> list[tuple[int, str]]:
    with pytest.raises(MatchCsvError) as caught:
        read_matches(HEADER + text, boards=6, **kwargs)
    return [(p.line, p.message) for p in caught.value.problems]


def test_scores_in_decimal_and_vulgar_halves_read_as_half_points() -> None:
    table = read_matches(HEADER + "1,Alpha,Beta,3.5,2½,\n1,Gamma,,3,,\n", boards=6)
    assert table.teams == ("Alpha", "Beta", "Gamma")
    first, bye = table.matches
    assert (first.gp_a, first.gp_b) == (7, 5)
    assert bye.is_bye and bye.gp_a == 6


def test_whole_match_forfeits_keep_the_awarded_points() -> None:
    table = read_matches(HEADER + "2,Alpha,Beta,6,0,+-\n3,Alpha,Gamma,0,0,--\n", boards=6)
    assert [m.forfeit for m in table.matches] == [MatchForfeit.A_WINS, MatchForfeit.DOUBLE]


def test_every_bad_line_is_reported_with_its_number() -> None:
    found = problems(
        "1,Alpha,Beta,3.5,2.5,\n"
        "1,Gamma,Delta,three,3,\n"
        "2,Alpha,Alpha,3,3,\n"
        "2,Beta,Gamma,7,0,\n"
        "1,Alpha,Delta,3,3,\n"
        "3,Beta,Gamma,3,3,x\n"
    )
    lines = {line for line, _ in found}
    assert lines == {3, 4, 5, 6, 7}
    text = " | ".join(message for _, message in found)
    assert "malformed score 'three'" in text
    assert "cannot meet itself" in text
    assert "more than the 6 boards allow" in text
    assert "already paired in round 1 (line 2)" in text
    assert "forfeit 'x'" in text


def test_unknown_team_is_named_when_the_pool_list_is_given() -> None:
    found = problems("1,Alpha,Betta,3,3,\n", teams=["Alpha", "Beta"])
    assert found == [(2, "unknown team 'Betta'")]


def test_a_pairing_given_twice_is_refused() -> None:
    found = problems("1,Alpha,Beta,3,3,\n1,Beta,Alpha,3,3,\n")
    assert [line for line, _ in found] == [3, 3]


def test_a_wrong_header_is_refused() -> None:
    with pytest.raises(MatchCsvError, match="header"):
        read_matches("round,a,b\n1,A,B\n", boards=6)


def test_a_round_written_with_a_superscript_digit_is_a_problem_of_its_line_not_a_crash() -> None:
    assert problems("²,Alpha,Beta,3,3,\n") == [(2, "round '²' is not a positive whole number")]
