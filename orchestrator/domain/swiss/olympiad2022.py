"""The Olympiad Pairing Rules 2022 (FIDE Handbook D.02, approved by the FIDE Council on 27/10/2021,
effective 1 January 2022, still used in 2026): pairing value ``olympiad-2022`` (docs/swiss.md, "Pairing
systems"). Each decision cites its article ("Olympiad Pairing Rules 2022, art. N").

- Art. 3.1: the initial pairing numbers (``model.initial_ranking``): the average rating of the four
  highest-rated players, then the fifth player's rating, then alphabetically; an unrated player counts as
  the minimum FIDE rating (``model.RATING_FLOOR``, 1400).
- Art. 3.2: before each later round the teams are ranked by match points, then initial pairing number.
- Art. 4: with an odd number of teams the bye goes to the eligible team ranked lowest (4.1); a team that
  has had the bye (4.2.1) or won a match by default (4.2.2) is not eligible. It scores the stage's bye
  value (1 match point and 2 game points with four boards).
- Art. 5: games not finished when a round is paired count as draws for the pairing (the state given to the
  engine already holds them as draws: ``services/swiss/state.py``, ``count_unfinished_as_draws``).
- Art. 6: no two teams meet twice. The score groups (the teams with the same match points) are paired
  from the top group down to the group just above the median, then from the bottom group up to the group
  just below it, then the median group (the teams on half the match points played for). Within a group
  the top half meets the bottom half (1 v n/2+1, 2 v n/2+2, ...), a rematch or a colour clash avoided by
  the first transposition of the bottom half (``transpose``; below the median from the other end). A
  team left over in a group floats into the next group paired: going down, the lowest team of the higher
  group meets the highest team of the lower group it may meet; going up, the highest team of the lower
  group meets the lowest team of the higher group it may meet. Every choice is kept only if the teams
  not yet paired can still all be paired; above the median, the floats are first chosen so that the
  teams on or above the median can be paired without a team from below it (``_Round.apart``: a median
  group whose teams met each other takes its floaters from the group above, as the Samarkand 2026
  pairings show it).
- Art. 7: the colours of board 1 (``art7_colours``); the pairing avoids the pairs whose colours would break
  art. 7.3 unless only an extra float could avoid them (7.4).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from fractions import Fraction
from itertools import combinations

from orchestrator.domain.swiss.c046 import Team, bracket_weights, teams_before
from orchestrator.domain.swiss.matching import bye_and_rest, can_be_paired, min_weight_pairing
from orchestrator.domain.swiss.model import SwissState
from orchestrator.domain.swiss.pairing import (
    OLYMPIAD_2022,
    Pairing,
    RoundPairing,
    SwissPairingError,
    check_pairing,
    check_round_can_be_paired,
)

OTHER = {"w": "b", "b": "w"}
# Sets of floaters tried in one score group before one weighted matching chooses them (docs/swiss.md).
MAX_FLOAT_SETS = 2000
DOWN, UP = 1, -1  # which way a score group floats its leftover team (art. 6)
MEDIAN = 0


def banned(team: Team, colour: str) -> bool:
    """Art. 7.3: a colour that would take the team's colour difference beyond +2 or -2, or give it the same
    colour three times in a row (colours of played matches only, art. 7.7)."""
    difference = team.cod + (1 if colour == "w" else -1)
    return abs(difference) > 2 or team.csq[-2:] == colour * 2


def wish(team: Team) -> str:
    """Art. 7.5: the colour that equalises the team's colours, or with equal colours the one that
    alternates with its last played match; none before its first played match."""
    if team.cod:
        return "w" if team.cod < 0 else "b"
    return OTHER[team.csq[-1]] if team.csq else ""


def art7_colours(high: Team, low: Team, board: int, initial: str) -> tuple[Team, Team]:
    """Art. 7: (White, Black) on board 1 for ``high`` (the higher-ranked team) and ``low``.

    7.1: the colour is the team's board-1 colour, whoever plays there. 7.2: when neither team has played a
    match, the higher-ranked team gets the colour drawn by lot on odd boards, the other on even boards.
    7.3: when only one way respects the bans, that way. 7.5: each team's wish (equalise, then alternate);
    when both wish the same colour, the larger colour difference gets it, and 7.6: with equal differences
    the history is walked back to the last round where their colours differed, and each gets the colour
    it did not have then; identical histories give the higher-ranked team its wish. 7.7: an unplayed
    match (a forfeit, the bye) gives no colour.
    """

    def give(colour: str) -> tuple[Team, Team]:
        return (high, low) if colour == "w" else (low, high)

    if not high.csq and not low.csq:
        return give(initial if board % 2 else OTHER[initial])
    legal = [c for c in "wb" if not banned(high, c) and not banned(low, OTHER[c])]
    if len(legal) == 1:
        return give(legal[0])
    mine, theirs = wish(high), wish(low)
    if not theirs or (mine and mine != theirs):
        return give(mine or OTHER[theirs])
    if not mine:
        return give(OTHER[theirs])
    if abs(high.cod) != abs(low.cod):
        return give(mine if abs(high.cod) > abs(low.cod) else OTHER[theirs])
    for had, they_had in zip(reversed(high.csq), reversed(low.csq), strict=False):
        if had != they_had:
            return give(OTHER[had])
    return give(mine)


def rank_key(team: Team) -> tuple[int, int]:
    """Olympiad Pairing Rules 2022, art. 3.2: match points (descending), then the initial pairing number."""
    return (-team.mp, team.tpn)


def bye_eligible(team: Team) -> bool:
    """Olympiad Pairing Rules 2022, art. 4.2: not a team that has had the bye (4.2.1) or won a match by
    default (4.2.2)."""
    return not team.no_bye


def is_above_median(mp: int, round_no: int, win: int) -> int:
    """Olympiad Pairing Rules 2022, art. 6: +1 for a score above the median (half the match points of the
    rounds played, ``(round_no - 1) * win / 2``), -1 below it, 0 on it (the median group)."""
    median = Fraction((round_no - 1) * win, 2)
    return (mp > median) - (mp < median)


def transpose(
    order: Sequence[int], blocked: Mapping[int, Collection[int]], *, across: bool
) -> list[tuple[int, int]]:
    """Olympiad Pairing Rules 2022, art. 6: ``order`` (a score group, in ranking order) paired top half
    against bottom half, 1 v n/2+1, 2 v n/2+2, ..., with the smallest change when a pair may not be made
    (``blocked`` holds, per team, the teams it may not meet: the rematches, and the colour clashes of
    art. 7.3). As the published Olympiad pairings do it: the top half from its highest team down, each
    takes the first free team of the bottom half it may meet (then the first free team below it in the
    top half), each choice only if the free teams can still all be paired; the teams still free are
    then paired in ranking order. The result is the bottom half's lexicographically first
    transposition. ``across``: only top-half against bottom-half pairs whenever the group can be paired
    so. ``order`` must be pairable avoiding ``blocked``.

    ``halves`` hands a group above or on the median over in ranking order (``across`` above it only),
    and a group below the median reversed: there the bottom half is gone through from its lowest team
    up, each taking the lowest free team of the top half it may meet. Both as in the Chennai 2022
    pairings (docs/swiss.md, "Replaying a real Olympiad").
    """
    half = len(order) // 2
    top, bottom = set(order[:half]), set(order[half:])
    halves = {a: {*blocked[a], *(top if a in top else bottom)} - {a} for a in order}
    if across and can_be_paired(sorted(order), halves):
        blocked = halves
    free = set(order)
    pairs: list[tuple[int, int]] = []

    def take(team: int, candidates: Sequence[int]) -> None:
        for other in candidates:
            if (
                other in free
                and other not in blocked[team]
                and can_be_paired(sorted(free - {team, other}), blocked)
            ):
                pairs.append((team, other))
                free.difference_update((team, other))
                return

    for index in range(half):
        take(order[index], [*order[half:], *order[index + 1 : half]])
    for index, team in enumerate(order):
        if team in free:
            take(team, order[index + 1 :])
    return pairs


class Olympiad2022Pairer:
    """``SwissPairer`` for the Olympiad Pairing Rules 2022 (module docstring)."""

    def pair_round(self, state: SwissState, round_no: int) -> RoundPairing:
        names = check_round_can_be_paired(state, round_no, system=OLYMPIAD_2022)
        teams = teams_before(state, round_no)
        number = {team.name: n for n, team in teams.items()}
        order = sorted((number[name] for name in names), key=lambda n: rank_key(teams[n]))  # art. 3.2
        met = {n: teams[n].met for n in order}

        def fail(why: str) -> SwissPairingError:
            return SwissPairingError(
                f"round {round_no} cannot be paired by {OLYMPIAD_2022}: {why}; "
                f"teams to pair: {', '.join(names)}",
                round_no=round_no,
                teams=names,
            )

        bye = bye_and_rest(order, met, lambda n: bye_eligible(teams[n]), fail)
        side = {n: is_above_median(teams[n].mp, round_no, state.scoring.win) for n in order}
        pairs = pair_score_groups(teams, order, side)
        position = {n: index for index, n in enumerate(order)}
        pairs.sort(key=lambda pair: min(position[pair[0]], position[pair[1]]))
        initial = state.initial_colour.lower()
        pairings = []
        for board, (a, b) in enumerate(pairs, 1):
            high, low = (a, b) if position[a] < position[b] else (b, a)
            white, black = art7_colours(teams[high], teams[low], board, initial)
            pairings.append(Pairing(board, white.name, black.name))
        not_paired = tuple(team.name for team in state.teams if team.name not in set(names))
        result = RoundPairing(round_no, tuple(pairings), None if bye is None else teams[bye].name, not_paired)
        check_pairing(state, result)
        return result


def pair_score_groups(
    teams: Mapping[int, Team], order: list[int], side: Mapping[int, int]
) -> list[tuple[int, int]]:
    """Olympiad Pairing Rules 2022, art. 6: every pair of the round. ``order`` holds the teams to pair (the
    bye removed) in the order of art. 3.2 and must be pairable without a rematch; ``side`` says, per team,
    whether its score is above (+1), on (0) or below (-1) the median (``is_above_median``)."""
    return _Round(dict(teams), {n: teams[n].met for n in order}, order).pair(dict(side))


class _Round:
    """The score groups of one round (art. 6), paired in the order of the rules: top down to the group
    just above the median, bottom up to the group just below it, then the median group. ``unpaired`` is
    every team not yet paired; each choice keeps it pairable."""

    def __init__(self, teams: dict[int, Team], met: dict[int, frozenset[int]], order: list[int]) -> None:
        self.teams = teams
        self.met = met
        self.order = order
        self.unpaired = set(order)
        self.pairs: list[tuple[int, int]] = []
        self.side: dict[int, int] = {}
        self._cache: dict[frozenset[int], bool] = {}
        # per team, whether White and whether Black would break art. 7.3 (read by every ``clash``)
        self._bans = {n: (banned(team, "w"), banned(team, "b")) for n, team in teams.items()}

    def pairable(self, nodes: set[int] | frozenset[int] | Sequence[int]) -> bool:
        key = frozenset(nodes)
        if key not in self._cache:
            self._cache[key] = can_be_paired(sorted(key), self.met)
        return self._cache[key]

    def clash(self, a: int, b: int) -> bool:
        """Art. 7.3: whichever team has White on board 1, one of them breaks a colour ban."""
        (a_white, a_black), (b_white, b_black) = self._bans[a], self._bans[b]
        return (a_white or b_black) and (a_black or b_white)

    def groups(self, members: list[int]) -> list[list[int]]:
        """The score groups of ``members`` (in ranking order), the highest first."""
        found: list[list[int]] = []
        for n in members:
            if found and self.teams[found[-1][0]].mp == self.teams[n].mp:
                found[-1].append(n)
            else:
                found.append([n])
        return found

    def pair(self, side: dict[int, int]) -> list[tuple[int, int]]:
        """Art. 6: every pair of the round."""
        self.side = side
        down: list[int] = []
        for group in self.groups([n for n in self.order if side[n] > 0]):
            down = self.bracket(down, group, DOWN)
        up: list[int] = []
        for group in reversed(self.groups([n for n in self.order if side[n] < 0])):
            up = self.bracket(up, group, UP)
        middle = [n for n in self.order if side[n] == 0]
        self.median(down, middle, up)
        return self.pairs

    def take(self, a: int, b: int) -> None:
        self.pairs.append((a, b))
        self.unpaired -= {a, b}

    def meet_floater(self, floater: int, residents: list[int]) -> int | None:
        """Art. 6: the resident a floater meets: the first of ``residents`` (nearest first) it has not met,
        whose pair leaves the unpaired teams pairable; a pair breaking art. 7.3 only when no other exists
        (7.4). None when it meets none of them (it floats on)."""
        candidates = [r for r in residents if r not in self.met[floater]]
        for strict in (True, False):
            for resident in candidates:
                if strict and self.clash(floater, resident):
                    continue
                if self.pairable(self.unpaired - {floater, resident}):
                    return resident
        return None

    def receive(self, incoming: list[int], residents: list[int], direction: int) -> list[int]:
        """Pairs the floaters into the group (going down, each meets the highest resident it may meet;
        going up, the lowest) and returns the residents left, with the floaters that met none of them."""
        left = list(residents)
        stranded: list[int] = []
        for floater in incoming if direction == DOWN else list(reversed(incoming)):
            found = self.meet_floater(floater, left if direction == DOWN else left[::-1])
            if found is None:
                stranded.append(floater)
                continue
            self.take(floater, found)
            left.remove(found)
        return sorted(stranded + left, key=self.order.index)

    def bracket(self, incoming: list[int], residents: list[int], direction: int) -> list[int]:
        """One score group above or below the median: the floaters it receives first (``receive``), then
        its other teams by halves; the fewest teams float on (going down the lowest, going up the highest),
        so that the teams that stay and the teams not yet paired can each be paired. Above the median the
        floats are first chosen so that the teams on or above the median need no team from below it
        (``apart``), then, when no such floats exist, as before."""
        left = self.receive(incoming, residents, direction)
        for apart in (True, False) if direction == DOWN else (False,):
            floats = self.float_sets(left, direction, apart=apart)
            if floats is not None:
                return floats
        stay, floats = self.floats_by_matching(left, direction)
        for a, b in self.halves(stay, strict=False, direction=direction) or []:
            self.take(a, b)
        return floats

    def apart(self, stay: list[int]) -> bool:
        """Art. 6, the order of the groups, as the Samarkand 2026 pairings show it: after a group above the
        median keeps ``stay``, the teams not yet paired on or above the median (the groups still to pair
        above it, its floaters and the median group) and those below it can each be paired among
        themselves, so that no team comes up from below into the median group (an odd number on or above
        the median needs one: then any floats do)."""
        above = {n for n in self.unpaired if self.side[n] >= 0} - set(stay)
        below = {n for n in self.unpaired if self.side[n] < 0}
        return len(above) % 2 == 1 or (self.pairable(above) and self.pairable(below))

    def float_sets(self, left: list[int], direction: int, *, apart: bool) -> list[int] | None:
        """``bracket``'s floats: the fewest (then the nearest to the side they float to) that leave the
        group and the other unpaired teams pairable (and, ``apart``, the teams on or above the median
        pairable without a team from below); the group's pairs taken. None when there are none or too many
        sets to try."""
        size = len(left)
        nearest = range(size - 1, -1, -1) if direction == DOWN else range(size)
        tried = 0
        for count in range(size % 2, size + 1, 2):
            fallback: tuple[list[int], list[int]] | None = None
            for chosen in combinations(nearest, count):
                tried += 1
                if tried > MAX_FLOAT_SETS:
                    return None
                floats = [left[i] for i in sorted(chosen)]
                stay = [n for i, n in enumerate(left) if i not in chosen]
                if not self.pairable(stay) or not self.pairable(self.unpaired - set(stay)):
                    continue
                if apart and not self.apart(stay):
                    continue
                found = self.halves(stay, strict=True, direction=direction)
                if found is None:
                    fallback = fallback or (stay, floats)
                    continue
                for a, b in found:
                    self.take(a, b)
                return floats
            if fallback is not None:
                for a, b in self.halves(fallback[0], strict=False, direction=direction) or []:
                    self.take(a, b)
                return fallback[1]
        return None

    def median(self, down: list[int], middle: list[int], up: list[int]) -> None:
        """Art. 6: the median group last, with the floaters from above (each meets the highest team it may
        meet) and from below (each meets the lowest); the rest by halves."""
        left = self.receive(down, middle + up, DOWN)
        rest_up = [n for n in up if n in left]
        left = [n for n in left if n not in rest_up]
        left = self.receive(rest_up, left, UP)
        for a, b in self.halves(left, strict=False, direction=MEDIAN) or []:
            self.take(a, b)

    def halves(self, stay: list[int], *, strict: bool, direction: int) -> list[tuple[int, int]] | None:
        """Art. 6: ``stay`` (in ranking order) paired top half against bottom half (1 v n/2+1, ...); a
        rematch is avoided as the arbiters do it (``transpose``; ``direction``: DOWN above the median, UP
        below it, MEDIAN on it). Art. 7.4: the pairs that would break art. 7.3 are left out; when that
        leaves no pairing, ``strict`` gives None, otherwise the fewest are made."""
        size = len(stay)
        blocked = {a: self.met[a] | {b for b in stay if b != a and self.clash(a, b)} for a in stay}
        if can_be_paired(sorted(stay), blocked):
            return transpose(stay[::-1] if direction == UP else stay, blocked, across=direction == DOWN)
        if strict:
            return None
        allowed = [
            [j for j in range(size) if j != i and stay[j] not in self.met[stay[i]]] for i in range(size)
        ]
        costs = {
            (i, j): 1000 * self.clash(stay[i], stay[j]) for i, row in enumerate(allowed) for j in row if j > i
        }
        found = min_weight_pairing(size, bracket_weights(size, costs))
        return None if found is None else [(stay[i], stay[j]) for i, j in found]

    def floats_by_matching(self, left: list[int], direction: int) -> tuple[list[int], list[int]]:
        """When too many sets of floaters would have to be tried: one minimum-weight perfect matching of
        the group and the other unpaired teams, a group team paired outside it (a floater) costing more
        than all the rest, and more the farther it is from the side it floats to."""
        others = sorted(self.unpaired - set(left), key=self.order.index)
        nodes = left + others
        size = len(left)
        big = size * size + 1
        weights = {}
        for i, a in enumerate(nodes):
            for j in range(i + 1, len(nodes)):
                if nodes[j] not in self.met[a]:
                    weights[i, j] = big + (size - i if direction == DOWN else i + 1) if i < size <= j else 0
        found = min_weight_pairing(len(nodes), weights) or []
        floats = {nodes[i] for i, j in found if i < size <= j}
        return [n for n in left if n not in floats], [n for n in left if n in floats]
