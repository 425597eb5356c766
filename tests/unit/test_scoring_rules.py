"""Scoring rules checked inside the tests themselves (domain/scoring.py): a requested bye's points
(TRF-2026 record 240 ``F`` and ``H``; docs/trf.md "Requested byes"; FIDE C.07 16.1-16.2 reads them), a
forfeit's game points (docs/rules.md §2) and the colour words of the Armageddon chooser (docs/rules.md §5).
The records are built inside each test, so a change of the code is seen by the test that calls it."""

from __future__ import annotations

import pytest

from orchestrator.domain.scoring import (
    ByeRequest,
    Colour,
    MatchForfeit,
    MatchRecord,
    MatchScoring,
    ScoreError,
)


def test_a_full_point_bye_scores_every_board_and_a_half_point_bye_half_the_boards() -> None:
    assert ByeRequest.FULL.game_points(4) == 8
    assert ByeRequest.HALF.game_points(4) == 4
    assert ByeRequest.FULL.game_points(6) == 12
    assert ByeRequest.HALF.game_points(6) == 6


def test_a_full_point_bye_scores_a_won_match_and_a_half_point_bye_a_drawn_one() -> None:
    three_one_zero = MatchScoring(3, 1, 0)
    assert ByeRequest.FULL.match_points(three_one_zero) == 3
    assert ByeRequest.HALF.match_points(three_one_zero) == 1
    assert ByeRequest.FULL.match_points(MatchScoring()) == 2
    assert ByeRequest.HALF.match_points(MatchScoring()) == 1


def test_the_pairing_allocated_bye_has_no_requested_points() -> None:
    with pytest.raises(ScoreError, match=r"^a pairing-allocated bye's game points are the competition's$"):
        ByeRequest.NONE.game_points(4)
    with pytest.raises(ScoreError, match=r"^a pairing-allocated bye's match points are the competition's$"):
        ByeRequest.NONE.match_points(MatchScoring())


def test_the_record_of_a_requested_bye_holds_its_round_team_game_points_and_request() -> None:
    full = MatchRecord.requested_bye(2, "A", ByeRequest.FULL, 4)
    assert full == MatchRecord(2, "A", None, 8, 0, request=ByeRequest.FULL)
    half = MatchRecord.requested_bye(3, "D", ByeRequest.HALF, 6)
    assert half == MatchRecord(3, "D", None, 6, 0, request=ByeRequest.HALF)
    assert half.is_bye and not half.is_played


def test_the_chooser_s_colour_word_maps_to_its_colour_and_any_other_word_is_refused() -> None:
    assert Colour.of_word("white") is Colour.WHITE
    assert Colour.of_word("black") is Colour.BLACK
    with pytest.raises(ValueError, match=r"^'green' is not a colour word$"):
        Colour.of_word("green")


def test_only_a_forfeited_match_takes_its_game_points_from_the_forfeit() -> None:
    # docs/rules.md §2: the absent team loses 0-boards, a double forfeit scores 0-0.
    assert MatchForfeit.A_WINS.game_points(4) == (8, 0)
    assert MatchForfeit.B_WINS.game_points(4) == (0, 8)
    assert MatchForfeit.DOUBLE.game_points(4) == (0, 0)
    with pytest.raises(ScoreError, match=r"^a match without a forfeit is scored from its boards$"):
        MatchForfeit.NONE.game_points(4)
