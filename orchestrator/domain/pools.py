"""Splitting a stage's entrants into pools of approximately equal strength (docs/rules.md §3).

Strength is the average rating of a team's six main players. The draft split is a serpentine by strength
(strongest first; ties by seed, then name), then the winners of the previous stage's pools are moved apart
(docs/rules.md §3: they must not share a pool), then deterministic improving swaps reduce the spread of the
pool
averages until no single swap of two teams improves it. Staff may adjust the draft before publishing it;
``evaluate_split`` reports averages and checks a split they made by hand.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from fractions import Fraction

from orchestrator.domain.event import pool_letters
from orchestrator.domain.teams import Team


class PoolSplitError(ValueError):
    """Entrants that cannot be split as asked."""


@dataclass(frozen=True, slots=True)
class PoolEntrant:
    team: str
    strength: int  # average rating of the six main players
    seed: int


def entrant_of(team: Team) -> PoolEntrant:
    return PoolEntrant(team=team.name, strength=team.strength, seed=team.seed)


@dataclass(frozen=True, slots=True)
class Pool:
    letter: str
    entrants: tuple[PoolEntrant, ...]  # strongest first

    @property
    def total(self) -> int:
        return sum(entrant.strength for entrant in self.entrants)

    @property
    def average(self) -> Fraction:
        return Fraction(self.total, len(self.entrants)) if self.entrants else Fraction(0)

    @property
    def teams(self) -> tuple[str, ...]:
        return tuple(entrant.team for entrant in self.entrants)


@dataclass(frozen=True, slots=True)
class PoolSplit:
    pools: tuple[Pool, ...]
    spread: Fraction  # highest pool average minus lowest
    serpentine_spread: Fraction  # the plain serpentine's spread, for comparison
    swaps: int  # swaps made after the serpentine (moving winners apart included)

    def pool_of(self, team: str) -> str:
        for pool in self.pools:
            if team in pool.teams:
                return pool.letter
        raise KeyError(team)


def _order_key(entrant: PoolEntrant) -> tuple[int, int, str]:
    return (-entrant.strength, entrant.seed, entrant.team)


def _check_entrants(entrants: Sequence[PoolEntrant], pool_count: int, pool_size: int) -> None:
    if pool_count < 1 or pool_size < 1:
        raise PoolSplitError(f"need at least one pool of at least one team, not {pool_count} × {pool_size}")
    if len(entrants) != pool_count * pool_size:
        raise PoolSplitError(
            f"{len(entrants)} entrants cannot fill {pool_count} pools of {pool_size} "
            f"({pool_count * pool_size} needed)"
        )
    names = [entrant.team for entrant in entrants]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise PoolSplitError(f"teams entered twice: {', '.join(duplicates)}")


def _check_apart(apart: Collection[str], names: Collection[str], pool_count: int) -> frozenset[str]:
    wanted = frozenset(apart)
    unknown = sorted(wanted - set(names))
    if unknown:
        raise PoolSplitError(f"teams to keep apart are not entrants: {', '.join(unknown)}")
    if len(wanted) > pool_count:
        raise PoolSplitError(f"{len(wanted)} teams must be kept apart, but there are only {pool_count} pools")
    return wanted


def _spread(totals: Sequence[int]) -> int:
    return max(totals) - min(totals)


def _objective(totals: Sequence[int]) -> tuple[int, int]:
    """Spread first, then the sum of squares so that ties in spread still move towards balance."""
    return _spread(totals), sum(total * total for total in totals)


@dataclass
class _Layout:
    """Pools as lists of indexes into the ordered entrants, with each pool's total strength."""

    pools: list[list[int]]
    totals: list[int]
    strength: list[int]
    is_apart: list[bool]

    def swap(self, p: int, a: int, q: int, b: int) -> None:
        x, y = self.pools[p][a], self.pools[q][b]
        self.pools[p][a], self.pools[q][b] = y, x
        self.totals[p] += self.strength[y] - self.strength[x]
        self.totals[q] += self.strength[x] - self.strength[y]

    def apart_count(self, p: int) -> int:
        return sum(1 for i in self.pools[p] if self.is_apart[i])

    def objective_after(self, p: int, x: int, q: int, y: int) -> tuple[int, int]:
        """The objective if entrant ``x`` of pool ``p`` and entrant ``y`` of pool ``q`` changed places."""
        trial = list(self.totals)
        trial[p] += self.strength[y] - self.strength[x]
        trial[q] += self.strength[x] - self.strength[y]
        return _objective(trial)


