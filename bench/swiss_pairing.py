"""Time the pairing of one team Swiss round (FIDE C.04.6) beside FIDE's own checker for the same round.

Run: .venv/bin/python bench/swiss_pairing.py [--teams 190] [--round 6] [--seed 2026]
Target (issue 13): pairing one round of 190 teams in at most 0.5 s. The yardstick is gacrux's
``pairingchecker -m fideteam -p`` on the TRF file of the same state (process start included). Wall-clock
and CPU seconds are both printed: on a shared machine the CPU figure is the one to compare.

The rounds before the timed one are paired by a quick stand-in (teams sorted by score, each with the
next one it has not met) with random results, so that the timed round meets a realistic spread of
score groups without the minutes the engine would take for them; the timed round is paired by our
engine and by the checker, and the two pairings must be equal.
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
from orchestrator.domain.swiss import SwissState, SwissTeam, bye_match, record_round, start_state
from orchestrator.domain.swiss.trf import export_trf


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
    args = parser.parse_args()
    rng = random.Random(args.seed)
    teams = [
        SwissTeam(f"Team {n:03d}", tuple(rng.randint(1800, 2750) for _ in range(5)))
        for n in range(args.teams)
    ]
    state = start_state(teams, boards=4, rounds=11)
    for round_no in range(1, args.round):
        state = stand_in_round(state, round_no, rng)

    start, start_cpu = time.perf_counter(), time.process_time()
    pairing = GacruxPairer().pair_round(state, args.round)
    ours, ours_cpu = time.perf_counter() - start, time.process_time() - start_cpu
    theirs, checker_time, checker_cpu = checker_pairs(export_trf(state))

    mine = [(state.tpn(p.first), state.tpn(p.second)) for p in pairing.pairings]
    mine += [(state.tpn(pairing.bye), 0)] if pairing.bye else []
    verdict = "equal" if mine == theirs else "DIFFERENT"
    print(
        f"round {args.round} of {args.teams} teams: ours {ours:.2f} s ({ours_cpu:.2f} s CPU), "
        f"gacrux pairingchecker {checker_time:.2f} s ({checker_cpu:.2f} s CPU, process start included); "
        f"pairings {verdict}"
    )
    if mine != theirs:
        sys.exit(1)


if __name__ == "__main__":
    main()
