"""Olympiad Pairing Rules 2022, art. 6 (the order of the score groups, the floaters) and art. 7.4, as the
engine reads them from the Samarkand 2026 pairings (docs/swiss.md, "Floaters" and "Replaying a real
Olympiad": a group above the median first chooses floats that let the teams on or above the median be
paired without a team from below it; ``_Round.apart``), worked by hand on small groups.

Teams are numbers 1..n named A, B, C, ... in art. 3.2 order, with only what art. 6 and 7 read: match
points, the teams met and board-1 colours (``groups_paired`` of ``tests/support/swiss_groups.py``)."""

from __future__ import annotations

from tests.support.swiss_groups import groups_paired


def test_art_6_a_median_group_whose_teams_met_takes_its_floaters_from_the_group_above() -> None:
    # Samarkand 2026 round 2 in small: before round 2 (median 1 MP) A-D won (2 MP), E and F drew each
    # other (1 MP, the whole median group), G and H lost (0 MP). The 2-MP group floats its two lowest,
    # C and D, down to E and F (C meets the highest, E; D meets F), so nobody comes up from below: A-B,
    # G-H. Read without it, A-C and B-D would keep the 2-MP group whole and G, H would float up to E, F.
    assert groups_paired([2, 2, 2, 2, 1, 1, 0, 0], [(5, 6)], 1) == {"AB", "CE", "DF", "GH"}


def test_art_6_a_group_above_the_median_floats_whole_when_only_that_keeps_the_median_group_apart() -> None:
    # The same with a 2-MP group of two: keeping A-B together would leave C and D (who met) to the two
    # teams from below, so both float down (A meets the highest, C) and E-F stay below.
    assert groups_paired([2, 2, 1, 1, 0, 0], [(3, 4)], 1) == {"AC", "BD", "EF"}


def test_art_6_the_floater_chosen_is_one_the_median_group_can_pair_without_a_team_from_below() -> None:
    # A, B, C on 4 MP above the median (2), D, E, F on it, G, H below. The lowest, C, has met the whole
    # median group: floated, it could only meet G or H, which would bring a team up from below. So the
    # next nearest, B, floats (it meets D, the highest); A-C, E-F on the median, G-H below. Trying the
    # sets of one floater goes on past C: it does not stop at the first set that fails this.
    met = [(3, 4), (3, 5), (3, 6)]
    assert groups_paired([4, 4, 4, 2, 2, 2, 0, 0], met, 2) == {"AC", "BD", "EF", "GH"}


def test_art_7_4_above_the_median_floats_as_before_when_the_teams_below_cannot_pair_alone() -> None:
    # The group of art. 7.4 (A, B must have White, C had White twice) on 6 MP, D, E, F on 4 MP, G, H on
    # the median (2), and I, J below it, who have met: I and J must meet teams from above whatever floats,
    # so no float keeps the two sides apart, and the floats are chosen as without that reading: B floats
    # (C would leave A-B, which breaks 7.3 either way) and meets D; A-C; E-F; I and J come up to the
    # median group and meet its teams (J the lowest, H).
    found = groups_paired([6, 6, 6, 4, 4, 4, 2, 2, 0, 0], [(9, 10)], 2, ["bb", "bb", "ww"])
    assert found == {"AC", "BD", "EF", "GI", "HJ"}


def test_art_7_4_below_the_median_the_float_that_respects_art_7_3_is_chosen_whatever_is_below() -> None:
    # Median 8: A, B on it; C, D, E on 4 MP and F, G, H on 2 MP below it. C has met D-H, so it can only
    # meet A or B: the teams below the median cannot pair among themselves. The 2-MP group floats up
    # one team: its highest, F (White twice), would leave G-H, who must both have White (art. 7.3), so G
    # floats (art. 7.4) and meets the lowest of the 4-MP group, E; F-H. D and C float on up: D meets the
    # lowest of the median group, B; C meets A.
    colours = ["", "", "", "", "", "ww", "bb", "bb"]
    met = [(3, n) for n in range(4, 9)]
    assert groups_paired([8, 8, 4, 4, 4, 2, 2, 2], met, 8, colours) == {"AC", "BD", "EG", "FH"}
