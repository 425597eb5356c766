"""Time the exact scenarios and the chances of docs/needs.md, beside a yardstick timed in the same run.

Run: .venv/bin/python bench/needs.py [--seed 2026] [--pool-simulations 10000] [--open-simulations 1000]
     [--olympiad-simulations 100]

Figures (targets on one core): the exact scenarios of a pool of ten with three rounds left (1 s); 10,000
simulations of a pool's last three rounds (2 s); 1,000 simulations of the last two rounds of a 190-team
Open (60 s), with the share of that time spent pairing; and what the chances job computes after round 8
of an 11-round Swiss stage paired by the Olympiad Pairing Rules 2022, as the Olympiad 2026 is: 100
simulations of its last three rounds, 190 teams (the rounds before paired by the same engine on results
drawn from the ratings). The machine's speed drifts, so each figure is
also printed as a multiple of the yardstick: one plain C.04.6 pairing of round 10 of the same Open, in the
same process. CPU seconds are printed beside wall-clock ones: on a shared machine compare the CPU figures.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from swiss_pairing import stand_in_round

from orchestrator.domain.chances import MatchDrawer, pool_chances, swiss_chances
from orchestrator.domain.needs import Fixture, current_points, pool_needs
from orchestrator.domain.round_robin import berger_table
from orchestrator.domain.scoring import MatchRecord
from orchestrator.domain.swiss import RoundPairing, SwissState, SwissTeam, record_round, start_state
from orchestrator.domain.swiss.c046 import C046Pairer
from orchestrator.domain.swiss.olympiad2022 import Olympiad2022Pairer
from orchestrator.domain.swiss.pairing import SwissPairer
from orchestrator.domain.tiebreaks import PRESETS

BOARDS = 4


class Timed:
    """A pairing engine (C.04.6 by default), its pairing time summed."""

    def __init__(self, engine: SwissPairer | None = None) -> None:
        self.engine = engine or C046Pairer()
        self.cpu = 0.0
        self.calls = 0

    def pair_round(self, state: SwissState, round_no: int) -> RoundPairing:
        start = time.process_time()
        try:
            return self.engine.pair_round(state, round_no)
        finally:
            self.cpu += time.process_time() - start
            self.calls += 1


def clock(work):  # type: ignore[no-untyped-def]
    start, start_cpu = time.perf_counter(), time.process_time()
    result = work()
    return result, time.perf_counter() - start, max(time.process_time() - start_cpu, 1e-6)


def ten_team_pool(rng: random.Random):  # type: ignore[no-untyped-def]
    teams = [f"Team {n}" for n in range(10)]
    lineups = {team: [rng.randint(1700, 2600) for _ in range(BOARDS)] for team in teams}
    played: list[MatchRecord] = []
    fixtures: list[tuple[int, str, str]] = []
    for rnd in berger_table(10):
        for pairing in rnd.pairings:
            a, b = teams[pairing.first - 1], teams[pairing.second - 1]
            if rnd.number <= 6:
                gp = rng.randint(0, 2 * BOARDS)
                played.append(MatchRecord(rnd.number, a, b, gp, 2 * BOARDS - gp))
            else:
                fixtures.append((rnd.number, a, b))
    return teams, lineups, played, fixtures


def olympiad_state(teams: list[SwissTeam], lineups: dict[str, list[int]], rng: random.Random) -> SwissState:
    """The Open after round 8, every round paired by the Olympiad Pairing Rules 2022 and played out by the
    chances' own model of a match."""
    state = start_state(teams, boards=BOARDS, rounds=11, pairing="olympiad-2022")
    pairer, drawer = Olympiad2022Pairer(), MatchDrawer(lineups, BOARDS)
    for round_no in range(1, 9):
        pairing = pairer.pair_round(state, round_no)
        played = [
            MatchRecord(round_no, p.first, p.second, *drawer.draw(rng, p.first, p.second))
            for p in pairing.pairings
        ]
        bye = pairing.bye_record(state)
        state = record_round(state, [*played, *([bye] if bye else [])])
    return state


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--pool-simulations", type=int, default=10_000)
    parser.add_argument("--open-simulations", type=int, default=1_000)
    parser.add_argument("--olympiad-simulations", type=int, default=100)
    args = parser.parse_args()
    rng = random.Random(args.seed)

    teams = [SwissTeam(f"Team {n:03d}", tuple(rng.randint(1800, 2750) for _ in range(5))) for n in range(190)]
    lineups = {team.name: list(team.ratings[:BOARDS]) for team in teams}
    state = start_state(teams, boards=BOARDS, rounds=11)
    for round_no in range(1, 10):
        state = stand_in_round(state, round_no, rng)
    _, yard, yard_cpu = clock(lambda: C046Pairer().pair_round(state, 10))
    print(
        f"yardstick: one C.04.6 pairing of round 10 of the 190-team Open {yard:.3f} s ({yard_cpu:.3f} s CPU)"
    )

    names, pool_lineups, played, fixtures = ten_team_pool(rng)
    mp = current_points(names, played)
    needs, seconds, cpu = clock(
        lambda: pool_needs(mp, [Fixture(a, b) for _, a, b in fixtures], places=(1, 3))
    )
    open_lines = sum(1 for o in needs.outlooks for line in o.lines if line.verdict == "open")
    print(
        f"exact scenarios, pool of 10, 3 rounds left (15 matches, 3^15 outcomes), places 1 and 3: "
        f"{seconds:.3f} s ({cpu:.3f} s CPU, {cpu / yard_cpu:.1f}x the yardstick); {open_lines} open lines"
    )

    chain = PRESETS["online-2020"]
    pool, seconds, cpu = clock(
        lambda: pool_chances(
            names, played, fixtures, pool_lineups, places=(1, 3), chain=chain, boards=BOARDS,
            simulations=args.pool_simulations, seed=args.seed,
        )
    )  # fmt: skip
    print(
        f"{args.pool_simulations} simulations of a pool's last 3 rounds: {seconds:.3f} s ({cpu:.3f} s CPU, "
        f"{cpu / yard_cpu:.1f}x the yardstick); whole chain run in {pool.full_rankings} of them"
    )

    pairer = Timed()
    open_chances, seconds, cpu = clock(
        lambda: swiss_chances(
            state, lineups, pairer=pairer, places=(1, 3, 10), chain=PRESETS["olympiad-2026"],
            simulations=args.open_simulations, seed=args.seed,
        )
    )  # fmt: skip
    print(
        f"{args.open_simulations} simulations of the Open's last 2 rounds (190 teams): {seconds:.1f} s "
        f"({cpu:.1f} s CPU, {cpu / yard_cpu:.0f}x the yardstick); pairing {pairer.cpu:.1f} s CPU "
        f"({pairer.cpu / cpu:.0%} of the time, {pairer.calls} rounds, "
        f"{pairer.cpu / pairer.calls:.3f} s each); "
        f"whole chain run in {open_chances.full_rankings} simulations"
    )
    best = open_chances.rows[0]
    print(f"favourite: {best.team} {best.chances[0]:.1%} to win, {best.chances[1]:.1%} a medal")

    olympiad = olympiad_state(teams, lineups, random.Random(args.seed))
    pairer = Timed(Olympiad2022Pairer())
    found, seconds, cpu = clock(
        lambda: swiss_chances(
            olympiad, lineups, pairer=pairer, places=(1, 3, 10), chain=PRESETS["olympiad-2026"],
            simulations=args.olympiad_simulations, seed=args.seed,
        )
    )  # fmt: skip
    print(
        f"{args.olympiad_simulations} simulations of the last 3 rounds of the Open paired by the Olympiad "
        f"Pairing Rules 2022 (the chances job after round 8): {seconds:.1f} s ({cpu:.1f} s CPU, "
        f"{cpu / yard_cpu:.0f}x the yardstick); pairing {pairer.cpu:.1f} s CPU ({pairer.calls} rounds); "
        f"whole chain run in {found.full_rankings} simulations"
    )


if __name__ == "__main__":
    main()
