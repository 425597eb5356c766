"""Our own implementation of FIDE C.04.6, the Swiss Team Pairing System (approved 28/10/2025, applied from
1 February 2026), with Type A colour preferences (art. 1.7.1), match points as the primary score and game
points for colours (art. 1.2.2): record 192 ``FIDE_TEAM_TYPEA_MP_GP`` (docs/swiss.md, "The engines").

It reaches the decisions of FIDE's reference implementation (``gacrux``, the yardstick the tests compare
it with round by round) article by article, and is fast because it asks a matching only what each
article needs: whether teams can be paired is mostly settled by counting (``matching.dirac``), and the
pairing of a bracket is computed once, for the set of upfloaters art. 3.5.5 chooses.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations, combinations_with_replacement

from orchestrator.domain.scoring import MatchForfeit, MatchRecord
from orchestrator.domain.swiss.matching import can_be_paired, first_pairing, min_weight_pairing
from orchestrator.domain.swiss.model import SwissState
from orchestrator.domain.swiss.pairing import (
    Pairing,
    RoundPairing,
    SwissPairingError,
    check_pairing,
    check_round_can_be_paired,
)


@dataclass(frozen=True, slots=True)
class Team:
    """A team as C.04.6 sees it before the round: ``tpn`` (art. 1.1), ``mp``/``gp`` the primary and
    secondary scores (art. 1.2; GP in half-points), ``level`` its scoregroup (art. 1.3, higher is
    better), ``played`` the matches played (art. 1.6.1), ``cod``/``csq`` the colour difference and
    sequence of the played matches (art. 1.6), ``pref`` its Type A colour preference ("w", "b" or "",
    art. 1.7.1), ``floated`` whether it was a floater in the previous round (art. 1.5), ``no_bye`` whether
    [C2] art. 2.1.2 bars it from the pairing-allocated bye and ``met`` the teams it played ([C1]) or may
    not meet in the round (a prohibited pairing, record 260, as absolute as [C1]). ``mp`` and ``gp``
    include the virtual points of an accelerated round (record 250), for the pairing only.
    ``gp_primary``: game points are the primary score (art. 1.2.1, record 192 ``..._GP_MP``)."""

    tpn: int
    name: str
    mp: int
    gp: int
    level: int
    played: int
    cod: int
    csq: str
    pref: str
    floated: bool
    no_bye: bool
    met: frozenset[int]
    gp_primary: bool = False

    @property
    def score(self) -> int:
        """The primary score (art. 1.2.1): match points, or game half-points."""
        return self.gp if self.gp_primary else self.mp

    @property
    def secondary(self) -> int:
        """The secondary score (art. 1.2.1), used for colours (art. 4.2.2)."""
        return self.mp if self.gp_primary else self.gp


def colour_preference(cod: int, csq: str) -> str:
    """Art. 1.7.1 (Type A): White when the colour difference is below -1, or is 0 or -1 after two Blacks in
    the last two played matches; Black symmetrically; otherwise none."""
    if cod < -1 or (cod in (0, -1) and csq[-2:] == "bb"):
        return "w"
    if cod > 1 or (cod in (0, 1) and csq[-2:] == "ww"):
        return "b"
    return ""


def teams_before(state: SwissState, round_no: int) -> dict[int, Team]:
    """Every team's standing before ``round_no``, by TPN (the teams to pair and the others alike)."""
    tpn = {team.name: number for number, team in enumerate(state.teams, 1)}
    mp_bye = state.bye_points()[0]
    mp = dict.fromkeys(tpn.values(), 0)
    gp = dict.fromkeys(tpn.values(), 0)
    before_last = dict(mp)  # the scores before the previous round, for its floats (art. 1.5)
    sequence: dict[int, str] = {n: "" for n in tpn.values()}
    met: dict[int, set[int]] = {n: set() for n in tpn.values()}
    no_bye: set[int] = set()
    last_opponent: dict[int, int] = {}
    by_round: dict[int, list[MatchRecord]] = {}
    for match in state.matches:
        by_round.setdefault(match.round, []).append(match)
    requested: dict[int, list[tuple[int, int, int]]] = {}  # round -> (TPN, MP, GP) of byes asked for
    for bye in state.requested_byes:
        requested.setdefault(bye.round, []).append((tpn[bye.team], *state.requested_points(bye)))
    for rnd in range(1, round_no):
        if rnd == round_no - 1:
            before_last = dict(gp if state.primary == "gp" else mp)
        for number, extra_mp, extra_gp in requested.get(rnd, ()):  # record 240 F, H: scored, not played
            mp[number] += extra_mp
            gp[number] += extra_gp
        for match in by_round.get(rnd, ()):
            a = tpn[match.team_a]
            if match.team_b is None:  # the pairing-allocated bye (art. 1.4)
                mp[a] += mp_bye
                gp[a] += match.gp_a
                no_bye.add(a)
                continue
            b = tpn[match.team_b]
            mp_a, mp_b = match.mp(state.scoring)
            mp[a], mp[b] = mp[a] + mp_a, mp[b] + mp_b
            gp[a], gp[b] = gp[a] + match.gp_a, gp[b] + match.gp_b
            if match.forfeit is MatchForfeit.A_WINS:
                no_bye.add(a)
            elif match.forfeit is MatchForfeit.B_WINS:
                no_bye.add(b)
            if match.is_played:
                sequence[a] += "w"  # the first-named team has White on board 1 (art. 1.6)
                sequence[b] += "b"
                met[a].add(b)
                met[b].add(a)
                if rnd == round_no - 1:
                    last_opponent[a], last_opponent[b] = b, a
    for name, number in tpn.items():  # the arbiter's bonus and penalty points (record 299)
        extra_mp, extra_gp = state.adjusted(name, round_no)
        virtual_mp, virtual_gp = state.virtual(name, round_no)  # record 250: for this pairing only
        mp[number] += extra_mp + virtual_mp
        gp[number] += extra_gp + virtual_gp
    gp_primary = state.primary == "gp"
    primary = gp if gp_primary else mp
    available = {tpn[name] for name in state.available(round_no)}
    levels = {score: level for level, score in enumerate(sorted({primary[n] for n in available}), 1)}
    names = {number: name for name, number in tpn.items()}

    def _before(scores: dict[int, int], number: int) -> int:
        """The primary score a team had before the previous round, adjustments and the virtual points
        of that round's pairing included (art. 1.5)."""
        index = 1 if gp_primary else 0
        name = names[number]
        return (
            scores[number]
            + state.adjusted(name, round_no - 1)[index]
            + state.virtual(name, round_no - 1)[index]
        )

    out: dict[int, Team] = {}
    for name, number in tpn.items():
        csq = sequence[number]
        cod = csq.count("w") - csq.count("b")
        opponent = last_opponent.get(number)
        floated = opponent is not None and _before(before_last, number) != _before(before_last, opponent)
        pref = colour_preference(cod, csq) if state.colour_model == "A" else ""
        out[number] = Team(
            tpn=number,
            name=name,
            mp=mp[number],
            gp=gp[number],
            level=levels.get(primary[number], 0) if number in available else 0,
            played=len(csq),
            cod=cod,
            csq=csq,
            pref=pref,
            floated=floated,
            no_bye=number in no_bye,
            met=frozenset(met[number]) | {tpn[other] for other in state.prohibited(name, round_no)},
            gp_primary=gp_primary,
        )
    return out


