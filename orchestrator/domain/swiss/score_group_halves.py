"""Score-group halves, the simple reading of how an Olympiad is paired (pairing value
``score-group-halves``; docs/swiss.md, "Pairing systems").

The teams with the same match points form a score group, ordered by game points (then initial pairing
number); the group is split in halves and paired 1 v n/2+1, 2 v n/2+2, ... (six teams: 1 v 4, 2 v 5,
3 v 6). An odd group floats its lowest team down; no two teams meet twice (the pairing is transposed or
teams exchanged within the group when needed, ``halves.py``). Where that reading is silent we follow the
Olympiad Pairing Rules 2022: the bye to the lowest-ranked team that has not had one (art. 4.1, 4.2.1) and
the colours of art. 7 (``olympiad2022.art7_colours``), without art. 7.3 constraining the pairing.
"""

from __future__ import annotations

from orchestrator.domain.swiss.c046 import Team
from orchestrator.domain.swiss.halves import HalvesSystem, pair_by_halves
from orchestrator.domain.swiss.model import SwissState
from orchestrator.domain.swiss.olympiad2022 import art7_colours
from orchestrator.domain.swiss.pairing import SCORE_GROUP_HALVES, RoundPairing


def _rank(team: Team) -> tuple[int, ...]:
    return (-team.mp, -team.gp, team.tpn)


def _bye_ok(state: SwissState, team: Team) -> bool:
    return not state.had_bye(team.name)


HALVES_RULES = HalvesSystem(SCORE_GROUP_HALVES, _rank, _bye_ok, art7_colours)


class ScoreGroupHalvesPairer:
    """``SwissPairer`` for score-group halves (module docstring)."""

    def pair_round(self, state: SwissState, round_no: int) -> RoundPairing:
        return pair_by_halves(HALVES_RULES, state, round_no)
