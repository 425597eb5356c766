"""Random Swiss events for comparing our C.04.6 engine with FIDE's gacrux (docs/swiss.md): a field of teams,
random results (some matches forfeited), and whole events paired by both engines round by round; and a
state written as JSON and read back (tests/fixtures/swiss/c046-gacrux.json, written by
scripts/c046_goldens.py with gacrux alone, read by tests/unit/test_swiss_c046_goldens.py).

    state = compare_event(size=21, rounds=9, seed=7)   # asserts both engines pair each round alike
    state = paired_event(7, 5, 1, gacrux_or_none, paired=rounds)   # one engine, its rounds collected
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from orchestrator.adapters.gacrux_pairing import GacruxPairer
from orchestrator.domain.scoring import MatchForfeit, MatchRecord
from orchestrator.domain.swiss import (
    Pairing,
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


def gacrux_or_none(state: SwissState, round_no: int) -> RoundPairing | None:
    """The round as gacrux alone pairs it; None when it finds no legal pairing (the round is refused)."""
    try:
        return GACRUX.pair_round(state, round_no)
    except SwissPairingError:
        return None


Pair = Callable[[SwissState, int], RoundPairing | None]


def compare_event(size: int, rounds: int, seed: int, **options: Any) -> SwissState:
    """``paired_event`` paired by both engines round by round (``both``: each round asserted equal)."""
    return paired_event(size, rounds, seed, both, **options)


def paired_event(
    size: int,
    rounds: int,
    seed: int,
    pair: Pair,
    *,
    late: int = 3,
    withdraw: int = 4,
    absent: int = 2,
    before_each: list[SwissState] | None = None,
    paired: dict[int, RoundPairing | None] | None = None,
    primary: str = "mp",
    colour_model: str = "A",
    adjust: int = 0,
) -> SwissState:
    """A stage of ``size`` teams, one absent in round ``absent``, a late entry joining in round ``late``
    and a withdrawal from round ``withdraw`` (0: none of that), each round paired by ``pair`` until it
    returns None (the round refused); the results (some matches forfeited) are random. ``before_each``
    collects the state before each round, ``paired`` each round's pairing by its number. ``primary`` and
    ``colour_model`` are the state's (C.04.6 arts. 1.2.1 and 1.7); ``adjust`` gives a random team bonus or
    penalty points (record 299) before each round after round ``adjust`` (0: none)."""
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
        pairing = pair(state, round_no)
        if paired is not None:
            paired[round_no] = pairing
        if pairing is None:
            break
        state = play(state, pairing, rng)
    return state


def state_json(state: SwissState) -> dict[str, Any]:
    """The state as the golden file stores it (``state_from_json`` reads it back)."""
    return {
        "teams": [
            {
                "name": t.name,
                "ratings": list(t.ratings),
                "joined": t.joined,
                "withdrawn": t.withdrawn,
                "absent": sorted(t.absent),
            }
            for t in state.teams
        ],
        "boards": state.boards,
        "rounds": state.rounds,
        "initial_colour": state.initial_colour,
        "primary": state.primary,
        "colour_model": state.colour_model,
        "adjustments": [[a.team, a.round, a.mp, a.gp, a.pairing] for a in state.adjustments],
        "matches": [[m.round, m.team_a, m.team_b, m.gp_a, m.gp_b, m.forfeit.value] for m in state.matches],
    }


def state_from_json(data: dict[str, Any]) -> SwissState:
    """The state ``state_json`` wrote."""
    return SwissState(
        teams=tuple(
            SwissTeam(t["name"], tuple(t["ratings"]), t["joined"], t["withdrawn"], frozenset(t["absent"]))
            for t in data["teams"]
        ),
        boards=data["boards"],
        rounds=data["rounds"],
        matches=tuple(
            MatchRecord(rnd, a, b, gp_a, gp_b, MatchForfeit(kind))
            for rnd, a, b, gp_a, gp_b, kind in data["matches"]
        ),
        initial_colour=data["initial_colour"],
        primary=data["primary"],
        colour_model=data["colour_model"],
        adjustments=tuple(ScoreAdjustment(*row) for row in data["adjustments"]),
    )


def pairing_json(pairing: RoundPairing) -> dict[str, Any]:
    """A round's pairing as the golden file stores it (``pairing_from_json`` reads it back)."""
    return {
        "pairs": [[p.board, p.first, p.second] for p in pairing.pairings],
        "bye": pairing.bye,
        "not_paired": list(pairing.not_paired),
    }


def pairing_from_json(round_no: int, data: dict[str, Any]) -> RoundPairing:
    """The pairing ``pairing_json`` wrote."""
    pairs = tuple(Pairing(board, white, black) for board, white, black in data["pairs"])
    return RoundPairing(round_no, pairs, data["bye"], tuple(data["not_paired"]))
