"""Play-off duels (docs/rules.md §5): two matches, match points decide, game points never break a tie."""

import pytest

from orchestrator.domain.knockout import (
    ArmageddonResult,
    DuelMatch,
    DuelReason,
    DuelRecord,
    KnockoutError,
    Ruling,
    decide_duel,
    duel_match_colours,
)
from orchestrator.domain.scoring import GameResult, MatchForfeit, match_game_points

R = GameResult
TO_WHITE = {"1": R.WHITE_WINS, "½": R.DRAW, "0": R.BLACK_WINS, "*": R.PENDING}


def m(match_no: int, first_scores: str) -> DuelMatch:
    """A match from the duel's first team's scores, board by board ("1 ½ 0 1 ½ ½")."""
    colours = duel_match_colours(match_no)
    results = []
    for colour, score in zip(colours, first_scores.split(), strict=True):
        result = TO_WHITE[score]
        results.append(result if colour == "W" else result.reversed())
    return DuelMatch(tuple(results))


def duel(*matches: DuelMatch, **extra: object) -> DuelRecord:
    return DuelRecord("IX", "India", "Poland", tuple(matches), **extra)  # type: ignore[arg-type]


def test_first_named_team_has_white_on_odd_boards_in_match_one_and_on_even_boards_in_match_two() -> None:
    assert duel_match_colours(1) == ("W", "B", "W", "B", "W", "B")
    assert duel_match_colours(2) == ("B", "W", "B", "W", "B", "W")
    whites = sum(c == "W" for match_no in (1, 2) for c in duel_match_colours(match_no))
    assert whites == 6
    with pytest.raises(KnockoutError):
        duel_match_colours(3)


def test_match_builder_scores_the_first_team_whatever_its_colours() -> None:
    assert match_game_points(m(1, "1 1 ½ 0 0 1").results, a_is_first_named=True) == (7, 5)
    assert match_game_points(m(2, "1 1 ½ 0 0 1").results, a_is_first_named=False) == (7, 5)


def test_a_team_winning_both_matches_wins_the_duel_on_match_points() -> None:
    outcome = decide_duel(duel(m(1, "1 ½ 1 ½ ½ ½"), m(2, "½ 1 0 1 ½ ½")))
    assert outcome.reason is DuelReason.MATCH_POINTS
    assert outcome.winner == "India" and outcome.loser == "Poland"
    assert outcome.mp == (4, 0)
    assert outcome.gp == (8 + 7, 4 + 5)
    assert "India wins 4–0 on match points" in outcome.sentence
    assert "match 1 4.0–2.0, match 2 3.5–2.5" in outcome.sentence


def test_a_win_and_a_draw_win_the_duel() -> None:
    outcome = decide_duel(duel(m(1, "½ ½ ½ ½ ½ ½"), m(2, "0 0 ½ ½ 1 ½")))
    assert outcome.mp == (1, 3)
    assert outcome.winner == "Poland"
    assert outcome.reason is DuelReason.MATCH_POINTS


def test_game_points_never_break_a_duel_tie() -> None:
    # India wins match 1 by 5½–½ and loses match 2 by 2½–3½: far ahead on game points, still level.
    outcome = decide_duel(duel(m(1, "1 1 1 1 1 ½"), m(2, "½ ½ 0 ½ 1 0")))
    assert outcome.gp == (11 + 5, 1 + 7)
    assert outcome.mp == (2, 2)
    assert outcome.reason is DuelReason.ARMAGEDDON_NEEDED
    assert not outcome.is_decided and outcome.winners == ()


def test_a_win_each_then_an_armageddon_drawn_by_black_sends_blacks_team_through() -> None:
    level = duel(m(1, "1 ½ 1 ½ ½ 0"), m(2, "0 ½ 0 ½ 1 ½"))
    assert decide_duel(level).reason is DuelReason.ARMAGEDDON_NEEDED
    played = DuelRecord(**{**_fields(level), "armageddon": ArmageddonResult("India", R.DRAW)})
    outcome = decide_duel(played)
    assert outcome.reason is DuelReason.ARMAGEDDON
    assert outcome.winner == "Poland"
    assert "drawn with Black" in outcome.sentence


def test_two_drawn_matches_and_an_armageddon_won_by_white() -> None:
    level = duel(
        m(1, "½ ½ ½ ½ ½ ½"), m(2, "1 0 1 0 ½ ½"), armageddon=ArmageddonResult("Poland", R.WHITE_WINS)
    )
    outcome = decide_duel(level)
    assert outcome.mp == (2, 2)
    assert outcome.reason is DuelReason.ARMAGEDDON
    assert outcome.winner == "Poland"


