"""The Olympiad Pairing Rules 2022 (approved by the FIDE Council on 27/10/2021, still used in 2026):
pairing value ``olympiad-2022`` (docs/swiss.md, "Pairing systems").

- Art. 3.1: the initial pairing numbers (``model.initial_ranking``, as for every stage).
- Art. 3.2: before each later round the teams are ranked by match points, then initial pairing number.
- Art. 4: with an odd number of teams the bye goes to the eligible team ranked lowest (4.1); a team that
  has had the bye (4.2.1) or won a match by default (4.2.2) is not eligible. It scores the stage's bye
  value (1 match point and 2 game points with four boards).
- Art. 6: no two teams meet twice; the score groups are paired by halves (``halves.py``).
- Art. 7: the colours of board 1 (``art7_colours``); the pairing avoids the pairs whose colours would break
  art. 7.3 unless only an extra float could avoid them (7.4).
"""

from __future__ import annotations

from orchestrator.domain.swiss.c046 import Team
from orchestrator.domain.swiss.halves import OTHER, HalvesSystem, pair_by_halves
from orchestrator.domain.swiss.model import SwissState
from orchestrator.domain.swiss.pairing import OLYMPIAD_2022, RoundPairing


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


def _rank(team: Team) -> tuple[int, ...]:
    return (-team.mp, team.tpn)  # art. 3.2


def _bye_ok(_state: SwissState, team: Team) -> bool:
    return not team.no_bye  # art. 4.2: no earlier bye, no match won by default


OLYMPIAD_RULES = HalvesSystem(OLYMPIAD_2022, _rank, _bye_ok, art7_colours, banned)


class Olympiad2022Pairer:
    """``SwissPairer`` for the Olympiad Pairing Rules 2022 (module docstring)."""

    def pair_round(self, state: SwissState, round_no: int) -> RoundPairing:
        return pair_by_halves(OLYMPIAD_RULES, state, round_no)
