"""Combined classification (Olympiad 2026 Appendix 2.II), computed by hand."""

from __future__ import annotations

from fractions import Fraction

import pytest

from orchestrator.domain.combined import SectionPlace, combined_classification


def line(fed: str, place: int, mp: int, tb1: float, tb2: float, tb3: int) -> SectionPlace:
    return SectionPlace(fed, f"{fed} team", place, mp, (Fraction(tb1), Fraction(tb2), tb3))


def test_sum_of_places_then_the_summed_tie_breaks() -> None:
    open_ = [
        line("IND", 1, 19, 400, 32, 150),
        line("USA", 2, 18, 390, 30, 140),
        line("UZB", 3, 18, 380, 31, 145),
        line("NOR", 4, 17, 370, 29, 130),
        line("TUR", 5, 16, 360, 28, 120),
    ]
    women = [
        line("USA", 1, 19, 410, 31, 150),
        line("IND", 3, 17, 370, 30, 139),
        line("UZB", 2, 18, 385, 30, 141),
        line("NOR", 4, 16, 350, 28, 125),
    ]
    rows = combined_classification({"open": open_, "women": women})
    # Place sums: USA 3, IND 4, UZB 5, NOR 8; TUR has no women's team and comes last.
    assert [(r.place, r.federation, r.place_sum) for r in rows] == [
        (1, "USA", 3),
        (2, "IND", 4),
        (3, "UZB", 5),
        (4, "NOR", 8),
        (5, "TUR", 5),
    ]
    assert rows[0].keys == (37, 800, 61, 290)  # MP 18+19, TB1 390+410, TB2 30+31, TB3 140+150
    assert rows[-1].complete is False and rows[0].complete is True


def test_equal_place_sums_go_to_match_points_then_each_tie_break_and_full_ties_share() -> None:
    open_ = [
        line("AAA", 1, 18, 300, 30, 100),
        line("BBB", 2, 18, 300, 30, 100),
        line("CCC", 3, 17, 300, 30, 100),
        line("DDD", 4, 17, 300, 30, 100),
    ]
    women = [
        line("BBB", 1, 19, 300, 30, 100),
        line("AAA", 2, 18, 300, 30, 100),
        line("DDD", 3, 16, 300, 31, 100),
        line("CCC", 4, 16, 300, 30, 100),
    ]
    rows = combined_classification({"open": open_, "women": women})
    # AAA and BBB: place sum 3; MP 36 v 37 → BBB first. CCC and DDD: sum 7, MP 33 each, TB1 600 each,
    # TB2 60 v 61 → DDD first.
    assert [(r.place, r.federation) for r in rows] == [(1, "BBB"), (2, "AAA"), (3, "DDD"), (4, "CCC")]
    tied = combined_classification(
        {
            "open": [line("XXX", 1, 10, 1, 1, 1), line("YYY", 2, 10, 1, 1, 1)],
            "women": [line("YYY", 1, 10, 1, 1, 1), line("XXX", 2, 10, 1, 1, 1)],
        }
    )
    assert [(r.place, r.federation) for r in tied] == [(1, "XXX"), (1, "YYY")]


def test_a_federation_with_two_teams_in_one_section_is_refused() -> None:
    with pytest.raises(ValueError, match="two teams in section 'open'"):
        combined_classification({"open": [line("AAA", 1, 1, 1, 1, 1), line("AAA", 2, 1, 1, 1, 1)]})
