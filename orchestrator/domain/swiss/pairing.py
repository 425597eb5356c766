"""A Swiss round's pairing, the port that computes it, and the checks every pairing passes
(docs/swiss.md): no rematch, at most one pairing-allocated bye, never twice to one team."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations
from typing import Protocol

from orchestrator.domain.scoring import MatchRecord
from orchestrator.domain.swiss.model import SwissError, SwissState, bye_match

# Pairing systems a Swiss stage can name (docs/swiss.md, "Pairing systems"); ``systems.pairer_for`` gives
# each one's engine.
FIDE_TEAM_SWISS = "fide-team-swiss"
OLYMPIAD_2022 = "olympiad-2022"
SCORE_GROUP_HALVES = "score-group-halves"
PAIRING_SYSTEMS = (FIDE_TEAM_SWISS, OLYMPIAD_2022, SCORE_GROUP_HALVES)


class SwissPairingError(SwissError):
    """A round that cannot be paired; the message names the round and the teams concerned."""

    def __init__(self, message: str, *, round_no: int, teams: Iterable[str] = ()) -> None:
        super().__init__(message)
        self.round_no = round_no
        self.teams = tuple(teams)


@dataclass(frozen=True, slots=True)
class Pairing:
    """One match of a round: ``first`` is the first-named team, White on the odd boards (Olympiad 2026
    Art. 4.1)."""

    board: int
    first: str
    second: str


@dataclass(frozen=True, slots=True)
class RoundPairing:
    """A round's matches in board order, the team with the pairing-allocated bye, and the teams not
    paired (absent, withdrawn or not yet entered)."""

    round: int
    pairings: tuple[Pairing, ...]
    bye: str | None = None
    not_paired: tuple[str, ...] = ()

    def bye_record(self, state: SwissState) -> MatchRecord | None:
        """The bye as a match record of this round (None without a bye)."""
        return None if self.bye is None else bye_match(state, self.bye, self.round)


class SwissPairer(Protocol):
    """Computes the pairing of one round of a Swiss stage."""

    def pair_round(self, state: SwissState, round_no: int) -> RoundPairing: ...


def check_round_can_be_paired(
    state: SwissState, round_no: int, *, system: str = FIDE_TEAM_SWISS
) -> tuple[str, ...]:
    """The teams to pair in ``round_no``, or a SwissPairingError saying why the round cannot be paired by
    the engine of ``system`` (the stage must name that system)."""
    if state.pairing not in PAIRING_SYSTEMS:
        raise SwissPairingError(
            f"pairing system {state.pairing!r} is unknown; use one of {', '.join(PAIRING_SYSTEMS)}",
            round_no=round_no,
        )
    if state.pairing != system:
        raise SwissPairingError(
            f"the stage is paired by {state.pairing!r}, not by the {system!r} engine", round_no=round_no
        )
    if round_no != state.rounds_played + 1:
        raise SwissPairingError(
            f"round {round_no} cannot be paired: the next round is {state.rounds_played + 1}",
            round_no=round_no,
        )
    if round_no > state.rounds:
        raise SwissPairingError(
            f"round {round_no} cannot be paired: the stage has {state.rounds} rounds", round_no=round_no
        )
    teams = state.available(round_no)
    if len(teams) < 2:
        raise SwissPairingError(
            f"round {round_no} cannot be paired: too few teams to pair ({teams[0] if teams else 'none'})",
            round_no=round_no,
            teams=teams,
        )
    if all(not state.may_meet(a, b, round_no) for a, b in combinations(teams, 2)):
        raise SwissPairingError(
            f"round {round_no} cannot be paired: every remaining pairing is a rematch"
            f"{' or prohibited (record 260)' if state.prohibitions else ''} ({', '.join(teams)})",
            round_no=round_no,
            teams=teams,
        )
    return teams


def check_pairing(state: SwissState, pairing: RoundPairing) -> None:
    """Raise SwissPairingError unless ``pairing`` pairs every available team once, with no rematch
    (C.04.1 b) nor prohibited pairing (record 260), and the bye only to a team that has not had one
    (C.04.1 c)."""
    round_no = pairing.round
    teams = set(state.available(round_no))
    named = [team for p in pairing.pairings for team in (p.first, p.second)]
    if pairing.bye is not None:
        named.append(pairing.bye)
    stray = sorted(set(named) - teams)
    missing = sorted(teams - set(named))
    twice = sorted({team for team in named if named.count(team) > 1})
    for problem, names in (("not to be paired", stray), ("left out", missing), ("paired twice", twice)):
        if names:
            raise SwissPairingError(
                f"round {round_no}: {', '.join(names)} {problem}", round_no=round_no, teams=names
            )
    played = {frozenset((m.team_a, m.team_b)) for m in state.matches if m.is_played}  # one pass in all
    for p in pairing.pairings:
        if frozenset((p.first, p.second)) in played:
            raise SwissPairingError(
                f"round {round_no}: {p.first} and {p.second} have already played each other",
                round_no=round_no,
                teams=(p.first, p.second),
            )
        if p.second in state.prohibited(p.first, round_no):  # may_meet, the played matches checked above
            raise SwissPairingError(
                f"round {round_no}: {p.first} and {p.second} may not be paired (a prohibited pairing)",
                round_no=round_no,
                teams=(p.first, p.second),
            )
    if pairing.bye is not None and state.had_bye(pairing.bye):
        raise SwissPairingError(
            f"round {round_no}: {pairing.bye} cannot receive the pairing-allocated bye",
            round_no=round_no,
            teams=(pairing.bye,),
        )