class NoLegalPairing(Exception):
    """Art. 3.3.3: the round-pairing cannot be completed; the Chief Arbiter decides what to do."""


class _Round:
    """The pairing process of art. 3.3.2 for one round: the bye (art. 3.4), then each top-scoregroup with
    its upfloaters (art. 3.5) paired as a bracket (art. 3.6), until every team is paired."""

    def __init__(self, teams: dict[int, Team], to_pair: Sequence[int], *, last_two: bool) -> None:
        self.teams = teams
        self.met = {n: teams[n].met for n in to_pair}
        self.last_two = last_two  # arts. 2.3.4 [C7] and 2.3.7 [C10] do not apply in the last two rounds
        self.remaining = sorted(to_pair, key=self._order)
        self._cache: dict[frozenset[int], bool] = {}

    def _order(self, number: int) -> tuple[int, int]:
        return -self.teams[number].level, number

    def pairable(self, nodes: Sequence[int] | frozenset[int]) -> bool:
        """[C3] art. 2.2.1: the teams can all be paired with one another ([C1])."""
        key = frozenset(nodes)
        known = self._cache.get(key)
        if known is None:
            known = self._cache[key] = can_be_paired(sorted(key), self.met)
        return known

    def bye(self) -> int | None:
        """Art. 3.4: with an odd number of teams the bye goes to the team that leaves a legal pairing for
        the others (3.4.1) with the lowest score (3.4.2), the most matches played (3.4.3) and the largest
        TPN (3.4.4); [C2] art. 2.1.2 bars a team that has had one or won a match by forfeit."""
        if len(self.remaining) % 2 == 0:
            return None
        teams = self.teams
        candidates = sorted(
            (n for n in self.remaining if not teams[n].no_bye),
            key=lambda n: (teams[n].level, -teams[n].played, -n),
        )
        for number in candidates:
            rest = frozenset(self.remaining) - {number}
            if self.pairable(rest):
                self.remaining.remove(number)
                return number
        raise NoLegalPairing("no team can receive the bye and leave a legal pairing (art. 3.4.1)")

    def brackets(self) -> list[tuple[int, int]]:
        """Arts. 3.3.2 and 3.5-3.6: the pairs (in no particular order), scoregroup after scoregroup."""
        pairs: list[tuple[int, int]] = []
        top = self.teams[self.remaining[0]].level if self.remaining else 0
        for level in range(top, 0, -1):
            residents = [n for n in self.remaining if self.teams[n].level == level]
            if not residents:
                continue  # the whole scoregroup floated up into a bracket above
            upfloaters = self.select_upfloaters(level, residents)
            bracket = residents + upfloaters
            found = self.pair_bracket(level, bracket)
            if found is None:  # cannot happen: select_upfloaters checked the bracket can be paired
                raise NoLegalPairing(f"the bracket of scoregroup {level} cannot be paired")
            pairs += found
            taken = set(bracket)
            self.remaining = [n for n in self.remaining if n not in taken]
        if self.remaining:
            raise NoLegalPairing(f"{len(self.remaining)} team(s) left after every bracket")
        return pairs

    def select_upfloaters(self, level: int, residents: list[int]) -> list[int]:
        """Art. 3.5: the fewest upfloaters ([C4] art. 2.3.1) with the highest scores ([C5] art. 2.3.2),
        sets in the order of arts. 3.5.3-3.5.4; the first set that lets the bracket and the rest be paired
        ([C3]) and best complies with [C6] (art. 2.3.3) and then [C7] (art. 2.3.4) wins (art. 3.5.5)."""
        lower = [n for n in self.remaining if self.teams[n].level < level]
        for count in range(len(residents) % 2, len(lower) + 1, 2):
            for profile in self._profiles(lower, count):
                best: tuple[tuple[int, int, int], list[int]] | None = None
                for index, upfloaters in enumerate(self._sets(lower, profile)):
                    bracket = residents + upfloaters
                    if not self.pairable(bracket):
                        continue
                    rest = frozenset(self.remaining) - set(bracket)
                    if not self.pairable(rest):
                        continue  # [C3] art. 2.2.1
                    c6 = 0 if self._c6(level, rest) else 1
                    c7 = 0 if self.last_two else sum(1 for n in upfloaters if self.teams[n].floated)
                    key = (c6, c7, index)
                    if best is None or key < best[0]:
                        best = (key, upfloaters)
                    if c6 == 0 and c7 == 0:
                        break
                if best is not None:
                    return best[1]
        raise NoLegalPairing(f"scoregroup {level} cannot be paired with any set of upfloaters (art. 3.3.3)")

    def _profiles(self, lower: list[int], count: int) -> list[tuple[int, ...]]:
        """[C5] art. 2.3.2: the score levels a set of ``count`` upfloaters can have, best first (their
        scores taken in ascending order, the highest first)."""
        sizes: dict[int, int] = {}
        for n in lower:
            sizes[self.teams[n].level] = sizes.get(self.teams[n].level, 0) + 1
        profiles = [
            profile
            for profile in combinations_with_replacement(sorted(sizes, reverse=True), count)
            if all(profile.count(level) <= sizes[level] for level in set(profile))
        ]
        return sorted(profiles, key=sorted, reverse=True)

    def _sets(self, lower: list[int], profile: tuple[int, ...]) -> Iterator[list[int]]:
        """Arts. 3.5.3-3.5.4: the sets of upfloaters with this profile in lexicographic order of their TPNs
        (each set by descending score, then ascending TPN), one at a time."""
        levels = sorted(set(profile), reverse=True)
        candidates = [sorted(n for n in lower if self.teams[n].level == level) for level in levels]
        counts = [profile.count(level) for level in levels]

        def sets_from(index: int) -> Iterator[list[int]]:
            if index == len(levels):
                yield []
                return
            for chosen in combinations(candidates[index], counts[index]):
                for rest in sets_from(index + 1):
                    yield list(chosen) + rest

        return sets_from(0)

    def _c6(self, level: int, rest: frozenset[int]) -> bool:
        """[C6] art. 2.3.3: what is left of the next scoregroup can be paired ([C1], [C3]) with the fewest
        upfloaters its size allows ([C4]): none when even, one from any lower scoregroup when odd."""
        following = [n for n in rest if self.teams[n].level == level - 1]
        if not following:
            return True
        if len(following) % 2 == 0:
            options: list[list[int]] = [[]]
        else:
            options = [[n] for n in rest if self.teams[n].level < level - 1]
        for upfloaters in options:
            bracket = following + upfloaters
            if self.pairable(bracket) and self.pairable(rest - set(bracket)):
                return True
        return False

    def pair_bracket(self, level: int, bracket: list[int]) -> list[tuple[int, int]] | None:
        """Art. 3.6: the bracket's teams in TPN order (3.6.1); of the pairings that comply with [C1], the
        one that best complies with [C8] (art. 2.3.5) and [C10] (art. 2.3.7) and then has the smallest
        identifier (3.6.2-3.6.4). ([C9] art. 2.3.6 is Type B only.)"""
        order = sorted(bracket)
        size = len(order)
        costs: dict[tuple[int, int], int] = {}
        for i, a in enumerate(order):
            for j in range(i + 1, size):
                b = order[j]
                if b not in self.met[a]:
                    costs[i, j] = self._cost(level, self.teams[a], self.teams[b])
        free = [[j for j in range(size) if costs.get((min(i, j), max(i, j))) == 0] for i in range(size)]
        found = first_pairing(free)  # every pair complies with [C8] and [C10]
        if found is None and any(costs.values()):
            found = min_weight_pairing(size, bracket_weights(size, costs))
        if found is None:
            return None
        return [(order[i], order[j]) for i, j in found]

    def _cost(self, level: int, a: Team, b: Team) -> int:
        """[C8] (both teams prefer the same colour) before [C10] (an upfloater's opponent that floated in
        the previous round), as one number: [C8] counts 1000, [C10] 1 per upfloater."""
        c8 = 1 if a.pref and a.pref == b.pref else 0
        c10 = 0
        if not self.last_two:
            c10 = (a.level < level and b.floated) + (b.level < level and a.floated)
        return 1000 * c8 + c10


