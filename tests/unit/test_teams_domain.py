"""Teams, players, board categories and eligibility (docs/rules.md §1, §10), the FIDE data a roster may give
(FIDE B.02 8.3.3, TRF record 001) and the organiser's extra teams (Olympiad Pairing Rules 2.1-2.2)."""

from __future__ import annotations

import pytest

from orchestrator.domain.teams import (
    MAX_FIDE_ID,
    NOT_ORGANISER,
    ODD_FIELD,
    TOO_MANY,
    BoardOrder,
    Category,
    OrderBreach,
    Player,
    RosterEntry,
    Seated,
    Sex,
    Team,
    TeamFormat,
    board_order_breaches,
    extra_team_problem,
    extra_team_refusal,
    fide_data_problems,
    is_eligible,
    section_admits,
    section_problem,
    team_ranks,
)


def player(name: str, sex: Sex = Sex.MALE, birth_year: int = 1990, rating: int = 2000) -> Player:
    return Player(name, name.lower(), sex, birth_year, rating)


# --- FIDE data ------------------------------------------------------------------------------------------


def test_complete_fide_data_has_no_problem() -> None:
    for fide_id in (1, MAX_FIDE_ID):
        assert fide_data_problems(fide_id=fide_id, title="GM", federation="NOR", k=10) == []
    assert fide_data_problems(fide_id=None, title=None, federation=None, k=None) == []
    for title in ("GM", "IM", "WGM", "FM", "WIM", "CM", "WFM", "WCM"):
        assert fide_data_problems(fide_id=None, title=title, federation=None, k=None) == []
    for k in (10, 20, 40):
        assert fide_data_problems(fide_id=None, title=None, federation=None, k=k) == []


def test_every_wrong_fide_field_is_named_with_its_sentence() -> None:
    problems = fide_data_problems(fide_id=0, title="XX", federation="nor", k=30)
    assert problems == [
        ("fide_id", "fide_id must be a FIDE number between 1 and 99999999999, found 0"),
        ("title", "title must be one of GM, IM, WGM, FM, WIM, CM, WFM, WCM, found 'XX'"),
        ("federation", "federation must be a three-letter code such as NOR, found 'nor'"),
        ("k", "k must be one of 10, 20, 40 (FIDE B.02 8.3.3), found 30"),
    ]
    assert [
        field for field, _ in fide_data_problems(fide_id=MAX_FIDE_ID + 1, title=None, federation="NO", k=None)
    ] == [
        "fide_id",
        "federation",
    ]
    assert fide_data_problems(fide_id=None, title=None, federation="NORW", k=None) != []


# --- board order ----------------------------------------------------------------------------------------


def test_a_fixed_order_is_broken_by_a_player_ranked_after_one_on_a_lower_board() -> None:
    a, b, c = Seated("A", 1, 2000), Seated("B", 2, 2100), Seated("C", 3, 1900)
    assert board_order_breaches(BoardOrder(fixed=True), [a, b, c]) == []
    assert board_order_breaches(BoardOrder(fixed=True), [b, None, a, c]) == [OrderBreach("fixed", 1, b, 3, a)]
    assert board_order_breaches(BoardOrder(), [c, b, a]) == []  # no rule, no breach


def test_a_rating_order_allows_the_tolerance_and_no_more() -> None:
    low, high = Seated("L", 1, 2000), Seated("H", 2, 2050)
    assert board_order_breaches(BoardOrder(rating_tolerance=50), [low, high]) == []
    assert board_order_breaches(BoardOrder(rating_tolerance=49), [low, high]) == [
        OrderBreach("rating", 1, low, 2, high)
    ]
    assert board_order_breaches(BoardOrder(rating_tolerance=0), [high, low]) == []
    # Both rules at once, every pair by the higher board then the lower.
    x, y, z = Seated("X", 3, 1800), Seated("Y", 1, 2000), Seated("Z", 2, 2200)
    assert board_order_breaches(BoardOrder(fixed=True, rating_tolerance=100), [x, y, z]) == [
        OrderBreach("fixed", 1, x, 2, y),
        OrderBreach("rating", 1, x, 2, y),
        OrderBreach("fixed", 1, x, 3, z),
        OrderBreach("rating", 1, x, 3, z),
        OrderBreach("rating", 2, y, 3, z),
    ]


def test_a_team_s_fixed_order_is_its_main_boards_then_its_reserves() -> None:
    # Roster order: a reserve, board 2, board 1, another reserve.
    assert team_ranks([(10, None), (11, 2), (12, 1), (13, None)]) == {12: 1, 11: 2, 10: 3, 13: 4}
    assert team_ranks([]) == {}


