"""Score groups paired top half against bottom half: the engine of the simple score-group halves reading
(``score_group_halves.py``; docs/swiss.md, "The halves engine"). The
Olympiad Pairing Rules 2022 (``olympiad2022.py``) started from it and now pair their own brackets, with
art. 7.3's colour bans.

Each round: the teams to pair in the system's ranking order; with an odd number, the pairing-allocated bye
to the lowest-ranked eligible team whose removal leaves the others pairable without a rematch; then score
group after score group from the top, each bracket (the teams that floated down into it, then the group's
own teams, in ranking order) paired 1 v n/2+1, 2 v n/2+2, ... A rematch is avoided by the smallest change
of that order (``matching.first_pairing``: the bottom half transposed first, then teams exchanged between
the halves). The teams a bracket cannot pair (one when it is odd) float down into the next one, the
lowest-ranked first, and only when what is left below can still be paired, so a round is found whenever
one exists.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations

from orchestrator.domain.swiss.c046 import Team, teams_before
from orchestrator.domain.swiss.matching import bye_and_rest, can_be_paired, first_pairing, min_weight_pairing
from orchestrator.domain.swiss.model import SwissState
from orchestrator.domain.swiss.pairing import (
    Pairing,
    RoundPairing,
    SwissPairingError,
    check_pairing,
    check_round_can_be_paired,
)

# Sets of floaters tried in one bracket before a single weighted matching chooses them (docs/swiss.md).
MAX_FLOAT_SETS = 2000


@dataclass(frozen=True, slots=True)
class HalvesSystem:
    """What a system decides: ``rank`` orders the teams before the round (smaller first), ``bye_ok`` says
    whether a team may receive the bye and ``colours`` gives a pair's (White, Black) from (the
    higher-ranked team, the other, the board, the initial colour drawn by lot)."""

    name: str
    rank: Callable[[Team], tuple[int, ...]]
    bye_ok: Callable[[SwissState, Team], bool]
    colours: Callable[[Team, Team, int, str], tuple[Team, Team]]


def pair_by_halves(system: HalvesSystem, state: SwissState, round_no: int) -> RoundPairing:
    """The round's pairing by ``system`` (module docstring); boards in the order of each pair's
    higher-ranked team, the bye last."""
    names = check_round_can_be_paired(state, round_no, system=system.name)
    teams = teams_before(state, round_no)
    order = sorted((state.tpn(name) for name in names), key=lambda n: (system.rank(teams[n]), n))
    met = {n: teams[n].met for n in order}

    def fail(why: str) -> SwissPairingError:
        return SwissPairingError(
            f"round {round_no} cannot be paired by {system.name}: {why}; teams to pair: {', '.join(names)}",
            round_no=round_no,
            teams=names,
        )

    bye = bye_and_rest(order, met, lambda n: system.bye_ok(state, teams[n]), fail)
    pairs = _Brackets(teams, met).pair(order)
    position = {n: index for index, n in enumerate(order)}
    pairs.sort(key=lambda pair: min(position[pair[0]], position[pair[1]]))
    initial = state.initial_colour.lower()
    pairings = []
    for board, (a, b) in enumerate(pairs, 1):
        high, low = (a, b) if position[a] < position[b] else (b, a)
        white, black = system.colours(teams[high], teams[low], board, initial)
        pairings.append(Pairing(board, white.name, black.name))
    not_paired = tuple(team.name for team in state.teams if team.name not in set(names))
    result = RoundPairing(round_no, tuple(pairings), None if bye is None else teams[bye].name, not_paired)
    check_pairing(state, result)
    return result


class _Brackets:
    """The brackets of one round, from the top score group down."""

    def __init__(self, teams: dict[int, Team], met: dict[int, frozenset[int]]) -> None:
        self.teams = teams
        self.met = met
        self._cache: dict[frozenset[int], bool] = {}

    def pairable(self, nodes: Sequence[int]) -> bool:
        key = frozenset(nodes)
        if key not in self._cache:
            self._cache[key] = can_be_paired(sorted(key), self.met)
        return self._cache[key]

    def pair(self, order: list[int]) -> list[tuple[int, int]]:
        """Every pair of the round; ``order`` (the teams in ranking order, the bye removed) can be paired."""
        pairs: list[tuple[int, int]] = []
        carried: list[int] = []
        remaining = list(order)
        while remaining:
            score = self.teams[remaining[0]].mp
            residents = [n for n in remaining if self.teams[n].mp == score]
            remaining = [n for n in remaining if self.teams[n].mp != score]
            found, carried = self.bracket(carried + residents, remaining)
            pairs += found
        return pairs

    def bracket(self, bracket: list[int], lower: list[int]) -> tuple[list[tuple[int, int]], list[int]]:
        """The bracket's pairs and the teams it floats down: the fewest floaters, the lowest-ranked first;
        what floats and what is below must remain pairable."""
        size = len(bracket)
        tried = 0
        # The last bracket (nothing below) can be paired whole: it stops at its first set, no floater.
        for count in range(size % 2, size + 1, 2):
            for chosen in combinations(range(size - 1, -1, -1), count):
                tried += 1
                if tried > MAX_FLOAT_SETS:
                    break
                floats = [bracket[i] for i in sorted(chosen)]
                stay = [n for i, n in enumerate(bracket) if i not in chosen]
                if self.pairable(stay) and self.pairable(floats + lower):
                    return self.pair_teams(stay), floats
            if tried > MAX_FLOAT_SETS:
                break
        stay, floats = self.floats_by_matching(bracket, lower)
        return self.pair_teams(stay), floats

    def pair_teams(self, stay: list[int]) -> list[tuple[int, int]]:
        """The pairing of ``stay`` (in ranking order, known to be pairable) closest to the halves: the
        smallest identifier of ``matching.first_pairing``."""
        size = len(stay)
        met = self.met
        allowed = [[j for j in range(size) if j != i and stay[j] not in met[stay[i]]] for i in range(size)]
        return [(stay[i], stay[j]) for i, j in first_pairing(allowed) or ()]

    def floats_by_matching(self, bracket: list[int], lower: list[int]) -> tuple[list[int], list[int]]:
        """When too many sets of floaters would have to be tried: one minimum-weight perfect matching of
        the bracket and the teams below, where a bracket team paired below (a floater) costs more than all
        the rest, and more the higher it is ranked."""
        nodes = bracket + lower
        size = len(bracket)
        big = size * size + 1
        weights = {}
        for i, a in enumerate(nodes):
            for j in range(i + 1, len(nodes)):
                if nodes[j] not in self.met[a]:
                    weights[i, j] = big + size - i if i < size <= j else 0
        found = min_weight_pairing(len(nodes), weights) or []
        floats = {nodes[i] for i, j in found if i < size <= j}
        return [n for n in bracket if n not in floats], [n for n in bracket if n in floats]
