"""Team Swiss stages: the state of a stage, its initial ranking, the round pairing port and the
TRF-2026 export that FIDE's checkers read (docs/swiss.md)."""

from orchestrator.domain.swiss.model import (
    ByeValue,
    ScoreAdjustment,
    SwissError,
    SwissState,
    SwissTeam,
    add_late_entry,
    bye_match,
    initial_ranking,
    initial_ranking_key,
    mark_absent,
    record_round,
    start_state,
    withdraw_team,
)
from orchestrator.domain.swiss.pairing import (
    PAIRING_SYSTEMS,
    Pairing,
    RoundPairing,
    SwissPairer,
    SwissPairingError,
    check_pairing,
    check_round_can_be_paired,
)

__all__ = [
    "PAIRING_SYSTEMS",
    "ByeValue",
    "Pairing",
    "RoundPairing",
    "ScoreAdjustment",
    "SwissError",
    "SwissPairer",
    "SwissPairingError",
    "SwissState",
    "SwissTeam",
    "add_late_entry",
    "bye_match",
    "check_pairing",
    "check_round_can_be_paired",
    "initial_ranking",
    "initial_ranking_key",
    "mark_absent",
    "record_round",
    "start_state",
    "withdraw_team",
]
