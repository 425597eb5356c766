"""The play-off bracket: slots from pool places and earlier duels, the final (docs/rules.md §3)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from orchestrator.domain.bracket import DuelSpec, LoserOf, PoolPlace, SlotRef, WinnerOf
from orchestrator.domain.knockout.duels import DuelOutcome, DuelRecord, KnockoutError, decide_duel

ROUND_ORDER = ("Preliminary", "Quarter-final", "Semi-final", "Final")


class BracketError(KnockoutError):
    """A bracket that cannot be resolved (unknown duel, cycle, outcome for other teams)."""


@dataclass(frozen=True, slots=True)
class ResolvedDuel:
    spec: DuelSpec
    first: str | None  # None while the slot is not known yet
    second: str | None
    outcome: DuelOutcome | None

    @property
    def winner(self) -> str | None:
        return self.outcome.winner if self.outcome else None

    @property
    def loser(self) -> str | None:
        return self.outcome.loser if self.outcome else None


def _depends_on(ref: SlotRef) -> str | None:
    return ref.duel if isinstance(ref, WinnerOf | LoserOf) else None


def _topological(duels: Sequence[DuelSpec]) -> list[DuelSpec]:
    by_key: dict[str, DuelSpec] = {}
    for duel in duels:
        if duel.key in by_key:
            raise BracketError(f"duel {duel.key} is defined twice")
        by_key[duel.key] = duel
    done: dict[str, bool] = {}  # False = in progress
    order: list[DuelSpec] = []

    def visit(key: str, path: tuple[str, ...]) -> None:
        if done.get(key) is True:
            return
        if key in done:
            raise BracketError(f"the bracket has a cycle: {' → '.join((*path, key))}")
        if key not in by_key:
            raise BracketError(f"duel {path[-1]} refers to duel {key}, which does not exist")
        done[key] = False
        for ref in (by_key[key].first, by_key[key].second):
            dep = _depends_on(ref)
            if dep is not None:
                visit(dep, (*path, key))
        done[key] = True
        order.append(by_key[key])

    for duel in duels:
        visit(duel.key, ())
    return order


def resolve_bracket(
    duels: Sequence[DuelSpec],
    places: Mapping[PoolPlace, str],
    outcomes: Mapping[str, DuelOutcome],
    *,
    withdrawn: Collection[str] = (),
) -> tuple[ResolvedDuel, ...]:
    """Fill each duel's teams from pool places and earlier outcomes; a withdrawn team's opponent advances.

    Duels come back in the order given. A duel without an outcome whose one known team is in ``withdrawn``
    is decided for its opponent by withdrawal (as soon as the opponent is known).
    """
    resolved: dict[str, ResolvedDuel] = {}

    def team_of(ref: SlotRef) -> str | None:
        if isinstance(ref, PoolPlace):
            return places.get(ref)
        earlier = resolved[ref.duel]
        return earlier.winner if isinstance(ref, WinnerOf) else earlier.loser

    for spec in _topological(duels):
        first, second = team_of(spec.first), team_of(spec.second)
        outcome = outcomes.get(spec.key)
        if outcome is not None and (outcome.first, outcome.second) != (first, second):
            raise BracketError(
                f"duel {spec.key}: the outcome is for {outcome.first} – {outcome.second}, "
                f"but the bracket has {first or '?'} – {second or '?'}"
            )
        if outcome is None and first is not None and second is not None:
            gone = [team for team in (first, second) if team in withdrawn]
            if len(gone) == 1:
                outcome = decide_duel(DuelRecord(spec.key, first, second, withdrawn=gone[0]))
        resolved[spec.key] = ResolvedDuel(spec, first, second, outcome)
    return tuple(resolved[spec.key] for spec in duels)


def final_duel(resolved: Sequence[ResolvedDuel]) -> ResolvedDuel | None:
    """The duel named "Final", else the one duel whose winner no other duel takes."""
    named = [d for d in resolved if d.spec.round_name == "Final"]
    if len(named) == 1:
        return named[0]
    taken = {ref.duel for d in resolved for ref in (d.spec.first, d.spec.second) if isinstance(ref, WinnerOf)}
    last = [d for d in resolved if d.spec.key not in taken]
    return last[0] if len(last) == 1 else None


def champions(resolved: Sequence[ResolvedDuel]) -> tuple[str, ...]:
    """The champion (two teams for joint winners), or () while the final is undecided."""
    final = final_duel(resolved)
    if final is None or final.outcome is None:
        return ()
    return final.outcome.winners


def rounds_for_display(resolved: Sequence[ResolvedDuel]) -> tuple[tuple[str, tuple[ResolvedDuel, ...]], ...]:
    """Duels grouped by round, earliest round first (Preliminary, Quarter-final, Semi-final, Final)."""
    depth: dict[str, int] = {}
    by_key = {d.spec.key: d for d in resolved}

    def depth_of(key: str) -> int:
        if key not in depth:
            spec = by_key[key].spec
            deps = [dep for ref in (spec.first, spec.second) if (dep := _depends_on(ref)) in by_key]
            depth[key] = 1 + max((depth_of(dep) for dep in deps if dep is not None), default=-1)
        return depth[key]

    groups: dict[str, list[ResolvedDuel]] = {}
    for duel in resolved:
        groups.setdefault(duel.spec.round_name, []).append(duel)

    def rank(name: str) -> tuple[int, int]:
        known = ROUND_ORDER.index(name) if name in ROUND_ORDER else len(ROUND_ORDER)
        return min(depth_of(d.spec.key) for d in groups[name]), known

    return tuple((name, tuple(groups[name])) for name in sorted(groups, key=rank))