def test_an_armageddon_won_by_black_and_one_lost_on_time_by_black_go_opposite_ways() -> None:
    matches = (m(1, "½ ½ ½ ½ ½ ½"), m(2, "½ ½ ½ ½ ½ ½"))
    black_wins = decide_duel(duel(*matches, armageddon=ArmageddonResult("India", R.BLACK_WINS)))
    white_wins = decide_duel(duel(*matches, armageddon=ArmageddonResult("India", R.WHITE_WINS)))
    assert black_wins.winner == "Poland"
    assert white_wins.winner == "India"


def test_an_armageddon_player_who_forfeits_loses_the_duel() -> None:
    matches = (m(1, "½ ½ ½ ½ ½ ½"), m(2, "½ ½ ½ ½ ½ ½"))
    outcome = decide_duel(duel(*matches, armageddon=ArmageddonResult("India", R.BLACK_WINS_FORFEIT)))
    assert outcome.winner == "Poland"
    assert outcome.reason is DuelReason.FORFEIT
    both = decide_duel(duel(*matches, armageddon=ArmageddonResult("India", R.DOUBLE_FORFEIT)))
    assert both.reason is DuelReason.NEEDS_RULING and not both.is_decided


def test_a_duel_is_pending_until_both_matches_are_final() -> None:
    assert decide_duel(duel()).reason is DuelReason.PENDING
    assert decide_duel(duel(m(1, "1 1 1 1 1 1"))).reason is DuelReason.PENDING
    outcome = decide_duel(duel(m(1, "1 1 1 1 1 1"), m(2, "1 1 1 * ½ ½")))
    assert outcome.reason is DuelReason.PENDING
    assert outcome.mp == (2, 0) and "not decided yet" in outcome.sentence


def test_a_team_defaulting_its_second_match_loses_it_zero_six_and_with_it_the_duel() -> None:
    outcome = decide_duel(duel(m(1, "½ ½ ½ ½ ½ ½"), DuelMatch(forfeit=MatchForfeit.A_WINS)))
    assert outcome.gp == (6 + 12, 6 + 0)
    assert outcome.mp == (3, 1)
    assert outcome.winner == "India"
    assert outcome.reason is DuelReason.FORFEIT
    assert "Poland forfeited a match" in outcome.sentence and "by forfeit" in outcome.sentence


def test_a_team_that_won_match_one_and_then_defaults_goes_to_armageddon_level() -> None:
    # The forfeit costs match 2 only (docs/rules.md §5); a withdrawal would cost every remaining game.
    outcome = decide_duel(duel(m(1, "1 ½ ½ ½ ½ ½"), DuelMatch(forfeit=MatchForfeit.B_WINS)))
    assert outcome.mp == (2, 2)
    assert outcome.reason is DuelReason.ARMAGEDDON_NEEDED


def test_a_team_withdrawing_mid_duel_loses_its_remaining_games_and_the_duel() -> None:
    outcome = decide_duel(duel(m(1, "1 1 1 1 ½ ½"), withdrawn="India"))
    assert outcome.reason is DuelReason.WITHDRAWAL
    assert outcome.winner == "Poland"
    assert outcome.mp == (2, 2)  # match 2 counted 0–6; the withdrawn team forfeits the rest
    assert "India withdrew; Poland goes through" in outcome.sentence


def test_joint_winners_are_recorded_with_the_reason() -> None:
    final = DuelRecord(
        "XI",
        "Russia",
        "India",
        (m(1, "½ ½ ½ ½ ½ ½"), m(2, "1 1 ½ ½ ½ 1")),
        ruling=Ruling(("India", "Russia"), "organiser's decision after the disconnection appeal"),
    )
    outcome = decide_duel(final)
    assert outcome.reason is DuelReason.JOINT_WINNERS
    assert outcome.winners == ("Russia", "India")
    assert outcome.winner is None and outcome.loser is None
    assert "joint winners: organiser's decision after the disconnection appeal" in outcome.sentence


def test_a_ruling_needs_a_reason_and_teams_of_the_duel() -> None:
    with pytest.raises(KnockoutError, match="reason"):
        decide_duel(duel(ruling=Ruling(("India",), " ")))
    with pytest.raises(KnockoutError, match="one or both teams"):
        decide_duel(duel(ruling=Ruling(("USA",), "typo")))
    single = decide_duel(duel(ruling=Ruling(("Poland",), "India's team broke fair-play rules")))
    assert single.reason is DuelReason.RULING and single.winner == "Poland"


def test_inconsistent_records_are_refused_with_a_clear_message() -> None:
    with pytest.raises(KnockoutError, match="5 results for 6 boards"):
        decide_duel(duel(DuelMatch((R.DRAW,) * 5)))
    with pytest.raises(KnockoutError, match="won on match points"):
        decide_duel(
            duel(m(1, "1 1 1 1 1 1"), m(2, "1 1 1 1 1 1"), armageddon=ArmageddonResult("India", R.DRAW))
        )
    with pytest.raises(KnockoutError, match="USA does not play"):
        decide_duel(duel(withdrawn="USA"))


def _fields(record: DuelRecord) -> dict[str, object]:
    return {name: getattr(record, name) for name in record.__slots__}
