"""Round-robin pairings from the FIDE Berger tables (C.05 Annex 1)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Pairing:
    """One match of a round: ``first`` is the first-named team (White on board 1, docs/rules.md §1)."""

    round: int
    table: int
    first: int
    second: int


@dataclass(frozen=True, slots=True)
class RoundRobinRound:
    number: int
    pairings: tuple[Pairing, ...]
    bye: int | None  # with an odd field the highest number counts as a bye (C.05 Annex 1)


def berger_table(players: int) -> tuple[RoundRobinRound, ...]:
    """Berger rounds for ``players`` numbered 1..players; odd sizes get a bye each round.

    C.05 Annex 1 / Milvang "Berger explained": player N stays on table 1 and alternates colour; the
    others rotate so that each round is the previous one shifted by N/2 places.
    """
    if players < 2:
        raise ValueError("a round robin needs at least two participants")
    n = players + (players % 2)
    rounds: list[RoundRobinRound] = []
    # Round 1: m has White against n-m+1 on table m; player n on table 1 with Black.
    for r in range(1, n):
        pairs: list[Pairing] = []
        bye: int | None = None
        for table in range(1, n // 2 + 1):
            if table == 1:
                other = _slot(r, 0, n)
                white, black = (other, n) if r % 2 == 1 else (n, other)
            else:
                white, black = _slot(r, table - 1, n), _slot(r, n - table, n)
            if n != players and n in (white, black):
                bye = black if white == n else white
                continue
            pairs.append(Pairing(r, len(pairs) + 1, white, black))
        rounds.append(RoundRobinRound(r, tuple(pairs), bye))
    return tuple(rounds)


def _slot(round_number: int, position: int, n: int) -> int:
    """Player at ``position`` (0..n-2) of the rotating circle in ``round_number``."""
    start = ((round_number - 1) * (n // 2)) % (n - 1)
    return (start + position) % (n - 1) + 1


def is_complete_round_robin(teams: Sequence[str], pairings: Iterable[tuple[str, str | None]]) -> bool:
    """Whether every two of ``teams`` met equally often, at least once (a complete single, double...
    round robin); ``pairings`` are (team, opponent) per match, ``None`` for a bye. Anything else is a
    Swiss for the tie-breaks: its unplayed rounds follow FIDE C.07 Art. 16, a round robin's Art. 15.2."""
    names = set(teams)
    if len(names) < 2:
        return False
    met: Counter[frozenset[str]] = Counter()
    for team, opponent in pairings:
        if opponent is None:
            continue
        if team not in names or opponent not in names or team == opponent:
            return False
        met[frozenset((team, opponent))] += 1
    pairs = len(names) * (len(names) - 1) // 2
    return len(met) == pairs and len(set(met.values())) == 1
