"""Time the pairing of one team Swiss round (FIDE C.04.6) beside FIDE's own checker for the same round, and
the same round paired by the two other systems a stage can name (``olympiad-2022``, ``score-group-halves``).

Run: .venv/bin/python bench/swiss_pairing.py [--teams 190] [--round 6] [--seed 2026] [--no-gacrux]
Target: pairing one round of 190 teams in at most 0.5 s. Ours is our own C.04.6 engine
(``domain.swiss.c046``); the yardsticks are gacrux in process (``GacruxPairer``, the TRF export included)
and gacrux's ``pairingchecker -m fideteam -p`` on the TRF file of the same state (process start
included). Wall-clock and CPU seconds are printed: on a shared machine compare the CPU figures.

The rounds before the timed one are paired by a quick stand-in (teams sorted by score, each with the
next one it has not met) with random results, so that the timed round meets a realistic spread of
score groups without the minutes the engine would take for them; the timed round is paired by our
engine, by gacrux in process and by the checker, and the three pairings must be equal (``--no-gacrux``
skips the two yardsticks). The other systems pair the same state (its ``pairing`` changed); nothing
compares them.
"""

from __future__ import annotations

import argparse
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from orchestrator.adapters.gacrux_pairing import GacruxPairer
from orchestrator.domain.scoring import MatchRecord
from orchestrator.domain.swiss import (
    RoundPairing,
    SwissPairer,
    SwissState,
    SwissTeam,
    bye_match,
    record_round,
    start_state,
)
from orchestrator.domain.swiss.c046 import C046Pairer
from orchestrator.domain.swiss.olympiad2022 import Olympiad2022Pairer
from orchestrator.domain.swiss.score_group_halves import ScoreGroupHalvesPairer
from orchestrator.domain.trf.swiss import export_trf


def stand_in_round(state: SwissState, round_no: int, rng: random.Random) -> SwissState:
    """A quick Swiss-like round with random results (not C.04.6; only to give the timed round a history)."""
    order = sorted(state.available(round_no), key=lambda t: (*(-x for x in state.points(t)), state.tpn(t)))
    matches: list[MatchRecord] = []
    if len(order) % 2:
        spare = next(t for t in reversed(order) if not state.had_bye(t))
        order.remove(spare)
        matches.append(bye_match(state, spare, round_no))
    while order:
        first = order.pop(0)
        second = next((t for t in order if not state.have_played(first, t)), order[0])
        order.remove(second)
        gp = rng.randint(0, 2 * state.boards)
        matches.append(MatchRecord(round_no, first, second, gp, 2 * state.boards - gp))
    return record_round(state, matches)


def checker_pairs(trf: str) -> tuple[list[tuple[int, int]], float, float]:
    """The checker's pairing of the next round, its wall-clock and its CPU seconds."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "stage.trf"
        path.write_text(trf, encoding="latin-1")
        command = [sys.executable, "-m", "gacrux.pairingchecker", "-m", "fideteam", "-p", "-d", "T"]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run([*command, "-i", str(path)], capture_output=True, text=True, check=False)
        elapsed = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    words = done.stdout.split()
    if not words:
        sys.exit(f"the checker paired nothing:\n{done.stdout}{done.stderr}")
    numbers = [int(w) for w in words[1 : 1 + 2 * int(words[0])]]
    return list(zip(numbers[::2], numbers[1::2], strict=True)), elapsed, cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--teams", type=int, default=190)
    parser.add_argument("--round", type=int, default=6)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--no-gacrux", action="store_true", help="time our engines only")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    teams = [
        SwissTeam(f"Team {n:03d}", tuple(rng.randint(1800, 2750) for _ in range(5)))
        for n in range(args.teams)
    ]
    state = start_state(teams, boards=4, rounds=11)
    for round_no in range(1, args.round):
        state = stand_in_round(state, round_no, rng)

    pairing, ours, ours_cpu = timed(C046Pairer(), state, args.round)
    for pairer in (Olympiad2022Pairer(), ScoreGroupHalvesPairer()):
        time_other_system(pairer, teams, args.round, random.Random(args.seed))
    if args.no_gacrux:
        print(
            f"round {args.round} of {args.teams} teams, fide-team-swiss: {ours:.3f} s ({ours_cpu:.3f} s CPU)"
        )
        return
    reference, gacrux, gacrux_cpu = timed(GacruxPairer(), state, args.round)
    theirs, checker_time, checker_cpu = checker_pairs(export_trf(state))

    mine = numbers(state, pairing)
    verdict = "equal" if mine == theirs and mine == numbers(state, reference) else "DIFFERENT"
    print(
        f"round {args.round} of {args.teams} teams: ours {ours:.3f} s ({ours_cpu:.3f} s CPU); "
        f"gacrux in process {gacrux:.2f} s ({gacrux_cpu:.2f} s CPU, {gacrux_cpu / ours_cpu:.0f}x ours); "
        f"gacrux pairingchecker {checker_time:.2f} s ({checker_cpu:.2f} s CPU, process start included); "
        f"pairings {verdict}"
    )
    if verdict != "equal":
        sys.exit(1)


def time_other_system(pairer: SwissPairer, teams: list[SwissTeam], round_no: int, rng: random.Random) -> None:
    """Time ``round_no`` of another system after rounds paired by that system itself (random results),
    so that its colours and floats have the history it would make."""
    system = "olympiad-2022" if isinstance(pairer, Olympiad2022Pairer) else "score-group-halves"
    state = start_state(teams, boards=4, rounds=11, pairing=system)
    for number in range(1, round_no):
        found = pairer.pair_round(state, number)
        matches = [bye_match(state, found.bye, number)] if found.bye else []
        for p in found.pairings:
            gp = rng.randint(0, 2 * state.boards)
            matches.append(MatchRecord(number, p.first, p.second, gp, 2 * state.boards - gp))
        state = record_round(state, matches)
    other, seconds, cpu = timed(pairer, state, round_no)
    print(
        f"round {round_no} of {len(teams)} teams, {system}: {seconds:.3f} s ({cpu:.3f} s CPU), "
        f"{len(other.pairings)} matches, bye {other.bye or 'none'}"
    )


def timed(pairer: SwissPairer, state: SwissState, round_no: int) -> tuple[RoundPairing, float, float]:
    """The pairing, its wall-clock and its CPU seconds."""
    start, start_cpu = time.perf_counter(), time.process_time()
    pairing = pairer.pair_round(state, round_no)
    return pairing, time.perf_counter() - start, max(time.process_time() - start_cpu, 1e-6)


def numbers(state: SwissState, pairing: RoundPairing) -> list[tuple[int, int]]:
    """(first-named, second) pairing numbers in board order, (bye, 0) last."""
    pairs = [(state.tpn(p.first), state.tpn(p.second)) for p in pairing.pairings]
    return pairs + ([(state.tpn(pairing.bye), 0)] if pairing.bye else [])


if __name__ == "__main__":
    main()
