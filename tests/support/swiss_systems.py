"""Random events paired by a Swiss stage's pairing system (docs/swiss.md, "Pairing systems"), each round
checked independently of the engine's own check: each team paired once or given the bye, no rematch,
no second bye, boards numbered in order. Also the small rated fields the TRF record tests pair
(record 250's accelerations, record 260's prohibitions: docs/trf.md):

    state = rated_field(8, "fide-team-swiss", accelerations=(Acceleration(2, 0, 1, 1, 1, 4),))
    tpn_pairs(state) == {(1, 3), (2, 4), (5, 7), (6, 8)}    # round 1's pairs by pairing number
"""

from __future__ import annotations

from random import Random
from typing import Any

from orchestrator.domain.scoring import MatchForfeit, MatchRecord
from orchestrator.domain.swiss import (
    RoundPairing,
    SwissState,
    SwissTeam,
    mark_absent,
    record_round,
    start_state,
)
from orchestrator.domain.swiss.systems import pairer_for

TRF_SYSTEMS = ("fide-team-swiss", "olympiad-2022", "score-group-halves")


def rated_field(size: int, system: str = "fide-team-swiss", **state: Any) -> SwissState:
    """``size`` teams T1, T2, ... rated 2490, 2480, ... on each of 4 boards, 5 rounds, paired by
    ``system``; ``state`` adds fields of the state (``accelerations``, ``prohibitions``)."""
    teams = tuple(SwissTeam(f"T{i}", (2500 - 10 * i,) * 4) for i in range(1, size + 1))
    return SwissState(teams, 4, 5, pairing=system, **state)


def tpn_pairs(state: SwissState, round_no: int = 1) -> set[tuple[int, int]]:
    """The round as the state's pairing system pairs it: each match as its two pairing numbers, lower
    first."""
    found = pairer_for(state.pairing).pair_round(state, round_no)
    return {
        (min(a, b), max(a, b)) for a, b in ((state.tpn(p.first), state.tpn(p.second)) for p in found.pairings)
    }


def play(state: SwissState, pairing: RoundPairing, rng: Random) -> SwissState:
    """Random match results (game points in half-points out of 8), about one match in 30 forfeited."""
    matches = []
    for p in pairing.pairings:
        if rng.random() < 1 / 30:
            kind = rng.choice([MatchForfeit.A_WINS, MatchForfeit.B_WINS, MatchForfeit.DOUBLE])
            gp = {MatchForfeit.A_WINS: (8, 0), MatchForfeit.B_WINS: (0, 8), MatchForfeit.DOUBLE: (0, 0)}[kind]
            matches.append(MatchRecord(pairing.round, p.first, p.second, *gp, kind))
            continue
        gp_first = rng.randint(0, 8)
        matches.append(MatchRecord(pairing.round, p.first, p.second, gp_first, 8 - gp_first))
    bye = pairing.bye_record(state)
    return record_round(state, [*matches, *([bye] if bye else [])])


def play_event(system: str, size: int, rounds: int, seed: int, absent_round: int = 0) -> SwissState:
    """Every round paired by ``system`` and checked independently of the engine's own check."""
    rng = Random(seed)
    teams = [SwissTeam(f"T{n:02d}", tuple(rng.randint(1400, 2800) for _ in range(5))) for n in range(size)]
    state = start_state(teams, boards=4, rounds=rounds, pairing=system, initial_colour=rng.choice("WB"))
    if 1 < absent_round <= rounds:
        state = mark_absent(state, state.teams[-1].name, round_no=absent_round)
    pairer = pairer_for(system)
    met: set[frozenset[str]] = set()
    byes: list[str] = []
    for round_no in range(1, rounds + 1):
        pairing = pairer.pair_round(state, round_no)
        assert pairer.pair_round(state, round_no) == pairing, "the same state paired twice differs"
        named = [team for p in pairing.pairings for team in (p.first, p.second)]
        named += [pairing.bye] if pairing.bye else []
        assert sorted(named) == sorted(state.available(round_no)), f"round {round_no}: not each team once"
        assert [p.board for p in pairing.pairings] == list(range(1, len(pairing.pairings) + 1))
        pairs = {frozenset((p.first, p.second)) for p in pairing.pairings}
        assert not pairs & met, f"round {round_no}: a rematch"
        if pairing.bye:
            assert pairing.bye not in byes, f"round {round_no}: {pairing.bye} has the bye twice"
            byes.append(pairing.bye)
        state = play(state, pairing, rng)
        met |= {frozenset((m.team_a, m.team_b)) for m in state.matches if m.is_played}
    assert state.rounds_played == rounds
    return state
