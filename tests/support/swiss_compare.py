"""Random Swiss events for comparing our C.04.6 engine with FIDE's gacrux (docs/swiss.md): a field of teams,
random results (some matches forfeited), and whole events paired by both engines round by round.

    state = compare_event(size=21, rounds=9, seed=7)   # asserts both engines pair each round alike
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from orchestrator.adapters.gacrux_pairing import GacruxPairer
from orchestrator.domain.scoring import MatchForfeit, MatchRecord
from orchestrator.domain.swiss import (
    RoundPairing,
    ScoreAdjustment,
    SwissPairingError,
    SwissState,
    SwissTeam,
    add_late_entry,
    mark_absent,
    record_round,
    start_state,
    withdraw_team,
)
from orchestrator.domain.swiss.c046 import C046Pairer


def play(state: SwissState, pairing: RoundPairing, rng: random.Random) -> SwissState:
    """Random results: most matches played, some forfeited one way or both ways."""
    boards = state.boards
    matches: list[MatchRecord] = []
    for p in pairing.pairings:
        roll = rng.random()
        if roll < 0.05:
            matches.append(MatchRecord(pairing.round, p.first, p.second, 2 * boards, 0, MatchForfeit.A_WINS))
        elif roll < 0.08:
            matches.append(MatchRecord(pairing.round, p.first, p.second, 0, 2 * boards, MatchForfeit.B_WINS))
        elif roll < 0.09:
            matches.append(MatchRecord(pairing.round, p.first, p.second, 0, 0, MatchForfeit.DOUBLE))
        else:
            gp = rng.choice(range(2 * boards + 1))
            matches.append(MatchRecord(pairing.round, p.first, p.second, gp, 2 * boards - gp))
    bye = pairing.bye_record(state)
    return record_round(state, [*matches, *([bye] if bye else [])])


def field(size: int, rng: random.Random) -> list[SwissTeam]:
    return [SwissTeam(f"Team {n:03d}", tuple(rng.randint(1800, 2750) for _ in range(5))) for n in range(size)]


OURS = C046Pairer()
GACRUX = GacruxPairer()


def both(state: SwissState, round_no: int) -> RoundPairing | None:
    """The round as both engines pair it (asserted equal); None when both refuse it."""
    try:
        theirs = GACRUX.pair_round(state, round_no)
    except SwissPairingError:
        with pytest.raises(SwissPairingError):
            OURS.pair_round(state, round_no)
        return None
    ours = OURS.pair_round(state, round_no)
    assert ours == theirs, f"round {round_no}"
    return ours


def compare_event(
    size: int,
    rounds: int,
    seed: int,
    *,
    late: int = 3,
    withdraw: int = 4,
    absent: int = 2,
    before_each: list[SwissState] | None = None,
    primary: str = "mp",
    colour_model: str = "A",
    adjust: int = 0,
) -> SwissState:
    """A stage of ``size`` teams, one absent in round ``absent``, a late entry joining in round ``late``
    and a withdrawal from round ``withdraw`` (0: none of that), paired by both engines round by round;
    the results (some matches forfeited) are random. ``before_each`` collects the state before each
    round. ``primary`` and ``colour_model`` are the state's (C.04.6 arts. 1.2.1 and 1.7); ``adjust`` gives a
    random team bonus or penalty points (record 299) before each round after round ``adjust`` (0: none)."""
    rng = random.Random(seed)
    teams = field(size, rng)
    state = start_state(teams, boards=4, rounds=rounds, initial_colour=rng.choice("WB"))
    state = replace(state, primary=primary, colour_model=colour_model)
    for round_no in range(1, rounds + 1):
        if adjust and round_no > adjust:
            team = rng.choice(teams).name
            extra = ScoreAdjustment(team, round_no - 1, rng.choice((-1, 1)), rng.choice((-2, 1)))
            state = replace(state, adjustments=(*state.adjustments, extra))
        if round_no == absent:
            state = mark_absent(state, teams[-1].name, round_no=absent)
        if round_no == late:
            state = add_late_entry(state, replace(field(1, rng)[0], name="Late entry", joined=late))
        if round_no == withdraw:
            state = withdraw_team(state, teams[0].name, from_round=withdraw)
        if before_each is not None:
            before_each.append(state)
        pairing = both(state, round_no)
        if pairing is None:
            break
        state = play(state, pairing, rng)
    return state
