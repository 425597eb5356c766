"""The Olympiad Pairing Rules 2022 engine (``olympiad-2022``, docs/swiss.md "Pairing systems"), worked by
hand on small events: ranking by match points then initial number (art. 3.2), the bye to the lowest-ranked
eligible team (art. 4), no rematch (art. 6), and the board-1 colours of art. 7.

Teams are named A, B, C, ... in initial pairing-number order (A is number 1). Game points are in
half-points: a four-board match shares 8 (8-0 is 4-0, 5-3 is 2½-1½, 4-4 a drawn match)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from orchestrator.domain.scoring import MatchForfeit, MatchRecord
from orchestrator.domain.swiss import (
    SwissPairingError,
    SwissState,
    SwissTeam,
    initial_ranking,
    initial_ranking_key,
    olympiad2022,
)
from orchestrator.domain.swiss.c046 import Team
from orchestrator.domain.swiss.model import RATING_FLOOR
from orchestrator.domain.swiss.olympiad2022 import (
    Olympiad2022Pairer,
    art7_colours,
    banned,
    is_above_median,
    pair_score_groups,
    transpose,
    wish,
)
from tests.support.swiss_groups import entry, groups_paired

PAIRER = Olympiad2022Pairer()


def stage(names: str, matches: Sequence[MatchRecord] = ()) -> SwissState:
    teams = tuple(SwissTeam(name) for name in names)
    return SwissState(teams, boards=4, rounds=5, matches=tuple(matches), pairing="olympiad-2022")


def m(rnd: int, first: str, second: str | None, gp_first: int) -> MatchRecord:
    return MatchRecord(rnd, first, second, gp_first, 8 - gp_first if second else 0)


def paired(state: SwissState) -> tuple[list[tuple[str, str]], str | None]:
    found = PAIRER.pair_round(state, state.rounds_played + 1)
    return [(p.first, p.second) for p in found.pairings], found.bye


def team(name: str, csq: str, tpn: int = 1) -> Team:
    """A team as art. 7 sees it: its board-1 colours of the matches played (``w``/``b``)."""
    cod = csq.count("w") - csq.count("b")
    return Team(tpn, name, 0, 0, 1, len(csq), cod, csq, "", False, False, frozenset())


def test_round_one_pairs_the_halves_and_alternates_the_drawn_colour_down_the_boards() -> None:
    # Six teams, one score group: n/2 = 3, so 1 v 4, 2 v 5, 3 v 6 (A-D, B-E, C-F). Art. 7.2: White was
    # drawn for board 1's higher-ranked team (A); board 2's (B) gets Black, board 3's (C) White again.
    assert paired(stage("ABCDEF")) == ([("A", "D"), ("E", "B"), ("C", "F")], None)


def test_the_bye_goes_to_the_lowest_ranked_team_by_match_points_then_initial_number() -> None:
    # Round 1 of five teams: all on 0 MP, so the lowest-ranked is the highest number, E (art. 4.1).
    assert paired(stage("ABCDE"))[1] == "E"
    # After round 1 (A beat C 5-3, D beat B 6-2, E had the bye worth 1 MP): A 2, D 2, E 1, B 0, C 0.
    # Art. 3.2 ranks A, D (2 MP, numbers 1 and 4), E (1), B, C (0 MP, numbers 2 and 3): C is lowest.
    state = stage("ABCDE", [m(1, "A", "C", 5), m(1, "D", "B", 6), m(1, "E", None, 4)])
    # 2 MP: A v D; E alone on 1 MP floats down to B on 0 MP; C has the bye. Colours: A and D both had
    # White and wish Black, with identical histories the higher-ranked A gets Black (art. 7.6); E has
    # no colour yet (the bye, art. 7.7), B had Black and gets White.
    assert paired(state) == ([("D", "A"), ("B", "E")], "C")


def test_no_team_receives_the_bye_twice_nor_after_winning_by_default() -> None:
    # Round 1: A had the bye; B v C was forfeited, C winning by default. Round 2: B (0 MP, lowest) had
    # the bye; A beat C 8-0. Before round 3: A 1+2 = 3, C 2+0 = 2, B 0+1 = 1 MP. The lowest, B, had the
    # bye (art. 4.2.1), C won by default (4.2.2) and A had the bye: no team is eligible.
    forfeit = MatchRecord(1, "B", "C", 0, 8, MatchForfeit.B_WINS)
    state = stage("ABC", [m(1, "A", None, 4), forfeit, m(2, "B", None, 4), m(2, "A", "C", 8)])
    with pytest.raises(SwissPairingError) as refused:
        paired(state)
    assert str(refused.value) == (
        "round 3 cannot be paired by olympiad-2022: no team may receive the bye and leave the others "
        "pairable without a rematch; teams to pair: A, B, C"
    )
    assert (refused.value.round_no, refused.value.teams) == (3, ("A", "B", "C"))
    # Five teams. Round 1: A beat C 8-0, B beat D 8-0, E had the bye; round 2: A-B 4-4, C beat E 8-0,
    # D had the bye. Before round 3: A 2+1 = 3, B 2+1 = 3, C 0+2 = 2, D 0+1 = 1, E 1+0 = 1 MP, ranked
    # A, B, C, D, E (art. 3.2). E and D, the two lowest, have had the bye: it goes to C.
    rounds = [m(1, "A", "C", 8), m(1, "B", "D", 8), m(1, "E", None, 4)]
    rounds += [m(2, "A", "B", 4), m(2, "C", "E", 8), m(2, "D", None, 4)]
    assert paired(stage("ABCDE", rounds))[1] == "C"


def test_a_rematch_in_the_halves_is_avoided_by_transposing_the_bottom_half() -> None:
    # Round 1 was the halves of six (A-D, B-E, C-F), every match drawn 4-4, so all have 1 MP: the median
    # group (art. 6), ranked A..F again. 1 v 4 (A-D), 2 v 5 (B-E) and 3 v 6 (C-F) would all be rematches.
    # The top half A, B, C keeps its order and the bottom half D, E, F is transposed (``transpose``):
    # A takes the first free team it may meet, E; B may meet D, but C-F would be left, so B takes F and
    # C takes D. This is the first order of the bottom half (D E F, D F E, E D F, E F D, ...) with no
    # rematch: E F D.
    state = stage("ABCDEF", [m(1, "A", "D", 4), m(1, "B", "E", 4), m(1, "C", "F", 4)])
    pairs, bye = paired(state)
    assert {frozenset(p) for p in pairs} == {frozenset("AE"), frozenset("BF"), frozenset("CD")}
    assert bye is None
    # Colours (art. 7.5, alternate): A, B, C had White in round 1 and now have Black.
    assert pairs == [("E", "A"), ("F", "B"), ("D", "C")]


def test_the_pairing_avoids_pairs_whose_colours_art_7_3_forbids() -> None:
    # Round 1: A-B, D-C, E-F; round 2: A-C, D-E, F-B, all drawn: every team has 2 MP, ranking A..F.
    # Board-1 colours so far: A ww, D ww (no third White), B bb, C bb (no third Black), E wb, F bw.
    rounds = [m(1, "A", "B", 4), m(1, "D", "C", 4), m(1, "E", "F", 4)]
    rounds += [m(2, "A", "C", 4), m(2, "D", "E", 4), m(2, "F", "B", 4)]
    state = stage("ABCDEF", rounds)
    # The halves 1 v 4 would be A v D: both must have Black (7.3), so the pair is left out; A takes E,
    # B takes D (bb v ww), C takes F. Colours: A Black, E White; B White, D Black; C (bb) White.
    assert paired(state) == ([("E", "A"), ("B", "D"), ("C", "F")], None)


def test_art_7_3_gives_way_when_no_other_pairing_exists() -> None:
    # Four teams, all drawn: A ww, C ww, B bb, D bb; A has played B and D, C has played D and B, so the
    # only pairing is A-C and B-D, each pair wanting the same colour. Art. 7.4: the pairing is made.
    rounds = [m(1, "A", "B", 4), m(1, "C", "D", 4), m(2, "A", "D", 4), m(2, "C", "B", 4)]
    pairs, _ = paired(stage("ABCD", rounds))
    # Both pairs: equal colour difference and identical histories, so the higher-ranked team (A, B)
    # gets its wish (A Black, B White).
    assert pairs == [("C", "A"), ("B", "D")]


def test_art_7_colour_allocation_rule_by_rule() -> None:
    # 7.2: no history on either side: the drawn colour to the higher-ranked team on odd boards.
    a, b = team("A", ""), team("B", "")
    assert art7_colours(a, b, 1, "w") == (a, b) and art7_colours(a, b, 2, "w") == (b, a)
    assert art7_colours(a, b, 1, "b") == (b, a)
    # 7.5 equalise: A bwb (difference -1) wants White, B wbw (+1) wants Black.
    a, b = team("A", "bwb"), team("B", "wbw")
    assert (wish(a), wish(b)) == ("w", "b") and art7_colours(a, b, 1, "w") == (a, b)
    # 7.5 alternate: equal colours, the opposite of the last one; B wb wants White, A bw Black.
    a, b = team("A", "bw"), team("B", "wb")
    assert art7_colours(a, b, 1, "w") == (b, a)
    # Same wish (Black): the larger colour difference gets it. A wbbw (0) v B wwb (+1): B Black.
    a, b = team("A", "wbbw"), team("B", "wwb")
    assert (wish(a), wish(b)) == ("b", "b") and art7_colours(a, b, 1, "w") == (a, b)
    # 7.6: same wish (White), same difference (0): walking back, b=b, w=w, then A had w, B had b:
    # A gets the colour it did not have then, Black.
    a, b = team("A", "bwwb"), team("B", "wbwb")
    assert art7_colours(a, b, 1, "w") == (b, a)
    # 7.3 before 7.5: A bbbww (-1) wishes White but a third White in a row is banned, so A gets Black
    # although B bw (0) wishes Black too.
    a, b = team("A", "bbbww"), team("B", "bw")
    assert wish(a) == "w" and banned(a, "w") and art7_colours(a, b, 1, "w") == (b, a)
    # 7.3: a colour difference beyond +2 is banned (ww + w = +3), +2 is not (wbw + w).
    assert banned(team("A", "ww"), "w") and not banned(team("A", "wbw"), "w")
    assert banned(team("A", "bwbbb"), "b") and not banned(team("A", "bwb"), "b")


# Olympiad Pairing Rules 2022, art. 3.1 (initial ranking), art. 6 (order of the groups, floaters, the
# halves' exchanges). Teams below are numbers (their initial pairing number) with only what art. 6 reads:
# match points and the teams met; no colours yet, so art. 7.3 bars nothing.


def test_art_3_1_an_unrated_player_counts_as_the_minimum_fide_rating() -> None:
    # X: 2000 and three unrated players: (2000 + 3 x 1400) / 4 = 1550 ahead of Y's 1500 (with 0 for the
    # unrated, X would be 500 and last).
    x, y = SwissTeam("X", (2000, 0, 0, 0)), SwissTeam("Y", (1500, 1500, 1500, 1500))
    assert RATING_FLOOR == 1400
    assert [t.name for t in initial_ranking([y, x])] == ["X", "Y"]
    # Equal averages: the fifth player decides; an unrated fifth (1400) is ahead of a 1300.
    z, w = SwissTeam("Z", (1500,) * 4 + (0,)), SwissTeam("W", (1500,) * 4 + (1300,))
    assert [t.name for t in initial_ranking([w, z])] == ["Z", "W"]
    # No fifth player at all counts 0; then the names (art. 3.1.3).
    v, u = SwissTeam("V", (1500,) * 4), SwissTeam("U", (1500,) * 4)
    assert [t.name for t in initial_ranking([v, w, u])] == ["W", "U", "V"]
    assert initial_ranking_key(x)[:2] == (-1550, -0) and initial_ranking_key(z)[1] == -1400


def test_art_6_the_median_is_half_the_match_points_played_for() -> None:
    # Before round 6 (five rounds, 2 MP a win): the median is 5 MP.
    assert [is_above_median(mp, 6, 2) for mp in (6, 5, 4)] == [1, 0, -1]
    # Before round 1 everybody is on the median (0); before round 2 it is 1 MP.
    assert is_above_median(0, 1, 2) == 0 and is_above_median(2, 2, 2) == 1 and is_above_median(0, 2, 2) == -1
    # 3-1-0 scoring: before round 2 the median is 1.5, so 1 MP is below it and nobody is on it.
    assert is_above_median(1, 2, 3) == -1 and is_above_median(3, 2, 3) == 1


def test_art_6_a_floater_down_meets_the_highest_team_of_the_next_group_it_may_meet() -> None:
    # Above the median (2): A, B, C on 6 MP and D-H on 4 MP; I, J on the median. C, the lowest of the odd
    # top group, floats down; it has met D, so it meets E, the highest it may meet. D, F, G, H are
    # then paired by halves: D-G, F-H. (A floater heading the lower group and the halves would give
    # C-F, D-G, E-H.)
    assert groups_paired([6, 6, 6, 4, 4, 4, 4, 4, 2, 2], [(3, 4)], 2) == {"AB", "CE", "DG", "FH", "IJ"}


def test_art_6_below_the_median_the_groups_are_paired_from_the_bottom_up() -> None:
    # Median 4: A, B on it; C-G on 2 MP, H, I, J on 0 MP, both below. The bottom group goes first: it is
    # odd, so its highest team, H, floats up and meets the lowest team of the 2-MP group it may meet:
    # H has met G, so F. I-J; C, D, E, G by halves: C-E, D-G; then the median group A-B.
    assert groups_paired([4, 4, 2, 2, 2, 2, 2, 0, 0, 0], [(8, 7)], 4) == {"AB", "FH", "IJ", "CE", "DG"}
    # Paired from the top down instead, the odd 2-MP group would float its lowest team, G, which has met
    # H, down to I: G-I and H-J.


def test_art_6_the_median_group_comes_last_and_takes_the_floaters_of_both_sides() -> None:
    # A (4 MP) above the median 2, B-E on it, F (0 MP) below. A floats down and meets the highest median
    # team it may meet (it has met B: C); F floats up and meets the lowest (E); B-D are left.
    assert groups_paired([4, 2, 2, 2, 2, 0], [(1, 2)], 2) == {"AC", "EF", "BD"}
    # Nobody on the median: the floaters of both sides meet each other.
    assert groups_paired([4, 4, 4, 0, 0, 0], [], 2) == {"AB", "CD", "EF"}


def test_art_6_a_floater_that_may_meet_nobody_in_the_next_group_floats_on() -> None:
    # A (6 MP) has met B and C (4 MP): it floats on to the median group (2 MP) and meets D there;
    # B-C, and E-F.
    assert groups_paired([6, 4, 4, 2, 2, 2], [(1, 2), (1, 3)], 2) == {"AD", "BC", "EF"}


def test_art_6_the_halves_take_the_first_transposition_of_the_bottom_half_as_in_chennai() -> None:
    def pairs(
        order: Sequence[int], clashes: Sequence[tuple[int, int]], *, across: bool = False
    ) -> list[tuple[int, ...]]:
        blocked: dict[int, set[int]] = {n: set() for n in order}
        for a, b in clashes:
            blocked[a].add(b)
            blocked[b].add(a)
        return sorted(tuple(sorted(p)) for p in transpose(list(order), blocked, across=across))

    # No clash: 1 v 8, 2 v 9, ... (fourteen teams).
    assert pairs(range(1, 15), []) == [(n, n + 7) for n in range(1, 8)]
    # Above the median (Chennai round 5, the 7-MP group): each top team from the top takes the first
    # free bottom team it may meet. 2 may not meet its own 7: 8; 3 takes the first free, 7; 4 may not
    # meet 9: 10; 5 takes 9; 6-11.
    found = pairs(range(2, 12), [(2, 7), (3, 8), (4, 9)], across=True)
    assert found == [(2, 8), (3, 7), (4, 10), (5, 9), (6, 11)]
    # Below the median (Chennai round 6, the 4-MP group) the group is handed over reversed: the bottom
    # half from its lowest team up, each taking the lowest free top team it may meet. 14 may meet
    # neither 7 nor 6: 5; 13 takes 7, 12 takes 6; 11 may not meet 4: 3; 10 takes 4.
    found = pairs(range(14, 0, -1), [(7, 14), (6, 14), (4, 11)])
    assert found == [(1, 8), (2, 9), (3, 11), (4, 10), (5, 14), (6, 12), (7, 13)]
    # A choice is kept only if the free teams can still be paired: 2 may meet only 1, so 1 takes neither
    # 3 nor 4 but 2, and 3-4 are left.
    assert pairs(range(1, 5), [(2, 3), (2, 4)]) == [(1, 2), (3, 4)]
    # ``across`` (above the median, as in Chennai round 9): top against bottom whenever the group can be
    # paired so. 6 may meet only 1 of the top half: without ``across`` 1 takes 4 and 2-3, 5-6 follow;
    # with it, 1-6, 2-4, 3-5.
    assert pairs(range(1, 7), [(2, 6), (3, 6)]) == [(1, 4), (2, 3), (5, 6)]
    assert pairs(range(1, 7), [(2, 6), (3, 6)], across=True) == [(1, 6), (2, 4), (3, 5)]
    # When it cannot (1 and 2 may meet nobody below), ``across`` gives way.
    assert pairs(range(1, 5), [(1, 3), (1, 4), (2, 3), (2, 4)], across=True) == [(1, 2), (3, 4)]


def test_art_7_allocation_edge_cases() -> None:
    # 7.2 applies only when neither team has played: with one history, its wish decides on every board.
    a, b = team("A", ""), team("B", "w")
    assert art7_colours(a, b, 2, "w") == (a, b)  # B wishes Black, so A has White even on board 2
    # Only the higher-ranked team has a wish (B has no played match): it gets it.
    a, b = team("A", "w"), team("B", "")
    assert art7_colours(a, b, 1, "w") == (b, a)
    assert wish(team("A", "")) == ""
    # Same wish, the higher-ranked team with the larger colour difference gets it: A wwb (+1) v B wbbw (0),
    # both wish Black: A Black.
    a, b = team("A", "wwb"), team("B", "wbbw")
    assert art7_colours(a, b, 1, "w") == (b, a)
    # 7.6 walking back: A wbwb, B bwwb both wish White with difference 0; b = b, w = w, then A had b and B
    # had w: A gets White.
    a, b = team("A", "wbwb"), team("B", "bwwb")
    assert art7_colours(a, b, 1, "w") == (a, b)
    # Histories of different lengths that agree as far as the shorter goes: the higher-ranked team's wish.
    a, b = team("A", "wb"), team("B", "bwwb")
    assert art7_colours(a, b, 1, "b") == (a, b)
    # 7.3: a difference of +3 is banned even without three in a row.
    assert banned(team("A", "wwbw"), "w") and banned(team("A", "bbwb"), "b")


def test_the_round_names_the_teams_not_paired_and_numbers_the_boards() -> None:
    state = SwissState(
        (
            SwissTeam("A"),
            SwissTeam("B"),
            SwissTeam("C", absent=frozenset({1})),
            SwissTeam("D"),
            SwissTeam("E"),
        ),
        boards=4,
        rounds=5,
        pairing="olympiad-2022",
    )
    found = PAIRER.pair_round(state, 1)
    assert found.not_paired == ("C",)
    assert [(p.board, p.first, p.second) for p in found.pairings] == [(1, "A", "D"), (2, "E", "B")]
    assert found.bye is None


def test_a_round_where_one_team_has_met_every_other_is_refused() -> None:
    # A has met B, C and D; only B-C is left unplayed (B and C sat out round 3), so round 4 has no pairing.
    teams = (
        SwissTeam("A"),
        SwissTeam("B", absent=frozenset({3})),
        SwissTeam("C", absent=frozenset({3})),
        SwissTeam("D"),
    )
    rounds = [m(1, "A", "B", 4), m(1, "C", "D", 4), m(2, "A", "C", 4), m(2, "B", "D", 4), m(3, "A", "D", 4)]
    state = SwissState(teams, boards=4, rounds=5, matches=tuple(rounds), pairing="olympiad-2022")
    with pytest.raises(SwissPairingError) as refused:
        PAIRER.pair_round(state, 4)
    assert str(refused.value) == (
        "round 4 cannot be paired by olympiad-2022: every way of pairing them repeats a match already "
        "played; teams to pair: A, B, C, D"
    )


def test_when_too_many_sets_of_floaters_would_be_tried_one_matching_chooses_the_same_floaters(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # With no set tried at all (the limit at 0), the weighted matching picks the floaters: going down the
    # lowest team, going up the highest, as the search does.
    monkeypatch.setattr(olympiad2022, "MAX_FLOAT_SETS", 0)
    assert groups_paired([6, 6, 6, 4, 4, 4, 4, 4, 2, 2], [(3, 4)], 2) == {"AB", "CE", "DG", "FH", "IJ"}
    assert groups_paired([4, 4, 2, 2, 2, 2, 2, 0, 0, 0], [(8, 7)], 4) == {"AB", "FH", "IJ", "CE", "DG"}
    # C has met the whole 4-MP group: it floats on to the median group (I); the 4-MP group then floats
    # its lowest, H, to J.
    met = [(3, n) for n in range(4, 9)]
    assert groups_paired([6, 6, 6, 4, 4, 4, 4, 4, 2, 2], met, 2) == {"AB", "CI", "DF", "EG", "HJ"}
    # H (0 MP) has met the whole 2-MP group: it floats on up to the median group and meets its lowest, B;
    # the 2-MP group floats its highest, C, up to A.
    met = [(8, n) for n in range(3, 8)]
    assert groups_paired([4, 4, 2, 2, 2, 2, 2, 0, 0, 0], met, 4) == {"AC", "BH", "DF", "EG", "IJ"}


def test_art_7_4_a_group_floats_the_team_whose_departure_lets_it_respect_art_7_3() -> None:
    # A, B, C on 6 MP (above the median 2); A and B have had Black twice and must have White (7.3), C
    # had White twice. Floating C, the lowest, would leave A-B, which breaks 7.3 either way; floating B
    # leaves A-C. B meets D, the highest of the 4-MP group; E-F; G-H on the median.
    colours = ["bb", "bb", "ww"]
    assert groups_paired([6, 6, 6, 4, 4, 4, 2, 2], [], 2, colours) == {"AC", "BD", "EF", "GH"}
    # Below the median (8) the same from the other end: F, G, H on 2 MP, G and H must have White, so
    # the highest, F, cannot float (G-H): G floats up and meets the lowest of the 4-MP group, E.
    colours = ["", "", "", "", "", "ww", "bb", "bb"]
    assert groups_paired([8, 8, 4, 4, 4, 2, 2, 2], [], 8, colours) == {"AB", "CD", "EG", "FH"}


def test_art_7_4_when_every_way_breaks_art_7_3_the_fewest_floaters_still_float() -> None:
    # A, B, C all must have White: whoever floats, the pair left breaks 7.3; art. 7.4: no extra floater,
    # the lowest (C) floats as usual and A-B is made.
    colours = ["bb", "bb", "bb"]
    assert groups_paired([6, 6, 6, 4, 4, 4, 2, 2], [], 2, colours) == {"AB", "CD", "EF", "GH"}


def test_art_6_a_group_that_cannot_pair_itself_floats_all_its_teams() -> None:
    # A, B, C (6 MP) have all met one another: the three float down and meet D, E, F (4 MP), the highest
    # first; G-H.
    met = [(1, 2), (1, 3), (2, 3)]
    assert groups_paired([6, 6, 6, 4, 4, 4, 2, 2], met, 2) == {"AD", "BE", "CF", "GH"}


def test_art_6_each_choice_keeps_the_teams_not_yet_paired_pairable() -> None:
    # C floats down from 6 MP; it may meet D, but H (on the median) has met E, F and G, so C-D would
    # leave E, F, G, H unpairable: C meets E. D and F cannot stay together (H would be left with G, met),
    # so both float on: D meets H, F meets G.
    met = [(8, 5), (8, 6), (8, 7)]
    assert groups_paired([6, 6, 6, 4, 4, 4, 2, 2], met, 2) == {"AB", "CE", "DH", "FG"}


def test_art_6_a_floater_stranded_in_a_group_does_not_stop_the_next_floater() -> None:
    # A, B, C (6 MP) have met one another and float down; A has also met D, E and F and floats on to
    # the median group (G); B and C meet D and E; F, left alone, floats on to H.
    met = [(1, 2), (1, 3), (2, 3), (1, 4), (1, 5), (1, 6)]
    assert groups_paired([6, 6, 6, 4, 4, 4, 2, 2], met, 2) == {"AG", "BD", "CE", "FH"}


def test_art_7_4_a_floater_meets_a_team_breaking_art_7_3_rather_than_float_on() -> None:
    # C floats down and must have White, as must D, E and F: it still meets D (7.4); E-F too.
    colours = ["", "", "bb", "bb", "bb", "bb", "", ""]
    assert groups_paired([6, 6, 6, 4, 4, 4, 2, 2], [], 2, colours) == {"AB", "CD", "EF", "GH"}


def test_boards_follow_the_ranking_of_each_pairs_higher_team() -> None:
    # Round 1: C beat A 8-0, D beat B 8-0. Round 2 ranks C, D (2 MP), A, B (0 MP): board 1 C-D (both had
    # Black; same history, so the higher-ranked C gets its wish, White), board 2 A-B (both had White: A,
    # higher-ranked, gets Black).
    state = stage("ABCD", [m(1, "A", "C", 0), m(1, "B", "D", 0)])
    assert paired(state) == ([("C", "D"), ("B", "A")], None)


def test_art_7_5_opposite_wishes_with_equal_colour_differences_each_get_their_wish() -> None:
    # A wwb (+1) wishes Black, B bbw (-1) wishes White: the wishes differ, so each team gets its own,
    # whatever the history walked back would say (7.6 settles only equal wishes).
    a, b = team("A", "wwb"), team("B", "bbw")
    assert (wish(a), wish(b)) == ("b", "w")
    assert art7_colours(a, b, 1, "w") == (b, a)
    assert art7_colours(b, a, 1, "w") == (b, a)


def test_art_6_a_top_team_that_may_meet_no_bottom_team_takes_the_next_top_team_first() -> None:
    # Six teams, halves 1-3 and 4-6; 1 has met 4, 5 and 6, so it takes the first free team below it in
    # the top half, 2 (then 3-4, 5-6), not 3.
    blocked: dict[int, set[int]] = {n: set() for n in range(1, 7)}
    for other in (4, 5, 6):
        blocked[1].add(other)
        blocked[other].add(1)
    assert transpose(list(range(1, 7)), blocked, across=False) == [(1, 2), (3, 4), (5, 6)]


def test_when_the_limit_is_reached_above_the_median_the_group_is_still_paired_top_against_bottom(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Six teams on 6 MP above the median (2): F may meet only A of the top half A, B, C. With the limit
    # at 0 the weighted matching chooses no floater and the halves still go top against bottom, as in
    # Chennai round 9 (``transpose``, ``across``): A-F, B-D, C-E; G-H on the median.
    scores, met = [6, 6, 6, 6, 6, 6, 2, 2], [(2, 6), (3, 6)]
    assert groups_paired(scores, met, 2) == {"AF", "BD", "CE", "GH"}
    monkeypatch.setattr(olympiad2022, "MAX_FLOAT_SETS", 0)
    assert groups_paired(scores, met, 2) == {"AF", "BD", "CE", "GH"}


@pytest.mark.parametrize(("limit", "expected"), [(1, {"AB", "CD"}), (2, {"AC", "BD"}), (3, {"AC", "BD"})])
def test_the_limit_counts_every_set_of_floaters_tried_and_the_last_one_allowed_is_still_tried(
    monkeypatch: pytest.MonkeyPatch, limit: int, expected: set[str]
) -> None:
    # The group of art. 7.4 above (A, B bb, C ww on 6 MP): the first set tried, C, leaves A-B, which
    # breaks art. 7.3; the second, B, leaves A-C. With a limit of two sets or more the second is tried;
    # with one, the search stops after C and the first set found pairable is kept (A-B, C floats).
    monkeypatch.setattr(olympiad2022, "MAX_FLOAT_SETS", limit)
    found = groups_paired([6, 6, 6, 4, 4, 4, 2, 2], [], 2, ["bb", "bb", "ww"])
    assert found == expected | {"EF", "GH"}


def test_a_floater_stranded_in_a_group_keeps_its_ranking_place_among_the_teams_left() -> None:
    # Art. 3.2 ranks by match points, then number: E (number 5) alone on 6 MP is first, then A, B, C on
    # 4 MP and D, F on the median (2). E has met A, B and C: it stays unpaired in the 4-MP group, ranked
    # above them (E, A, B, C). The group floats its lowest team, C, with E (A-B stay): E first, so E
    # meets the highest median team, D, and C meets F.
    met = {5: {1, 2, 3}, 1: {5}, 2: {5}, 3: {5}}
    scores = {5: 6, 1: 4, 2: 4, 3: 4, 4: 2, 6: 2}
    teams = {n: entry(n, mp, sorted(met.get(n, ()))) for n, mp in scores.items()}
    order = sorted(teams, key=lambda n: (-scores[n], n))
    assert order == [5, 1, 2, 3, 4, 6]
    side = {n: (mp > 2) - (mp < 2) for n, mp in scores.items()}
    assert {frozenset(p) for p in pair_score_groups(teams, order, side)} == {
        frozenset({1, 2}),
        frozenset({5, 4}),
        frozenset({3, 6}),
    }


def test_art_7_4_a_median_group_that_cannot_respect_art_7_3_breaks_it_in_the_fewest_pairs() -> None:
    # All four on the median: A and B have had White twice (7.3: no third), A has met C and D. The only
    # pairing is A-B, which breaks 7.3, and C-D, which does not.
    assert groups_paired([2, 2, 2, 2], [(1, 3), (1, 4)], 2, ["ww", "ww"]) == {"AB", "CD"}


@pytest.mark.parametrize("limit", [7, 2000])
def test_art_7_4_three_floaters_leave_the_pair_that_respects_art_7_3(
    monkeypatch: pytest.MonkeyPatch, limit: int
) -> None:
    # A-E on 6 MP above the median (2), F, G, H on 4 MP, I, J on the median. D and E have met every team
    # of their group, so no single floater leaves it pairable (the five sets of one are tried first):
    # three float, D, E and one more. Floating C (the nearest) leaves A-B, both bound to White by art.
    # 7.3; floating B leaves A-C (C had White twice): B, D, E float and meet F, G, H; I-J. The seventh
    # set tried is that one, so a limit of seven sets still finds it.
    monkeypatch.setattr(olympiad2022, "MAX_FLOAT_SETS", limit)
    met = [(4, 1), (4, 2), (4, 3), (4, 5), (5, 1), (5, 2), (5, 3)]
    found = groups_paired([6, 6, 6, 6, 6, 4, 4, 4, 2, 2], met, 2, ["bb", "bb", "ww"])
    assert found == {"AC", "BF", "DG", "EH", "IJ"}


def test_art_6_across_the_halves_every_team_of_both_halves_meets_one_of_the_other_half() -> None:
    # Eight teams above the median, halves 1-4 and 5-8: 7 may meet only 1 of the top half, 8 only 1 and
    # 2. Top against bottom is possible (1-7, 2-8, 3-5, 4-6), so no pair is made inside a half, neither
    # 3-4 nor 7-8, although the top teams from the top would otherwise take 5 and 6 first.
    met = [(2, 4), (2, 7), (3, 7), (3, 8), (4, 7), (4, 8), (5, 7), (6, 8)]
    blocked: dict[int, set[int]] = {n: set() for n in range(1, 9)}
    for a, b in met:
        blocked[a].add(b)
        blocked[b].add(a)
    assert transpose(list(range(1, 9)), blocked, across=True) == [(1, 7), (2, 8), (3, 5), (4, 6)]


def test_art_7_4_past_the_limit_a_group_that_cannot_respect_art_7_3_is_still_paired(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The group of the test above (A, B, C all bound to White), with no set of floaters tried: the
    # weighted matching floats C and A-B is made all the same (art. 7.4).
    monkeypatch.setattr(olympiad2022, "MAX_FLOAT_SETS", 0)
    assert groups_paired([6, 6, 6, 4, 4, 4, 2, 2], [], 2, ["bb", "bb", "bb"]) == {"AB", "CD", "EF", "GH"}
