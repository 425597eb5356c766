"""Each pairing system a Swiss stage can name has its engine and its name on the pages (docs/swiss.md,
"Pairing systems"): FIDE C.04.6 by default (our own engine unless the server hands FIDE's), the Olympiad
Pairing Rules 2022 and score-group halves; any other name is refused."""

from __future__ import annotations

import pytest

from orchestrator.domain.swiss import RoundPairing, SwissPairingError, SwissState, SwissTeam
from orchestrator.domain.swiss.c046 import C046Pairer
from orchestrator.domain.swiss.olympiad2022 import Olympiad2022Pairer
from orchestrator.domain.swiss.pairing import FIDE_TEAM_SWISS, OLYMPIAD_2022, SCORE_GROUP_HALVES
from orchestrator.domain.swiss.score_group_halves import ScoreGroupHalvesPairer
from orchestrator.domain.swiss.systems import SystemPairer, pairer_for, system_name


class Recorder:
    """A stand-in for FIDE's engine: says which state and round it was asked to pair."""

    def __init__(self) -> None:
        self.asked: list[tuple[SwissState, int]] = []

    def pair_round(self, state: SwissState, round_no: int) -> RoundPairing:
        self.asked.append((state, round_no))
        return RoundPairing(round_no, ())


def stage(pairing: str) -> SwissState:
    return SwissState(tuple(SwissTeam(name) for name in "ABCD"), boards=4, rounds=5, pairing=pairing)


def test_each_system_is_named_on_the_pages_and_a_stage_without_one_is_c046() -> None:
    assert system_name(FIDE_TEAM_SWISS) == "FIDE C.04.6, the Swiss Team Pairing System"
    assert system_name(OLYMPIAD_2022) == "the Olympiad Pairing Rules 2022"
    assert system_name(SCORE_GROUP_HALVES) == (
        "score-group halves (each score group by game points, top half v bottom half)"
    )
    assert system_name(None) == system_name("") == system_name(FIDE_TEAM_SWISS)
    assert system_name("no-such-system") == system_name(FIDE_TEAM_SWISS)


def test_each_system_has_its_own_engine() -> None:
    assert type(pairer_for(FIDE_TEAM_SWISS)) is C046Pairer
    assert type(pairer_for(OLYMPIAD_2022)) is Olympiad2022Pairer
    assert type(pairer_for(SCORE_GROUP_HALVES)) is ScoreGroupHalvesPairer


def test_fide_s_engine_when_given_pairs_c046_and_only_c046() -> None:
    fide = Recorder()
    assert pairer_for(FIDE_TEAM_SWISS, fide=fide) is fide
    assert type(pairer_for(OLYMPIAD_2022, fide=fide)) is Olympiad2022Pairer
    assert type(pairer_for(SCORE_GROUP_HALVES, fide=fide)) is ScoreGroupHalvesPairer


def test_an_unknown_system_is_refused_by_name() -> None:
    with pytest.raises(SwissPairingError, match=r"^unknown pairing system 'round-robin'$") as error:
        pairer_for("round-robin")
    assert error.value.round_no == 0


def test_a_stage_is_paired_by_the_system_it_names() -> None:
    fide = Recorder()
    state = stage(FIDE_TEAM_SWISS)
    assert SystemPairer(fide).pair_round(state, 1) == RoundPairing(1, ())
    assert fide.asked == [(state, 1)]
    halves = stage(SCORE_GROUP_HALVES)
    assert SystemPairer(fide).pair_round(halves, 1) == ScoreGroupHalvesPairer().pair_round(halves, 1)
    olympiad = stage(OLYMPIAD_2022)
    assert SystemPairer(fide).pair_round(olympiad, 1) == Olympiad2022Pairer().pair_round(olympiad, 1)
    assert len(fide.asked) == 1
    assert SystemPairer().pair_round(state, 1) == C046Pairer().pair_round(state, 1)