def split_pools(
    entrants: Sequence[PoolEntrant],
    *,
    pool_count: int,
    pool_size: int,
    apart: Collection[str] = (),
) -> PoolSplit:
    """Pools of approximately equal average strength, with the ``apart`` teams in different pools.

    Deterministic and independent of the order of ``entrants``.
    """
    _check_entrants(entrants, pool_count, pool_size)
    ordered = sorted(entrants, key=_order_key)
    keep_apart = _check_apart(apart, [e.team for e in ordered], pool_count)
    strength = [entrant.strength for entrant in ordered]
    is_apart = [entrant.team in keep_apart for entrant in ordered]

    # Serpentine: row r fills pools left to right when r is even, right to left when odd.
    pools: list[list[int]] = [[] for _ in range(pool_count)]
    for index in range(len(ordered)):
        row, column = divmod(index, pool_count)
        pools[column if row % 2 == 0 else pool_count - 1 - column].append(index)
    totals = [sum(strength[i] for i in pool) for pool in pools]
    serpentine_spread = Fraction(_spread(totals), pool_size)
    layout = _Layout(pools, totals, strength, is_apart)
    swaps = _separate_apart(layout) + _improve(layout)

    letters = pool_letters(pool_count)
    result = tuple(
        Pool(letter, tuple(ordered[i] for i in sorted(pool)))
        for letter, pool in zip(letters, pools, strict=True)
    )
    return PoolSplit(
        pools=result,
        spread=Fraction(_spread(totals), pool_size),
        serpentine_spread=serpentine_spread,
        swaps=swaps,
    )


def _separate_apart(layout: _Layout) -> int:
    """Move winners apart: each swap takes one surplus winner into a pool that has none; the swaps made."""
    pool_count = len(layout.pools)
    swaps = 0
    while True:
        crowded = next((p for p in range(pool_count) if layout.apart_count(p) > 1), None)
        if crowded is None:
            return swaps
        best: tuple[tuple[int, int], int, int, int] | None = None
        for a, x in enumerate(layout.pools[crowded]):
            if not layout.is_apart[x]:
                continue
            for q in range(pool_count):
                if q == crowded or layout.apart_count(q) > 0:
                    continue
                for b, y in enumerate(layout.pools[q]):
                    candidate = (layout.objective_after(crowded, x, q, y), a, q, b)
                    if best is None or candidate < best:
                        best = candidate
        assert best is not None  # fewer winners than pools, so a pool without one exists
        _, a, q, b = best
        layout.swap(crowded, a, q, b)
        swaps += 1


def _improve(layout: _Layout) -> int:
    """Improving swaps (first-best in a fixed order, so the result is deterministic); the swaps made.

    Each step makes the swap with the lowest objective; among equals, the one whose first pool comes first
    (A, B, ...), then the one whose team of it holds the earlier place in that pool (the serpentine's
    order, a swapped team taking the place of the team it replaced), then the earlier second pool, then
    the earlier place in that."""
    pool_count = len(layout.pools)
    strength, is_apart = layout.strength, layout.is_apart
    current = _objective(layout.totals)
    swaps = 0
    while True:
        found: tuple[tuple[int, int], int, int, int, int] | None = None
        for p in range(pool_count):
            for q in range(p + 1, pool_count):
                p_apart, q_apart = layout.apart_count(p), layout.apart_count(q)
                for a, x in enumerate(layout.pools[p]):
                    for b, y in enumerate(layout.pools[q]):
                        if strength[x] == strength[y]:
                            continue
                        if is_apart[x] != is_apart[y] and (
                            (is_apart[x] and q_apart > 0) or (is_apart[y] and p_apart > 0)
                        ):
                            continue
                        objective = layout.objective_after(p, x, q, y)
                        if objective < current and (found is None or (objective, p, a, q, b) < found):
                            found = (objective, p, a, q, b)
        if found is None:
            return swaps
        current, p, a, q, b = found
        layout.swap(p, a, q, b)
        swaps += 1


def evaluate_split(pools: Sequence[Sequence[PoolEntrant]], *, apart: Collection[str] = ()) -> PoolSplit:
    """Averages and spread of a split staff made or adjusted; refuses unequal pools or winners together."""
    if not pools:
        raise PoolSplitError("no pools")
    size = len(pools[0])
    if any(len(pool) != size for pool in pools):
        raise PoolSplitError(
            f"pools must be of equal size; sizes are {', '.join(str(len(p)) for p in pools)}"
        )
    flat = [entrant for pool in pools for entrant in pool]
    _check_entrants(flat, len(pools), size)
    keep_apart = _check_apart(apart, [e.team for e in flat], len(pools))
    letters = pool_letters(len(pools))
    result = tuple(
        Pool(letter, tuple(sorted(pool, key=_order_key))) for letter, pool in zip(letters, pools, strict=True)
    )
    for pool in result:
        together = sorted(set(pool.teams) & keep_apart)
        if len(together) > 1:
            raise PoolSplitError(
                f"pool {pool.letter} has more than one previous pool winner: {', '.join(together)}"
            )
    averages = [pool.average for pool in result]
    serpentine = split_pools(flat, pool_count=len(pools), pool_size=size).serpentine_spread
    return PoolSplit(
        pools=result, spread=max(averages) - min(averages), serpentine_spread=serpentine, swaps=0
    )