def bracket_weights(size: int, costs: dict[tuple[int, int], int]) -> dict[tuple[int, int], int]:
    """The weights of the reference implementation: [C8], [C10], then the identifier of art. 3.6.2
    (a bottom member ``b`` costs 2**(B-b) above everything the bottom members' order can add, and
    ``b * (B+1)**(B-top)`` for that order), scaled so that each part outweighs all those after it."""
    base = size + 1
    w_top = base**size
    w_c10 = w_top * 2**size
    w_c8 = w_c10 * base * base
    weights = {}
    for (i, j), cost in costs.items():
        c8, c10 = divmod(cost, 1000)
        top, bottom = i + 1, j + 1
        identifier = w_top * 2 ** (size - bottom) + bottom * base ** (size - top)
        weights[i, j] = c8 * w_c8 + c10 * w_c10 + identifier
    return weights


def first_team(a: Team, b: Team) -> bool:
    """Art. 4.2: whether ``a`` is the first-team: the higher primary score (4.2.1), then the higher
    secondary score (4.2.2), then the smaller TPN (4.2.3)."""
    if a.score != b.score:
        return a.score > b.score
    if a.secondary != b.secondary:
        return a.secondary > b.secondary
    return a.tpn < b.tpn


def colours(a: Team, b: Team, initial: str) -> tuple[Team, Team]:
    """Art. 4.3: the pair as (White, Black), White being the first-named team. ``initial`` is the
    initial-colour drawn by lot (art. 4.1), "w" or "b"."""
    first, second = (a, b) if first_team(a, b) else (b, a)
    other = {"w": "b", "b": "w"}

    def give(colour: str) -> tuple[Team, Team]:
        return (first, second) if colour == "w" else (second, first)

    if first.played == 0 and second.played == 0:  # 4.3.1
        return give(initial if first.tpn % 2 == 1 else other[initial])
    if first.pref and not second.pref:  # 4.3.2
        return give(first.pref)
    if second.pref and not first.pref:
        return give(other[second.pref])
    if first.pref and second.pref and first.pref != second.pref:  # 4.3.3
        return give(first.pref)
    if first.cod != second.cod:  # 4.3.5 (4.3.4 is Type B only)
        return give("w" if first.cod < second.cod else "b")
    for mine, theirs in zip(reversed(first.csq), reversed(second.csq), strict=False):  # 4.3.6
        if mine != theirs:
            return give(other[mine])
    if first.pref:  # 4.3.7
        return give(first.pref)
    if first.csq:  # 4.3.8
        return give(other[first.csq[-1]])
    return give(second.csq[-1])  # 4.3.9


