"""Golden play-off edge cases (docs/rules.md §5, docs/knockout.md): colours in each match, a withdrawal's
forfeits, whole-match forfeits, a ruling, the records refused and why, and Armageddon nominees missing on
one or both sides."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from orchestrator.domain.knockout import (
    ArmageddonPhase,
    ArmageddonResult,
    ArmageddonState,
    DuelMatch,
    DuelReason,
    DuelRecord,
    KnockoutError,
    Ruling,
    armageddon_result,
    choose_colour,
    decide_duel,
    draw_category,
    draw_chooser,
    duel_match_colours,
    reveal,
    start_armageddon,
)
from orchestrator.domain.scoring import GameResult, MatchForfeit
from orchestrator.domain.teams import Category, Player, Sex, TeamFormat

R = GameResult
DRAWS = (R.DRAW,) * 6
LEVEL = (DuelMatch(DRAWS), DuelMatch(DRAWS))


def board_one_white_wins() -> DuelMatch:
    return DuelMatch((R.WHITE_WINS, *DRAWS[1:]))


def board_two_white_wins() -> DuelMatch:
    return DuelMatch((R.DRAW, R.WHITE_WINS, *DRAWS[2:]))


def test_the_first_team_is_white_on_board_one_in_match_one_and_on_board_two_in_match_two() -> None:
    # Match 1: the first team has White on odd boards, so board 1's 1-0 is its win: 1 + 5 × ½ = 3.5-2.5.
    # Match 2: colours reversed, board 2's 1-0 is again the first team's win: 3.5-2.5. 2 + 2 MP to 0.
    outcome = decide_duel(
        DuelRecord("QF1", "India", "Poland", (board_one_white_wins(), board_two_white_wins()))
    )
    assert (outcome.winner, outcome.mp, outcome.gp) == ("India", (4, 0), (14, 10))


def test_the_second_team_wins_the_boards_it_has_white_on() -> None:
    # Match 1, board 2: the second team is White; match 2, board 1: the second team is White.
    outcome = decide_duel(
        DuelRecord("QF1", "India", "Poland", (board_two_white_wins(), board_one_white_wins()))
    )
    assert (outcome.winner, outcome.mp, outcome.gp) == ("Poland", (0, 4), (10, 14))


def test_a_withdrawal_forfeits_the_remaining_match_to_the_other_team() -> None:
    # India won match 1 3.5-2.5 (2 MP) and then withdrew: match 2 is Poland's 6-0 forfeit win (2 MP).
    record = DuelRecord("QF1", "India", "Poland", (board_one_white_wins(),), withdrawn="India")
    outcome = decide_duel(record)
    assert (outcome.reason, outcome.winners, outcome.mp, outcome.gp) == (
        DuelReason.WITHDRAWAL,
        ("Poland",),
        (2, 2),
        (7, 5 + 12),  # half-points: 3.5 + 0, 2.5 + 6
    )
    assert "match 2 0.0–6.0 by forfeit" in outcome.sentence
    # The second team withdrawing before match 1: both matches go 6-0 to the first team.
    outcome = decide_duel(DuelRecord("QF1", "India", "Poland", withdrawn="Poland"))
    assert (outcome.winners, outcome.mp, outcome.gp) == (("India",), (4, 0), (24, 0))


def test_a_duel_record_with_a_third_match_is_refused() -> None:
    with pytest.raises(KnockoutError, match="a duel has two matches, got 3"):
        decide_duel(DuelRecord("QF1", "India", "Poland", (*LEVEL, DuelMatch(DRAWS))))


def test_the_first_team_forfeiting_a_match_loses_it_six_nil_and_the_duel_by_forfeit() -> None:
    # Match 1: India did not play, Poland wins 6-0 (12 half-points, 2 MP). Match 2: 3-3 (1 MP each).
    # MP 0 + 1 = 1 against 2 + 1 = 3; half-points 0 + 6 = 6 against 12 + 6 = 18.
    record = DuelRecord("QF1", "India", "Poland", (DuelMatch(forfeit=MatchForfeit.B_WINS), DuelMatch(DRAWS)))
    outcome = decide_duel(record)
    assert (outcome.reason, outcome.winners, outcome.mp, outcome.gp) == (
        DuelReason.FORFEIT,
        ("Poland",),
        (1, 3),
        (6, 18),
    )
    assert outcome.sentence == (
        "India – Poland: match 1 0.0–6.0 by forfeit, match 2 3.0–3.0. "
        "Poland wins 3–1 on match points; India forfeited a match."
    )


def test_a_double_forfeit_match_scores_nothing_and_counts_as_a_forfeit_by_the_loser() -> None:
    # Match 1: neither team played, 0-0 in match points and game points. Match 2: board 2's 1-0 is
    # India's (White on even boards in match 2), 3.5-2.5 and 2 MP. India wins 2-0; Poland forfeited too.
    record = DuelRecord(
        "QF1", "India", "Poland", (DuelMatch(forfeit=MatchForfeit.DOUBLE), board_two_white_wins())
    )
    outcome = decide_duel(record)
    assert (outcome.reason, outcome.winners, outcome.mp, outcome.gp) == (
        DuelReason.FORFEIT,
        ("India",),
        (2, 0),
        (7, 5),
    )
    assert outcome.sentence == (
        "India – Poland: match 1 0.0–0.0 by forfeit, match 2 3.5–2.5. "
        "India wins 2–0 on match points; Poland forfeited a match."
    )


def test_a_ruling_for_one_team_names_it_and_the_reason_whatever_the_matches_said() -> None:
    ruling = Ruling(("Poland",), "India fielded an ineligible player in match 2")
    outcome = decide_duel(DuelRecord("QF1", "India", "Poland", LEVEL, ruling=ruling))
    assert (outcome.reason, outcome.winners, outcome.winner) == (DuelReason.RULING, ("Poland",), "Poland")
    assert outcome.sentence == (
        "India – Poland: match 1 3.0–3.0, match 2 3.0–3.0. "
        "Poland goes through by decision: India fielded an ineligible player in match 2."
    )


@pytest.mark.parametrize(
    ("record", "message"),
    [
        (DuelRecord("QF1", "India", "India"), "duel QF1: a team cannot meet itself (India)"),
        (
            DuelRecord("QF1", "India", "Poland", (DuelMatch(DRAWS), DuelMatch(DRAWS[:5]))),
            "duel QF1 match 2: 5 results for 6 boards",
        ),
        (
            DuelRecord("QF1", "India", "Poland", (DuelMatch(DRAWS), DuelMatch(DRAWS, MatchForfeit.A_WINS))),
            "duel QF1 match 2: board results and a match forfeit",
        ),
        (
            DuelRecord("QF1", "India", "Poland", LEVEL, armageddon=ArmageddonResult("Chile", R.DRAW)),
            "duel QF1: Armageddon White Chile is not in the duel",
        ),
    ],
)
def test_a_duel_record_that_breaks_the_rules_is_refused_with_the_match_and_the_reason(
    record: DuelRecord, message: str
) -> None:
    with pytest.raises(KnockoutError, match=f"^{re.escape(message)}$"):
        decide_duel(record)


def test_a_duel_has_no_third_match_to_give_colours_for() -> None:
    with pytest.raises(KnockoutError, match=r"^a duel has matches 1 and 2, not 3$"):
        duel_match_colours(3)


def test_an_armageddon_drawn_with_black_goes_to_black_whichever_team_is_second() -> None:
    for white, black in (("India", "Poland"), ("Poland", "India")):
        record = DuelRecord("QF1", "India", "Poland", LEVEL, armageddon=ArmageddonResult(white, R.DRAW))
        assert decide_duel(record).winner == black


# --- Armageddon nominees missing ---------------------------------------------------------------------

FORMAT = TeamFormat((Category.OPEN,) * 6, cutoff_year=2000)
DEADLINE = datetime(2020, 8, 30, 12, 0, tzinfo=UTC)
PLAYER = Player("Ana Costa", "ana_costa", Sex.MALE, 1991, 2500)
SEED = b"armageddon edge cases"


def revealed_at_deadline(first_board: Player | None, second_board: Player | None) -> ArmageddonState:
    """An open-category Armageddon where nobody nominated: each default is board 1 of match 2."""
    first_lineup = (first_board, *[PLAYER] * 5)
    second_lineup = (second_board, *[PLAYER] * 5)
    state = start_armageddon(
        duel_key="QF1",
        teams=("India", "Poland"),
        team_format=FORMAT,
        deadline=DEADLINE,
        match2_lineups=(first_lineup, second_lineup),
    )
    return reveal(draw_category(state, SEED), DEADLINE)


def test_both_armageddon_nominees_missing_is_a_double_forfeit_that_staff_must_rule_on() -> None:
    state = revealed_at_deadline(None, None)
    assert (state.phase, state.result, state.white) == (ArmageddonPhase.FINISHED, R.DOUBLE_FORFEIT, "India")
    outcome = decide_duel(DuelRecord("QF1", "India", "Poland", LEVEL, armageddon=armageddon_result(state)))
    assert (outcome.reason, outcome.winners) == (DuelReason.NEEDS_RULING, ())


@pytest.mark.parametrize(
    ("first", "second", "goes_through"), [(None, PLAYER, "Poland"), (PLAYER, None, "India")]
)
def test_one_armageddon_nominee_missing_gives_the_other_team_white_and_a_forfeit_win(
    first: Player | None, second: Player | None, goes_through: str
) -> None:
    state = revealed_at_deadline(first, second)
    assert (state.result, state.white) == (R.WHITE_WINS_FORFEIT, goes_through)
    outcome = decide_duel(DuelRecord("QF1", "India", "Poland", LEVEL, armageddon=armageddon_result(state)))
    assert (outcome.reason, outcome.winners) == (DuelReason.FORFEIT, (goes_through,))


@pytest.mark.parametrize(("colour", "white_if_india_chooses"), [("W", "India"), ("B", "Poland")])
def test_the_chosen_colour_gives_white_to_the_chooser_or_to_the_other_team(
    colour: str, white_if_india_chooses: str
) -> None:
    state = revealed_at_deadline(PLAYER, PLAYER)
    for n in range(40):
        chosen = draw_chooser(state, SEED + bytes([n]))
        white = choose_colour(chosen, chosen.chooser, colour)  # type: ignore[arg-type]
        other = "Poland" if white_if_india_chooses == "India" else "India"
        assert white.white == (white_if_india_chooses if chosen.chooser == "India" else other)


# --- the sentences the public pages show ---------------------------------------------------------------

LEVEL_HEAD = "India – Poland: match 1 3.0–3.0, match 2 3.0–3.0. Level 2–2 on match points"


@pytest.mark.parametrize(
    ("armageddon", "sentence"),
    [
        (None, f"{LEVEL_HEAD}: an Armageddon game decides."),
        (
            ArmageddonResult("Poland", R.WHITE_WINS),
            f"{LEVEL_HEAD}; Armageddon 1-0 (Poland White, India Black): White won, Poland goes through.",
        ),
        (
            ArmageddonResult("India", R.BLACK_WINS),
            f"{LEVEL_HEAD}; Armageddon 0-1 (India White, Poland Black): Black won, Poland goes through.",
        ),
        (
            ArmageddonResult("Poland", R.DRAW),
            f"{LEVEL_HEAD}; Armageddon ½-½ (Poland White, India Black): drawn with Black, "
            "India goes through.",
        ),
        (
            ArmageddonResult("India", R.BLACK_WINS_FORFEIT),
            f"{LEVEL_HEAD}; India forfeited the Armageddon game, Poland goes through.",
        ),
        (
            ArmageddonResult("India", R.WHITE_WINS_FORFEIT),
            f"{LEVEL_HEAD}; Poland forfeited the Armageddon game, India goes through.",
        ),
        (
            ArmageddonResult("India", R.DOUBLE_FORFEIT),
            f"{LEVEL_HEAD}; both Armageddon players forfeited: staff must rule.",
        ),
    ],
)
def test_a_level_duel_tells_in_one_sentence_how_the_armageddon_decided_it(
    armageddon: ArmageddonResult | None, sentence: str
) -> None:
    outcome = decide_duel(DuelRecord("QF1", "India", "Poland", LEVEL, armageddon=armageddon))
    assert (outcome.key, outcome.sentence) == ("QF1", sentence)


def test_a_duel_before_its_first_result_is_pending_with_no_winner() -> None:
    outcome = decide_duel(DuelRecord("QF1", "India", "Poland"))
    assert (outcome.reason, outcome.winners, outcome.is_decided) == (DuelReason.PENDING, (), False)
    assert outcome.sentence == "India – Poland: no match played; the duel is not decided yet."
