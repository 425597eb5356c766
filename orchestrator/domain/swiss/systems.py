"""The pairing engine of each pairing system a Swiss stage can name (docs/swiss.md, "Pairing systems")."""

from __future__ import annotations

from orchestrator.domain.swiss.c046 import C046Pairer
from orchestrator.domain.swiss.model import SwissState
from orchestrator.domain.swiss.olympiad2022 import Olympiad2022Pairer
from orchestrator.domain.swiss.pairing import (
    FIDE_TEAM_SWISS,
    OLYMPIAD_2022,
    SCORE_GROUP_HALVES,
    RoundPairing,
    SwissPairer,
    SwissPairingError,
)
from orchestrator.domain.swiss.score_group_halves import ScoreGroupHalvesPairer

# How pages name each system ("Rounds are paired one at a time by ...").
SYSTEM_NAMES = {
    FIDE_TEAM_SWISS: "FIDE C.04.6, the Swiss Team Pairing System",
    OLYMPIAD_2022: "the Olympiad Pairing Rules 2022",
    SCORE_GROUP_HALVES: "score-group halves (each score group by game points, top half v bottom half)",
}


def system_name(system: str | None) -> str:
    """How pages name ``system`` (FIDE C.04.6 when the stage names none)."""
    return SYSTEM_NAMES.get(system or FIDE_TEAM_SWISS, SYSTEM_NAMES[FIDE_TEAM_SWISS])


def pairer_for(system: str, *, fide: SwissPairer | None = None) -> SwissPairer:
    """The engine of ``system``; ``fide`` pairs FIDE C.04.6 (our own engine by default, the server passes
    FIDE's)."""
    if system == FIDE_TEAM_SWISS:
        return fide or C046Pairer()
    if system == OLYMPIAD_2022:
        return Olympiad2022Pairer()
    if system == SCORE_GROUP_HALVES:
        return ScoreGroupHalvesPairer()
    raise SwissPairingError(f"unknown pairing system {system!r}", round_no=0)


class SystemPairer:
    """``SwissPairer`` that pairs each stage by the system it names (``SwissState.pairing``)."""

    def __init__(self, fide: SwissPairer | None = None) -> None:
        self.fide = fide

    def pair_round(self, state: SwissState, round_no: int) -> RoundPairing:
        return pairer_for(state.pairing, fide=self.fide).pair_round(state, round_no)