def board_order(pair: tuple[Team, Team]) -> tuple[int, int, int]:
    """C.04.6 leaves the board order to the rules of the competition: the higher score of the pair, then
    the sum of the scores, then the smaller TPN (the bye, not a pair, comes last)."""
    a, b = pair
    return -max(a.score, b.score), -(a.score + b.score), min(a.tpn, b.tpn)


class C046Pairer:
    """``SwissPairer`` for FIDE C.04.6 with Type A colours, computed in process (docs/swiss.md)."""

    def pair_round(self, state: SwissState, round_no: int) -> RoundPairing:
        names = check_round_can_be_paired(state, round_no)
        teams = teams_before(state, round_no)
        number = {team.name: n for n, team in teams.items()}
        to_pair = [number[name] for name in names]
        process = _Round(teams, to_pair, last_two=round_no > state.rounds - 2)
        try:
            bye = process.bye()
            pairs = process.brackets()
        except NoLegalPairing as error:
            raise SwissPairingError(
                f"round {round_no} cannot be paired (no legal pairing exists: {error}; C.04.6 art. 3.3.3 "
                f"leaves the round to the Chief Arbiter); teams to pair: {', '.join(names)}",
                round_no=round_no,
                teams=names,
            ) from None
        initial = state.initial_colour.lower()
        coloured = [colours(teams[a], teams[b], initial) for a, b in pairs]
        coloured.sort(key=board_order)
        pairings = tuple(Pairing(board, w.name, b.name) for board, (w, b) in enumerate(coloured, 1))
        not_paired = tuple(team.name for team in state.teams if team.name not in set(names))
        result = RoundPairing(round_no, pairings, None if bye is None else teams[bye].name, not_paired)
        check_pairing(state, result)
        return result
