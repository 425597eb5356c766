"""Every Swiss round we pair is the round FIDE's own checker produces (``python -m gacrux.pairingchecker
-m fideteam``) on the TRF we export: simulated events with forfeits, a withdrawal, a late entry and an
absent team; at the end the checker re-pairs every round of the whole event and finds them equal.

The 250-team event takes minutes with gacrux; it runs when OLYMPIAD_SLOW_TESTS=1.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("gacrux")

from orchestrator.adapters.gacrux_pairing import GacruxPairer, TrfPairingError, pair_trf
from orchestrator.domain.scoring import MatchRecord
from orchestrator.domain.swiss import (
    RoundPairing,
    SwissPairingError,
    SwissState,
    SwissTeam,
    add_late_entry,
    mark_absent,
    record_round,
    start_state,
    withdraw_team,
)
from orchestrator.domain.trf.swiss import export_trf
from tests.support.swiss_compare import field, play

PAIRER = GacruxPairer()


def checker(trf: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "stage.trf"
    path.write_text(trf, encoding="latin-1")
    return subprocess.run(
        [sys.executable, "-m", "gacrux.pairingchecker", "-m", "fideteam", "-i", str(path), "-d", "T", *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )


def checker_pairs(trf: str, tmp_path: Path) -> list[tuple[int, int]]:
    """The pairing `pairingchecker -p` prints: a count, then one "first second" line per match."""
    run = checker(trf, tmp_path, "-p")
    lines = run.stdout.split()
    assert lines, run.stdout + run.stderr
    count = int(lines[0])
    numbers = [int(x) for x in lines[1 : 1 + 2 * count]]
    return list(zip(numbers[::2], numbers[1::2], strict=True))


def as_numbers(state: SwissState, pairing: RoundPairing) -> list[tuple[int, int]]:
    pairs = [(state.tpn(p.first), state.tpn(p.second)) for p in pairing.pairings]
    return pairs + ([(state.tpn(pairing.bye), 0)] if pairing.bye else [])


def simulate(size: int, rounds: int, seed: int, tmp_path: Path, *, compare_each_round: bool) -> SwissState:
    """A stage of ``size`` teams plus one late entry (round 3), one withdrawal (from round 4) and one
    absence (round 2), paired by our engine round by round."""
    rng = random.Random(seed)
    teams = field(size, rng)
    state = start_state(teams, boards=4, rounds=rounds, initial_colour=rng.choice("WB"))
    for round_no in range(1, rounds + 1):
        if round_no == 2:
            state = mark_absent(state, teams[-1].name, round_no=2)
        if round_no == 3:
            state = add_late_entry(state, replace(field(1, rng)[0], name="Late entry", joined=3))
        if round_no == 4:
            state = withdraw_team(state, teams[0].name, from_round=4)
        pairing = PAIRER.pair_round(state, round_no)
        if compare_each_round:
            assert as_numbers(state, pairing) == checker_pairs(export_trf(state), tmp_path), round_no
        state = play(state, pairing, rng)
    return state


def assert_checker_agrees_with_every_round(state: SwissState, tmp_path: Path) -> None:
    run = checker(export_trf(state), tmp_path, "-c")
    assert run.returncode == 0 and "Check: True" in run.stdout, run.stdout + run.stderr


def test_each_round_is_the_one_the_checker_pairs_on_our_trf(tmp_path) -> None:
    state = simulate(8, 5, 2, tmp_path, compare_each_round=True)
    assert_checker_agrees_with_every_round(state, tmp_path)


@pytest.mark.parametrize(
    ("size", "rounds", "seed"), [(5, 4, 1), (6, 4, 3), (9, 6, 4), (13, 7, 5), (24, 7, 6)]
)
def test_the_checker_finds_every_round_of_a_simulated_event_correct(size, rounds, seed, tmp_path) -> None:
    state = simulate(size, rounds, seed, tmp_path, compare_each_round=False)
    assert state.rounds_played == rounds
    assert_checker_agrees_with_every_round(state, tmp_path)


@pytest.mark.skipif(os.environ.get("OLYMPIAD_SLOW_TESTS") != "1", reason="minutes with gacrux")
def test_a_250_team_event_is_paired_as_the_checker_pairs_it(tmp_path) -> None:
    state = simulate(250, 4, 7, tmp_path, compare_each_round=False)
    assert_checker_agrees_with_every_round(state, tmp_path)


def test_a_team_that_has_met_everyone_in_an_even_field_is_refused_naming_the_teams() -> None:
    names = ["A", "B", "C", "D", "E", "F"]
    state = start_state([SwissTeam(n) for n in names], boards=4, rounds=6)
    rounds = [
        ("AB", "CD", "EF"),
        ("AC", "BD", "EF"),
        ("AD", "BC", "EF"),
        ("AE", "BC", "DF"),
        ("AF", "BC", "DE"),
    ]
    for number, pairs in enumerate(rounds, 1):
        state = record_round(state, [MatchRecord(number, a, b, 4, 4) for a, b in pairs])
    with pytest.raises(SwissPairingError) as caught:
        PAIRER.pair_round(state, 6)
    message = str(caught.value)
    assert "round 6 cannot be paired" in message and "A, B, C, D, E, F" in message
    assert "no legal pairing" in message
    assert caught.value.teams == tuple(names)


def test_an_unreadable_trf_is_refused_with_the_checkers_reason() -> None:
    with pytest.raises(TrfPairingError):
        pair_trf("012 nothing here\n")
