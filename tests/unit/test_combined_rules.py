"""The combined classification (Olympiad 2026 regulations, Appendix 2.II): sections whose standings keep
different numbers of tie-breaks, only TB1-TB3 summed beside the match points, and a tie below the top."""

from __future__ import annotations

from orchestrator.domain.combined import SectionPlace, combined_classification


def line(federation: str, place: int, mp: int, *tiebreaks: int) -> SectionPlace:
    return SectionPlace(federation, f"{federation} team", place, mp, tiebreaks)


def test_tie_breaks_are_summed_where_each_section_has_them_and_only_three_count() -> None:
    # Open keeps four tie-breaks, Women two: TB1 and TB2 add both sections, TB3 the Open's only; TB4 is
    # not a key of the combined classification.
    sections = {
        "open": [line("NOR", 1, 10, 5, 6, 7, 8), line("IND", 2, 9, 1, 1, 1, 1)],
        "women": [line("IND", 1, 10, 3, 4), line("NOR", 2, 9, 2, 2)],
    }
    rows = combined_classification(sections)
    # Place sums 3 each; match points 19 each; TB1 NOR 7, IND 4.
    assert [(r.place, r.federation, r.place_sum, r.keys) for r in rows] == [
        (1, "NOR", 3, (19, 7, 8, 7)),
        (2, "IND", 3, (19, 4, 5, 1)),
    ]


def test_a_tie_below_the_top_shares_the_second_place() -> None:
    sections = {
        "open": [line("NOR", 1, 10), line("IND", 2, 8), line("USA", 2, 8)],
        "women": [line("NOR", 1, 10), line("IND", 2, 8), line("USA", 2, 8)],
    }
    rows = combined_classification(sections)
    assert [(r.place, r.federation) for r in rows] == [(1, "NOR"), (2, "IND"), (2, "USA")]