# --- format, eligibility, sections ----------------------------------------------------------------------


def test_a_team_format_knows_each_board_s_category() -> None:
    fmt = TeamFormat((Category.OPEN, Category.OPEN, Category.WOMEN, Category.JUNIOR), cutoff_year=2004)
    assert fmt.boards == 4
    assert [fmt.category_of(board) for board in (1, 3, 4)] == [Category.OPEN, Category.WOMEN, Category.JUNIOR]
    assert fmt.first_board_of(Category.OPEN) == 1
    assert fmt.first_board_of(Category.WOMEN) == 3
    assert fmt.first_board_of(Category.JUNIOR) == 4
    assert fmt.first_board_of(Category.GIRL) is None


@pytest.mark.parametrize(
    ("category", "sex", "born", "eligible"),
    [
        (Category.OPEN, Sex.MALE, 1950, True),
        (Category.WOMEN, Sex.FEMALE, 1950, True),
        (Category.WOMEN, Sex.MALE, 2010, False),
        (Category.JUNIOR, Sex.MALE, 2004, True),  # born in the cut-off year: junior
        (Category.JUNIOR, Sex.MALE, 2003, False),
        (Category.GIRL, Sex.FEMALE, 2004, True),
        (Category.GIRL, Sex.FEMALE, 2003, False),
        (Category.GIRL, Sex.MALE, 2010, False),
    ],
)
def test_eligibility_follows_the_category_table(
    category: Category, sex: Sex, born: int, eligible: bool
) -> None:
    # docs/rules.md §1: open anyone; women female; junior born in the cut-off year or later; girl both.
    assert is_eligible(player("P", sex, born), category, 2004) is eligible


def test_a_female_section_admits_female_players_only() -> None:
    assert section_admits("open", player("M")) is True
    assert section_admits("female", player("F", Sex.FEMALE)) is True
    assert section_admits("female", player("M")) is False
    assert (
        section_problem(player("Bob"), "Women")
        == "Bob is not female: the Women section admits female players only"
    )


def test_a_team_s_main_players_by_board_and_its_strength_rounded_down() -> None:
    roster = (
        RosterEntry(player("R", rating=2800), None, Category.OPEN),
        RosterEntry(player("Two", rating=2001), 2, Category.OPEN),
        RosterEntry(player("One", rating=2100), 1, Category.OPEN),
    )
    team = Team("Norway", "NOR", 1, roster)
    assert [p.name for p in team.main_players] == ["One", "Two"]
    assert team.strength == 2050  # (2100 + 2001) / 2 = 2050.5, rounded down (docs/rules.md §3)
    assert Team("Empty", "NOR", 2, ()).strength == 0
    assert Team("Reserves", "NOR", 3, roster[:1]).strength == 0


# --- the organiser's extra teams ------------------------------------------------------------------------


def test_only_the_organiser_enters_a_b_team_and_a_c_team_only_for_an_odd_field() -> None:
    kw = {"federation": "IND", "organiser": "IND"}
    assert extra_team_refusal(number=1, federation="NOR", organiser="IND", field_size=7) is None
    assert extra_team_refusal(number=2, federation="NOR", organiser="IND", field_size=7) == NOT_ORGANISER
    assert extra_team_refusal(number=2, federation="NOR", organiser=None, field_size=7) == NOT_ORGANISER
    assert extra_team_refusal(number=2, field_size=7, **kw) is None
    assert extra_team_refusal(number=3, field_size=8, **kw) is None  # the C team makes the field even
    assert extra_team_refusal(number=3, field_size=9, **kw) == ODD_FIELD
    assert extra_team_refusal(number=4, field_size=8, **kw) == TOO_MANY
    assert extra_team_refusal(number=0, federation="NOR", organiser="IND", field_size=7) is None


def test_the_refusals_as_sentences() -> None:
    assert extra_team_problem(number=2, federation="NOR", organiser="IND", field_size=8) == (
        "only the organising federation may enter a second team (Olympiad Pairing Rules 2.1)"
    )
    assert extra_team_problem(number=4, federation="IND", organiser="IND", field_size=8) == (
        "the organising federation enters at most 3 teams (A, B, C; Olympiad Pairing Rules 2.1–2.2)"
    )
    assert extra_team_problem(number=3, federation="IND", organiser="IND", field_size=9) == (
        "a C team is entered only to make an odd field even, and with it the field has 9 teams "
        "(Olympiad Pairing Rules 2.2)"
    )
    assert extra_team_problem(number=3, federation="IND", organiser="IND", field_size=8) is None
    assert extra_team_problem(number=1, federation="NOR", organiser="IND", field_size=9) is None
