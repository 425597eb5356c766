"""Round-robin pools part played, for the needs tests (tests/unit/test_needs.py, test_needs_standings.py):
the first rounds with random 4-board results, the rest as fixtures."""

from __future__ import annotations

from random import Random

from orchestrator.domain.needs import Fixture
from orchestrator.domain.round_robin import berger_table
from orchestrator.domain.scoring import MatchRecord

BOARDS = 4


def game_points(rng: Random, outcome: int) -> tuple[int, int]:
    """Half-points of a 4-board match won by team_a (0), drawn (1) or won by team_b (2)."""
    total = BOARDS * 2
    if outcome == 1:
        return total // 2, total // 2
    margin = rng.randint(total // 2 + 1, total)
    return (margin, total - margin) if outcome == 0 else (total - margin, margin)


def pool_of(size: int, played_rounds: int, seed: int) -> tuple[list[str], list[MatchRecord], list[Fixture]]:
    """Teams T0.. of a pool of ``size``, its first ``played_rounds`` played, the rest as fixtures."""
    rng = Random(seed)
    teams = [f"T{i}" for i in range(size)]
    played: list[MatchRecord] = []
    fixtures: list[Fixture] = []
    for rnd in berger_table(size):
        for pairing in rnd.pairings:
            a, b = teams[pairing.first - 1], teams[pairing.second - 1]
            if rnd.number <= played_rounds:
                played.append(MatchRecord(rnd.number, a, b, *game_points(rng, rng.randrange(3))))
            else:
                fixtures.append(Fixture(a, b))
    return teams, played, fixtures
