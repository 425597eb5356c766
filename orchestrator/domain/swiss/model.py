"""The state of a team Swiss stage (docs/swiss.md): teams in pairing-number order, the matches played,
the pairing-allocated bye's value, late entries, withdrawals and absences.

Points are integer half-points for game points (GP) and whole match points (MP, 2/1/0 by default).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction

from orchestrator.domain.scoring import DEFAULT_SCORING, Colour, HalfPoints, MatchRecord, MatchScoring


class SwissError(ValueError):
    """A Swiss state or operation that breaks the rules of the stage."""


@dataclass(frozen=True, slots=True)
class SwissTeam:
    """A team of the stage; ``ratings`` are its players' ratings (0 for unrated), in any order.

    ``joined`` is the first round the team can be paired (a late entry joins later), ``withdrawn``
    the first round it is no longer paired, ``absent`` rounds staff took it out of.
    """

    name: str
    ratings: tuple[int, ...] = ()
    joined: int = 1
    withdrawn: int | None = None
    absent: frozenset[int] = field(default_factory=frozenset)

    def available(self, round_no: int) -> bool:
        """Whether the team is to be paired in ``round_no``."""
        if round_no < self.joined or round_no in self.absent:
            return False
        return self.withdrawn is None or round_no < self.withdrawn


@dataclass(frozen=True, slots=True)
class ByeValue:
    """What a pairing-allocated bye scores: ``mp`` match points (default the points of a drawn match)
    and ``gp`` game half-points (default half the boards' game points)."""

    mp: int | None = None
    gp: HalfPoints | None = None


# The minimum FIDE rating (FIDE Rating Regulations, from 1 March 2024): what an unrated player counts as
# for the initial ranking (Olympiad Pairing Rules 2022, art. 3.1; the 2010-2021 edition, art. 7, says so).
RATING_FLOOR = 1400


@dataclass(frozen=True, slots=True)
class ScoreAdjustment:
    """Points added to (or, negative, taken from) a team's score by the arbiter: TRF-2026 record 299
    with a blank type (docs/trf.md). ``mp`` match points and ``gp`` game half-points count from the
    pairing of the round after ``round`` on (``0``: from the start); ``pairing`` False when they count in
    the standings only (round ``999`` of record 299)."""

    team: str
    round: int
    mp: int
    gp: HalfPoints
    pairing: bool = True


def adjusted_totals(adjustments: Iterable[ScoreAdjustment]) -> dict[str, tuple[int, HalfPoints]]:
    """(MP, GP half-points) the adjustments add to each team's score, all of them counted."""
    out: dict[str, tuple[int, HalfPoints]] = {}
    for adjustment in adjustments:
        mp, gp = out.get(adjustment.team, (0, 0))
        out[adjustment.team] = (mp + adjustment.mp, gp + adjustment.gp)
    return out


@dataclass(frozen=True, slots=True)
class RequestedBye:
    """A bye the team asked for (TRF-2026 record 240 ``F`` or ``H``): it is not paired in ``round`` (the
    round is also in its ``absent``) and scores a won match's points and every board (``full``), or a
    drawn match's points and half the boards (docs/trf.md, "Requested byes")."""

    team: str
    round: int
    full: bool


@dataclass(frozen=True, slots=True)
class Acceleration:
    """Virtual points for pairing only (TRF-2026 record 250, the Baku acceleration of C.04.5.1 applied to
    teams): ``mp`` match points and ``gp`` game half-points added to the pairing score of the teams with
    pairing numbers ``first_team`` to ``last_team`` when rounds ``first_round`` to ``last_round`` are
    paired. The standings never count them."""

    mp: int
    gp: HalfPoints
    first_round: int
    last_round: int
    first_team: int
    last_team: int


@dataclass(frozen=True, slots=True)
class Prohibition:
    """Teams that may not be paired with each other in rounds ``first_round`` to ``last_round`` (TRF-2026
    record 260): an absolute criterion, like a rematch (C.04.6 art. 2.1.1)."""

    first_round: int
    last_round: int
    teams: frozenset[str]


PRIMARY_SCORES = ("mp", "gp")  # C.04.6 art. 1.2.1: match points or game points as the primary score
COLOUR_MODELS = ("A", "none")  # C.04.6 art. 1.7: Type A colour preferences, or none at all


def initial_ranking_key(team: SwissTeam) -> tuple[Fraction, int, str, str]:
    """Olympiad Pairing Rules 2022, art. 3.1: average rating of the four highest-rated players, then the
    fifth player's rating (both descending), then alphabetically. An unrated player (rating 0) counts as
    the minimum FIDE rating, ``RATING_FLOOR``; a missing fifth player counts as 0."""
    rated = [rating or RATING_FLOOR for rating in team.ratings]
    ratings = sorted(rated, reverse=True) + [0] * 5
    return (-Fraction(sum(ratings[:4]), 4), -ratings[4], team.name.casefold(), team.name)


def initial_ranking(teams: Iterable[SwissTeam]) -> tuple[SwissTeam, ...]:
    """Teams in initial-ranking order; the first gets team pairing number 1 (C.04.6 art. 1.1)."""
    return tuple(sorted(teams, key=initial_ranking_key))


@dataclass(frozen=True, slots=True)
class SwissState:
    """A Swiss stage as the pairing engine sees it; ``teams[0]`` has team pairing number 1.

    ``matches`` use ``MatchRecord``: ``team_a`` is the first-named team (White on the odd boards),
    ``team_b`` None is the pairing-allocated bye. ``initial_colour`` is the colour drawn by lot for
    C.04.6 art. 4.3.1 ("W" or "B"). ``primary`` is the primary score of C.04.6 art. 1.2.1 (``"mp"``
    match points, the default of art. 1.2.2, or ``"gp"`` game points), ``colour_model`` the colour
    preferences of art. 1.7 (``"A"``, or ``"none"``), ``adjustments`` the points the arbiter added or
    took away (TRF-2026 record 299), ``requested_byes`` the byes teams asked for (record 240 ``F``, ``H``),
    ``accelerations`` the virtual points of the pairing (record 250), ``prohibitions`` the pairs barred
    (record 260).
    """

    teams: tuple[SwissTeam, ...]
    boards: int
    rounds: int
    matches: tuple[MatchRecord, ...] = ()
    scoring: MatchScoring = DEFAULT_SCORING
    bye: ByeValue = ByeValue()
    initial_colour: str = "W"
    pairing: str = "fide-team-swiss"
    name: str = "Swiss"
    primary: str = "mp"
    colour_model: str = "A"
    adjustments: tuple[ScoreAdjustment, ...] = ()
    requested_byes: tuple[RequestedBye, ...] = ()
    accelerations: tuple[Acceleration, ...] = ()
    prohibitions: tuple[Prohibition, ...] = ()

    def __post_init__(self) -> None:
        names = [team.name for team in self.teams]
        if len(set(names)) != len(names):
            raise SwissError(f"team names must be unique: {', '.join(sorted(_repeated(names)))}")
        if self.boards < 1 or self.rounds < 1:
            raise SwissError("a Swiss stage needs at least one board and one round")
        if self.initial_colour not in tuple(Colour):
            raise SwissError(f"initial colour must be W or B, not {self.initial_colour!r}")
        if self.primary not in PRIMARY_SCORES:
            raise SwissError(f"the primary score is mp or gp, not {self.primary!r}")
        if self.colour_model not in COLOUR_MODELS:
            raise SwissError(f"the colour model is A or none, not {self.colour_model!r}")
        known = set(names)
        for adjustment in self.adjustments:
            if adjustment.team not in known:
                raise SwissError(f"points adjusted for an unknown team {adjustment.team!r}")
        for match in self.matches:
            for team in (match.team_a, match.team_b):
                if team is not None and team not in known:
                    raise SwissError(f"round {match.round}: unknown team {team!r}")
        for bye in self.requested_byes:
            if bye.team not in known:
                raise SwissError(f"round {bye.round}: a requested bye for an unknown team {bye.team!r}")
            if bye.round not in self.team(bye.team).absent:
                raise SwissError(
                    f"round {bye.round}: {bye.team} has a requested bye and is not out of the round"
                )
        for prohibition in self.prohibitions:
            if not prohibition.teams <= known:
                unknown = ", ".join(sorted(prohibition.teams - known))
                raise SwissError(f"a prohibited pairing names unknown teams: {unknown}")

    def tpn(self, team: str) -> int:
        """The team pairing number (1 for the first team)."""
        for number, entry in enumerate(self.teams, 1):
            if entry.name == team:
                return number
        raise SwissError(f"unknown team {team!r}")

    def team(self, name: str) -> SwissTeam:
        return self.teams[self.tpn(name) - 1]

    @property
    def rounds_played(self) -> int:
        """The last round with a match recorded (0 before round 1)."""
        return max((match.round for match in self.matches), default=0)

    def available(self, round_no: int) -> tuple[str, ...]:
        """Teams to be paired in ``round_no``, in pairing-number order."""
        return tuple(team.name for team in self.teams if team.available(round_no))

    def bye_points(self) -> tuple[int, HalfPoints]:
        """(MP, GP half-points) of a pairing-allocated bye: by default the points of a drawn match and
        half the boards' game points."""
        mp = self.scoring.draw if self.bye.mp is None else self.bye.mp
        gp = self.boards if self.bye.gp is None else self.bye.gp
        return mp, gp

    def had_bye(self, team: str) -> bool:
        return any(match.team_b is None and match.team_a == team for match in self.matches)

    def have_played(self, a: str, b: str) -> bool:
        """Whether two teams met in a played match (a forfeited match is not played, C.07 Art. 15)."""
        return any(match.is_played and {match.team_a, match.team_b} == {a, b} for match in self.matches)

    def may_meet(self, a: str, b: str, round_no: int) -> bool:
        """Whether two teams may be paired in ``round_no``: not after a played match between them (C.04.6
        art. 2.1.1) and not barred that round by a prohibition (record 260)."""
        if self.have_played(a, b):
            return False
        return not any(
            p.first_round <= round_no <= p.last_round and {a, b} <= p.teams for p in self.prohibitions
        )

    def prohibited(self, team: str, round_no: int) -> frozenset[str]:
        """The teams ``team`` may not be paired with in ``round_no`` by a prohibition (record 260)."""
        barred: set[str] = set()
        for p in self.prohibitions:
            if p.first_round <= round_no <= p.last_round and team in p.teams:
                barred |= p.teams
        barred.discard(team)
        return frozenset(barred)

    def virtual(self, team: str, round_no: int) -> tuple[int, HalfPoints]:
        """(MP, GP half-points) added to ``team``'s score for pairing ``round_no`` only (record 250)."""
        number = self.tpn(team) if self.accelerations else 0
        mp = gp = 0
        for a in self.accelerations:
            if a.first_round <= round_no <= a.last_round and a.first_team <= number <= a.last_team:
                mp, gp = mp + a.mp, gp + a.gp
        return mp, gp

    def requested_points(self, bye: RequestedBye) -> tuple[int, HalfPoints]:
        """(MP, GP half-points) of a requested bye: a won match and every board, or a drawn match and
        half the boards."""
        if bye.full:
            return self.scoring.win, 2 * self.boards
        return self.scoring.draw, self.boards

    def adjusted(self, team: str, before: int) -> tuple[int, HalfPoints]:
        """(MP, GP half-points) the arbiter added to ``team``'s score for pairing round ``before``
        (record 299 adjustments of earlier rounds, or of round 0)."""
        mp = gp = 0
        for adjustment in self.adjustments:
            if adjustment.team == team and adjustment.pairing and adjustment.round < before:
                mp, gp = mp + adjustment.mp, gp + adjustment.gp
        return mp, gp

    def points(self, team: str, *, through: int | None = None) -> tuple[int, HalfPoints]:
        """(MP, GP half-points) of a team after round ``through`` (default all rounds recorded), the
        arbiter's adjustments included (record 299; those for the standings only after the last round) and
        the byes teams asked for (record 240); never the virtual points of an acceleration (record 250)."""
        mp = gp = 0
        for adjustment in self.adjustments:
            counts = through is None or (adjustment.pairing and adjustment.round <= through)
            if adjustment.team == team and counts:
                mp, gp = mp + adjustment.mp, gp + adjustment.gp
        last = self.rounds_played if through is None else through  # a bye of a round to play scores later
        for bye in self.requested_byes:
            if bye.team == team and bye.round <= last:
                extra_mp, extra_gp = self.requested_points(bye)
                mp, gp = mp + extra_mp, gp + extra_gp
        for match in (m for m in self.matches if through is None or m.round <= through):
            if match.team_b is None:
                if match.team_a == team:
                    mp += self.bye_points()[0]
                    gp += match.gp_a
                continue
            if team not in (match.team_a, match.team_b):
                continue
            mps = match.mp(self.scoring)
            if match.team_a == team:
                mp, gp = mp + mps[0], gp + match.gp_a
            else:
                mp, gp = mp + mps[1], gp + match.gp_b
        return mp, gp


def _repeated(names: Sequence[str]) -> set[str]:
    return {name for name, count in Counter(names).items() if count > 1}


def start_state(
    teams: Iterable[SwissTeam],
    *,
    boards: int,
    rounds: int,
    scoring: MatchScoring = DEFAULT_SCORING,
    bye: ByeValue = ByeValue(),
    initial_colour: str = "W",
    pairing: str = "fide-team-swiss",
    name: str = "Swiss",
) -> SwissState:
    """A stage before round 1: teams numbered by the initial ranking (Olympiad Pairing Rules 3.1)."""
    return SwissState(
        teams=initial_ranking(teams),
        boards=boards,
        rounds=rounds,
        scoring=scoring,
        bye=bye,
        initial_colour=initial_colour,
        pairing=pairing,
        name=name,
    )


def add_late_entry(state: SwissState, team: SwissTeam) -> SwissState:
    """A team joining from round ``team.joined`` gets the next pairing number: numbers once given do
    not change (C.04.6 art. 1.1.3), and they run from 1 to the number of teams (art. 1.1.1)."""
    if team.joined <= state.rounds_played:
        raise SwissError(
            f"{team.name} cannot join in round {team.joined}: round {state.rounds_played} is already paired"
        )
    if team.joined > state.rounds:
        raise SwissError(f"{team.name} cannot join in round {team.joined}: the stage has {state.rounds}")
    if any(entry.name == team.name for entry in state.teams):
        raise SwissError(f"{team.name} is already in the stage")
    return replace(state, teams=(*state.teams, team))


def withdraw_team(state: SwissState, team: str, *, from_round: int) -> SwissState:
    """``team`` is no longer paired from ``from_round`` on; its results so far stand."""
    if from_round <= state.rounds_played:
        raise SwissError(f"round {from_round} is already paired: withdraw {team} from a later round")
    entry = state.team(team)
    teams = tuple(replace(t, withdrawn=from_round) if t is entry else t for t in state.teams)
    return replace(state, teams=teams)


def mark_absent(state: SwissState, team: str, *, round_no: int) -> SwissState:
    """``team`` is not paired in ``round_no`` (it scores nothing for that round)."""
    if round_no <= state.rounds_played:
        raise SwissError(f"round {round_no} is already paired: {team} cannot be marked absent for it")
    entry = state.team(team)
    teams = tuple(replace(t, absent=t.absent | {round_no}) if t is entry else t for t in state.teams)
    return replace(state, teams=teams)


def bye_match(state: SwissState, team: str, round_no: int) -> MatchRecord:
    """The record of a pairing-allocated bye (its game points; its match points come from the state)."""
    return MatchRecord(round_no, team, None, state.bye_points()[1], 0)


def record_round(state: SwissState, matches: Iterable[MatchRecord]) -> SwissState:
    """The state with the results of the next round added (every available team once)."""
    new = tuple(matches)
    round_no = state.rounds_played + 1
    seen: list[str] = []
    by_name = {team.name: team for team in state.teams}
    for match in new:
        if match.round != round_no:
            raise SwissError(f"round {match.round} recorded while round {round_no} is the next one")
        for team in (t for t in (match.team_a, match.team_b) if t is not None):
            entry = by_name.get(team) or state.team(team)  # state.team: the error naming an unknown team
            if not entry.available(round_no):
                raise SwissError(f"round {round_no}: {team} is not to be paired in this round")
            seen.append(team)
        if match.is_played and match.gp_a + match.gp_b > 2 * state.boards:
            raise SwissError(
                f"round {round_no}: {match.team_a} – {match.team_b} scores more than {state.boards} boards"
            )
    if len(set(seen)) != len(seen):
        raise SwissError(f"round {round_no}: {', '.join(sorted(_repeated(seen)))} paired twice")
    return replace(state, matches=state.matches + new)
