"""Team tie-breaks (FIDE C.07 2026, Olympiad 2026 Appendix 2; our decisions in docs/tiebreaks.md).

Every value is exact: scores are Fractions built from integer match points and integer half-points.
A criterion is either a *value* (one number per team, higher ranks higher) or a *group* criterion
(direct encounter: computed inside each subgroup still tied, C.07 4.2 and 6.2; direct_encounter.py)
or the drawing of lots. Each code is defined once, in ``REGISTRY``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from fractions import Fraction
from itertools import takewhile

from orchestrator.domain.scoring import DEFAULT_SCORING, ByeRequest, MatchForfeit, MatchRecord, MatchScoring


class TieBreakError(ValueError):
    """A tie-break list or input the engine cannot use."""


# --- one team's record ---------------------------------------------------------------------------


class RoundKind(Enum):
    PLAYED = "played"
    FORFEIT_WIN = "forfeit win"
    FORFEIT_LOSS = "forfeit loss"
    DOUBLE_FORFEIT = "double forfeit"
    BYE = "pairing-allocated bye"
    FULL_BYE = "requested full-point bye"
    HALF_BYE = "requested half-point bye"
    ABSENT = "not paired"

    @property
    def is_vur(self) -> bool:
        """Voluntary unplayed round (C.07 16.1.2): a forfeit loss or a requested bye, i.e. a half-point bye
        or an absence, read as a zero-point bye (16.1.1); a double forfeit is both. A full-point bye is not
        one: C.07 16.2.1 puts it with the pairing-allocated bye."""
        return self in (
            RoundKind.FORFEIT_LOSS,
            RoundKind.DOUBLE_FORFEIT,
            RoundKind.HALF_BYE,
            RoundKind.ABSENT,
        )


@dataclass(frozen=True, slots=True)
class TeamRound:
    """One round of one team: its match points and half-points, and the opponent's, if any."""

    round: int
    kind: RoundKind
    opponent: str | None
    mp: int
    gp: int  # half-points
    opp_mp: int = 0
    opp_gp: int = 0


@dataclass(frozen=True, slots=True)
class PoolHistory:
    """All teams' rounds of one pool or stage, ready for tie-break computation.

    ``adjustments``: the match points and game half-points the arbiter added to (negative: took from) a
    team's score (TRF-2026 record 299, docs/swiss.md "Bonus and penalty points"). They count in the
    team's own score, criteria MP and GP (C.07 11.1.1, 11.1.2: the score of the standings; MPvGP, 13.1,
    is the other of the two), and in no criterion computed from the rounds (the opponents' scores, direct
    encounter, matches won), which read the rounds as played.
    """

    teams: tuple[str, ...]
    rounds: Mapping[str, tuple[TeamRound, ...]]
    number_of_rounds: int
    boards: int
    scoring: MatchScoring
    round_robin: bool
    adjustments: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    # Each team's match points as played, summed once: the Olympiad tie-breaks read every opponent's
    # (ten opponents of 190 teams, twice, at every recompute of a Swiss pool).
    _mp: Mapping[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        totals = {team: sum(r.mp for r in rounds) for team, rounds in self.rounds.items()}
        object.__setattr__(self, "_mp", totals)

    def mp(self, team: str) -> int:
        return self._mp[team]

    def gp(self, team: str) -> int:
        return sum(r.gp for r in self.rounds[team])

    def played(self, team: str) -> int:
        return sum(1 for r in self.rounds[team] if r.kind is RoundKind.PLAYED)


def build_event(
    teams: Sequence[str],
    matches: Sequence[MatchRecord],
    *,
    boards: int = 6,
    scoring: MatchScoring = DEFAULT_SCORING,
    round_robin: bool = True,
    bye_mp: int | None = None,
    adjustments: Mapping[str, tuple[int, int]] | None = None,
) -> PoolHistory:
    """Each team's rounds from the match records; a round without a record is an absence. ``adjustments``:
    (MP, GP half-points) added to a team's score (``PoolHistory``)."""
    if len(set(teams)) != len(teams):
        raise TieBreakError("a team is listed twice")
    known = set(teams)
    per_team: dict[str, dict[int, TeamRound]] = {team: {} for team in teams}
    bye_points = scoring.draw if bye_mp is None else bye_mp

    def put(team: str, entry: TeamRound) -> None:
        if team not in known:
            raise TieBreakError(f"round {entry.round}: {team!r} is not a team of this pool")
        if entry.round in per_team[team]:
            raise TieBreakError(f"{team!r} has two matches in round {entry.round}")
        per_team[team][entry.round] = entry

    for m in sorted(matches, key=lambda m: (m.round, m.team_a, m.team_b or "")):
        if m.team_b is None and m.request is not ByeRequest.NONE:
            # A requested bye: a won or a drawn match's points (docs/trf.md, "Requested byes").
            kind = RoundKind.FULL_BYE if m.request is ByeRequest.FULL else RoundKind.HALF_BYE
            put(m.team_a, TeamRound(m.round, kind, None, m.request.match_points(scoring), m.gp_a))
            continue
        if m.team_b is None:
            # C.04.6 1.4: a pairing-allocated bye gets the points of a draw unless configured.
            put(m.team_a, TeamRound(m.round, RoundKind.BYE, None, bye_points, m.gp_a))
            continue
        mp_a, mp_b = m.mp(scoring)
        kind_a, kind_b = {
            MatchForfeit.NONE: (RoundKind.PLAYED, RoundKind.PLAYED),
            MatchForfeit.A_WINS: (RoundKind.FORFEIT_WIN, RoundKind.FORFEIT_LOSS),
            MatchForfeit.B_WINS: (RoundKind.FORFEIT_LOSS, RoundKind.FORFEIT_WIN),
            MatchForfeit.DOUBLE: (RoundKind.DOUBLE_FORFEIT, RoundKind.DOUBLE_FORFEIT),
        }[m.forfeit]
        # A double forfeit gives both teams 0 MP and 0 GP, not a draw (docs/tiebreaks.md).
        gp_a, gp_b = (0, 0) if m.forfeit is MatchForfeit.DOUBLE else (m.gp_a, m.gp_b)
        put(m.team_a, TeamRound(m.round, kind_a, m.team_b, mp_a, gp_a, mp_b, gp_b))
        put(m.team_b, TeamRound(m.round, kind_b, m.team_a, mp_b, gp_b, mp_a, gp_a))
    number_of_rounds = max((m.round for m in matches), default=0)
    rounds = {
        team: tuple(
            per_team[team].get(r, TeamRound(r, RoundKind.ABSENT, None, 0, 0))
            for r in range(1, number_of_rounds + 1)
        )
        for team in teams
    }
    extra = {team: points for team, points in (adjustments or {}).items() if team in known and any(points)}
    return PoolHistory(tuple(teams), rounds, number_of_rounds, boards, scoring, round_robin, extra)


# --- scores ---------------------------------------------------------------------------------------

Score = str  # "MP" or "GP"


def points_of(entry: TeamRound, score: Score) -> Fraction:
    """The team's match points or game points of one round."""
    return Fraction(entry.mp) if score == "MP" else Fraction(entry.gp, 2)


def _total(history: PoolHistory, team: str, score: Score) -> Fraction:
    """The sum of ``points_of`` over the team's rounds, added as integers (match points, game
    half-points) and made a Fraction once: the chances job ranks thousands of simulated pools."""
    rounds = history.rounds[team]
    if score == "MP":
        return Fraction(sum(r.mp for r in rounds))
    return Fraction(sum(r.gp for r in rounds), 2)


def _draw(history: PoolHistory, score: Score) -> Fraction:
    return Fraction(history.scoring.draw) if score == "MP" else Fraction(history.boards, 2)


def adjusted_score(history: PoolHistory, team: str, score: Score) -> Fraction:
    """The team's score as its opponents see it (C.07 16.3; 15.2: round robins use the final score)."""
    if history.round_robin:
        return _total(history, team, score)
    # 16.3.2: an absence followed only by voluntary unplayed rounds counts as a draw (an absence scores 0).
    trailing_vurs = takewhile(lambda r: r.kind.is_vur, reversed(history.rounds[team]))
    late_absences = sum(1 for r in trailing_vurs if r.kind is RoundKind.ABSENT)
    return _total(history, team, score) + late_absences * _draw(history, score)


@dataclass(frozen=True, slots=True)
class _Element:
    """One addend of a Buchholz / Sonneborn-Berger sum, before any cut."""

    opp_score: Fraction
    value: Fraction
    vur: bool


def _elements(history: PoolHistory, team: str, opp_score: Score, own_score: Score | None) -> list[_Element]:
    """Opponents' scores (× own score against them when ``own_score``) per round.

    Round robin: byes and absences are no element (C.07 15.2). Swiss: unplayed rounds meet the
    dummy, whose score is the team's own, capped (C.07 16.4.1 forfeits, 16.4.2 other rounds).
    """
    own_total = _total(history, team, opp_score)
    out: list[_Element] = []
    for r in history.rounds[team]:
        if r.opponent is not None and (r.kind is RoundKind.PLAYED or history.round_robin):
            opp = adjusted_score(history, r.opponent, opp_score)
        elif history.round_robin:
            continue
        elif r.opponent is not None:
            opp = min(own_total, adjusted_score(history, r.opponent, opp_score))
        else:
            opp = min(own_total, _draw(history, opp_score) * history.number_of_rounds)
        value = opp if own_score is None else opp * points_of(r, own_score)
        vur = r.kind.is_vur and not history.round_robin
        out.append(_Element(opp, value, vur))
    return out


def _cut_one(elements: list[_Element]) -> list[_Element]:
    """C.07 14.1 / 14.1.2: drop the lowest-scoring opponent's element (ties: lowest value);
    16.5: a voluntary unplayed round's element goes first when it is not below that one."""
    if not elements:
        return elements
    lsv = min(range(len(elements)), key=lambda i: (elements[i].opp_score, elements[i].value))
    vurs = [i for i in range(len(elements)) if elements[i].vur]
    vur = min(vurs, key=lambda i: elements[i].value, default=lsv)
    # Of the two, the higher value goes (the VUR when they are equal: the same total either way).
    drop = max(lsv, vur, key=lambda i: elements[i].value)
    return elements[:drop] + elements[drop + 1 :]


def sonneborn_berger(history: PoolHistory, team: str, *, opp: Score, own: Score, cut: bool) -> Fraction:
    """Σ opponent's ``opp`` score × own ``own`` score against them (C.07 13.2); ``cut``: 14.1.2."""
    elements = _elements(history, team, opp, own)
    if cut:
        elements = _cut_one(elements)
    return sum((e.value for e in elements), Fraction(0))


def buchholz(history: PoolHistory, team: str, *, score: Score, cut: bool) -> Fraction:
    """Σ opponents' ``score`` (C.07 8.1 applied to teams, 13 preamble); ``cut``: 14.1 a."""
    elements = _elements(history, team, score, None)
    if cut:
        elements = _cut_one(elements)
    return sum((e.value for e in elements), Fraction(0))


def _plays_no_further_match(history: PoolHistory, team: str, round_no: int) -> bool:
    """True when ``team`` plays no match over the board after ``round_no`` (Olympiad 2026 App. 2.IV).

    A team's rounds are rounds 1 to n in order (``build_event``), so those after ``round_no`` start at
    index ``round_no``."""
    return not any(r.kind is RoundKind.PLAYED for r in history.rounds[team][round_no:])


def olympiad_fmp(history: PoolHistory, team: str, entry: TeamRound) -> int:
    """The opponent's match points as Olympiad 2026 App. 2.I and 2.IV count them for one round of ``team``.

    - FMP: the opponent's final match points *as played*, i.e. the match points of the standings (a
      pairing-allocated bye's point included), with nothing added for the opponent's own unpaired rounds.
      App. 2.IV writes an unplayed win FMP(uw) = FMP + UR and an unplayed loss FMP(ul) = FMP + UR; we read
      UR as adding nothing there, as for a played match (docs/tiebreaks.md, "Unplayed rounds in the
      Olympiad tie-breaks": this is what reproduces the published standings).
    - FMP(uwx) = CMP for an unplayed win over an opponent that plays no further match (App. 2.IV, UR read
      the same way): CMP is ``team``'s own match points before that round. The text makes no exception
      for the last round, so a forfeit win in the last round is counted this way too.
    """
    assert entry.opponent is not None
    if entry.kind is RoundKind.FORFEIT_WIN and _plays_no_further_match(history, entry.opponent, entry.round):
        return sum(r.mp for r in history.rounds[team] if r.round < entry.round)
    return history.mp(entry.opponent)


def _round_left_out(history: PoolHistory, team: str) -> bool:
    """True when a round of ``team`` has no opponent: a pairing-allocated bye or a round it was not paired.

    Olympiad 2026 App. 2.I leaves out of TB1's ten "the round where the team had a pairing-allocated bye",
    and only without one the lowest opponent. We read a round the team is not paired in (App. 2.IV:
    "unpaired for a round (excluding a pairing-allocated bye)") like that bye round: the round left out,
    with no opponent dropped besides it, in TB1 and in TB3 (docs/tiebreaks.md, "Unplayed rounds in the
    Olympiad tie-breaks": this is what reproduces the published standings).
    """
    return any(r.opponent is None for r in history.rounds[team])


def olympiad_tb1(history: PoolHistory, team: str) -> Fraction:
    """Olympiad 2026 App. 2.I TB1: Σ ISi = GP vs i × i's final MP, without the round left out by a bye
    or an unpaired round, else without the lowest-MP opponent (ties: lowest ISi); unplayed matches per
    App. 2.IV: GP(uw) is all the boards, GP(ul) = 0 (the forfeit's record), FMP per ``olympiad_fmp``.
    Summed in whole numbers (ISi in half-points: FMP × the game half-points), halved once at the end."""
    items: list[tuple[int, int]] = []
    for r in history.rounds[team]:
        if r.opponent is not None:
            fmp = olympiad_fmp(history, team, r)
            items.append((fmp, fmp * r.gp))
    if items and not _round_left_out(history, team):
        items.remove(min(items))
    return Fraction(sum(value for _, value in items), 2)


def olympiad_tb3(history: PoolHistory, team: str) -> Fraction:
    """Olympiad 2026 App. 2.I TB3: Σ opponents' MP less the lowest, each counted as for TB1
    (``olympiad_fmp``, App. 2.IV). Like TB1, nothing more is dropped when a bye or an unpaired round is
    already the round left out of the ten (docs/tiebreaks.md)."""
    scores = [olympiad_fmp(history, team, r) for r in history.rounds[team] if r.opponent is not None]
    if scores and not _round_left_out(history, team):
        scores.remove(min(scores))
    return Fraction(sum(scores))


def kvalitet(history: PoolHistory, team: str) -> Fraction:
    """The Tromsø 2014 Olympiad's "kvalitet" (quality): for each match, the opponent's final match points ×
    the game points scored against it, summed over all the team's matches but the one that gives the
    least (docs/tiebreaks.md). A bye or an unpaired round is no match; a whole-match default counts as
    recorded (the opponent's match points as played × the game points awarded)."""
    products = [
        Fraction(history.mp(r.opponent) * r.gp, 2) for r in history.rounds[team] if r.opponent is not None
    ]
    if products:
        products.remove(min(products))
    return sum(products, Fraction(0))


def primary_score(chain: Sequence[str]) -> Score:
    """MP unless the chain names GP before MP (C.04.6 1.2.2 default)."""
    for code in chain:
        if code in ("MP", "GP"):
            return code
    return "MP"


def match_points(history: PoolHistory, team: str) -> Fraction:
    """C.07 11.1.1, the arbiter's adjustments included (``PoolHistory``)."""
    return Fraction(history.mp(team) + history.adjustments.get(team, (0, 0))[0])


def game_points(history: PoolHistory, team: str) -> Fraction:
    """C.07 11.1.2, the arbiter's adjustments included (``PoolHistory``)."""
    return Fraction(history.gp(team) + history.adjustments.get(team, (0, 0))[1], 2)


def matches_won(history: PoolHistory, team: str) -> Fraction:
    """C.07 7.1: rounds with as many match points as a win, with or without playing."""
    return Fraction(sum(1 for r in history.rounds[team] if r.mp == history.scoring.win))


def other_primary_score(history: PoolHistory, team: str, *, primary: Score) -> Fraction:
    """C.07 13.1 MPvGP: game points when match points are primary, and the other way round."""
    return game_points(history, team) if primary == "MP" else match_points(history, team)


def value_of(history: PoolHistory, team: str, code: str, *, primary: Score = "MP") -> Fraction:
    """A value criterion for one team (higher ranks higher)."""
    compute = tiebreak(code).value
    if compute is None:
        raise TieBreakError(f"{code} is not a value tie-break")
    return compute(history, team, primary)


def all_values(
    history: PoolHistory, chain: Iterable[str], *, primary: Score = "MP"
) -> dict[str, dict[str, Fraction]]:
    """Every value criterion of the chain for every team: code -> team -> value."""
    return {
        code: {team: value_of(history, team, code, primary=primary) for team in history.teams}
        for code in chain
        if tiebreak(code).criterion is Criterion.VALUE
    }


# --- the registry: every code once --------------------------------------------------------------


class Criterion(Enum):
    VALUE = "value"  # one number per team, higher ranks higher
    GROUP = "group"  # direct encounter: computed inside each subgroup still tied (C.07 4.2, 6.2)
    LOT = "lot"  # the drawing of lots


ValueFunction = Callable[[PoolHistory, str, Score], Fraction]  # (history, team, primary score)


@dataclass(frozen=True, slots=True)
class TieBreak:
    """One tie-break code: its column heading and meaning for people, its TRF-2026 code (record 202;
    None when FIDE has none) and what computes it."""

    code: str
    short: str
    meaning: str
    trf: str | None
    criterion: Criterion
    value: ValueFunction | None = None  # value criteria
    score: Score | None = None  # direct encounter: the score compared; None for EDE (both in turn)


# The registry is built when the module is imported; the criteria below are callables so that their
# computation runs (and is measured, docs/mutation.md) when a value is asked for.


@dataclass(frozen=True, slots=True)
class _Plain:
    """A value criterion that does not depend on the primary score."""

    compute: Callable[[PoolHistory, str], Fraction]

    def __call__(self, history: PoolHistory, team: str, primary: Score) -> Fraction:
        return self.compute(history, team)


@dataclass(frozen=True, slots=True)
class _SonnebornBerger:
    opp: Score
    own: Score
    cut: bool

    def __call__(self, history: PoolHistory, team: str, primary: Score) -> Fraction:
        return sonneborn_berger(history, team, opp=self.opp, own=self.own, cut=self.cut)


@dataclass(frozen=True, slots=True)
class _Buchholz:
    score: Score
    cut: bool

    def __call__(self, history: PoolHistory, team: str, primary: Score) -> Fraction:
        return buchholz(history, team, score=self.score, cut=self.cut)


def _other(history: PoolHistory, team: str, primary: Score) -> Fraction:
    return other_primary_score(history, team, primary=primary)


_CUT = ", least significant value cut"
_SB_KINDS = (  # code, heading, meaning, opponents' score, own score (C.07 13.2)
    ("EMMSB", "SB-MP", "Sonneborn-Berger on match points", "MP", "MP"),
    ("EMGSB", "SB-MG", "Sonneborn-Berger, opponents' match points × game points", "MP", "GP"),
    ("EGMSB", "SB-GM", "Sonneborn-Berger, opponents' game points × match points", "GP", "MP"),
    ("EGGSB", "SB-GP", "Sonneborn-Berger on game points", "GP", "GP"),
)
_BH_KINDS = (  # code, heading, meaning, opponents' score (C.07 8.1)
    ("BH:MP", "BH-MP", "Buchholz on match points", "MP"),
    ("BH:GP", "BH-GP", "Buchholz on game points", "GP"),
)
_SONNEBORN_BERGER_CODES = (
    *(
        TieBreak(c, s, m, c, Criterion.VALUE, _SonnebornBerger(o, w, cut=False))
        for c, s, m, o, w in _SB_KINDS
    ),
    *(
        TieBreak(f"{c}/C1", f"{s} C1", m + _CUT, f"{c}/C1", Criterion.VALUE, _SonnebornBerger(o, w, cut=True))
        for c, s, m, o, w in _SB_KINDS
    ),
)
_BUCHHOLZ_CODES = tuple(
    entry
    for c, s, m, o in _BH_KINDS
    for entry in (
        TieBreak(c, s, m, c, Criterion.VALUE, _Buchholz(o, cut=False)),
        TieBreak(f"{c}/C1", f"{s} C1", m + _CUT, f"{c}/C1", Criterion.VALUE, _Buchholz(o, cut=True)),
    )
)

REGISTRY: tuple[TieBreak, ...] = (
    TieBreak("MP", "MP", "match points", None, Criterion.VALUE, _Plain(match_points)),
    # C.07 13.1: game points are the secondary score when MP is primary.
    TieBreak("GP", "GP", "game points", "MPVGP", Criterion.VALUE, _Plain(game_points)),
    TieBreak("DE:MP", "DE-MP", "match points among the tied teams", "DE:MP", Criterion.GROUP, score="MP"),
    TieBreak("DE:GP", "DE-GP", "game points among the tied teams", "DE:GP", Criterion.GROUP, score="GP"),
    TieBreak("EDE", "EDE", "extended direct encounter", "EDE", Criterion.GROUP),
    *_SONNEBORN_BERGER_CODES,
    *_BUCHHOLZ_CODES,
    TieBreak("WIN", "Wins", "matches won", "WIN", Criterion.VALUE, _Plain(matches_won)),
    TieBreak("MPvGP", "MPvGP", "the other primary score", "MPVGP", Criterion.VALUE, _other),
    # Olympiad 2026 Appendix 2.I; FIDE's TRF has no code for them.
    TieBreak("OLY-TB1", "TB1", "Olympiad Sonneborn-Berger", None, Criterion.VALUE, _Plain(olympiad_tb1)),
    TieBreak(
        "OLY-TB3",
        "TB3",
        "opponents' match points less the lowest",
        None,
        Criterion.VALUE,
        _Plain(olympiad_tb3),
    ),
    # The Tromsø 2014 Olympiad's tie-break; FIDE's TRF has no code for it.
    TieBreak(
        "KVALITET",
        "KV",
        "opponents' match points × game points, the least product left out",
        None,
        Criterion.VALUE,
        _Plain(kvalitet),
    ),
    TieBreak("LOT", "Lot", "drawing of lots", None, Criterion.LOT),
)
TIEBREAKS: dict[str, TieBreak] = {entry.code: entry for entry in REGISTRY}
KNOWN_CODES: tuple[str, ...] = tuple(TIEBREAKS)
GROUP_CODES = frozenset(code for code, entry in TIEBREAKS.items() if entry.criterion is Criterion.GROUP)


def tiebreak(code: str) -> TieBreak:
    """The registered tie-break of a code in our spelling; an unknown code raises TieBreakError."""
    entry = TIEBREAKS.get(code)
    if entry is None:
        raise TieBreakError(f"unknown tie-break code {code!r}; known: {', '.join(KNOWN_CODES)}")
    return entry


# --- presets and parsing ------------------------------------------------------------------------

PRESETS: dict[str, tuple[str, ...]] = {
    "online-2020": ("MP", "GP", "DE:MP", "DE:GP", "EMMSB", "EGGSB", "LOT"),
    "olympiad-2026": ("MP", "OLY-TB1", "GP", "OLY-TB3"),
    "olympiad-2014": ("MP", "KVALITET"),
    "fide-team-swiss": ("MP", "EDE", "EMGSB/C1", "BH:MP/C1", "MPvGP"),
}

_ALIASES = {
    "DE": "DE:MP",
    "BH": "BH:MP",
    "BH/C1": "BH:MP/C1",
    "MPVGP": "MPvGP",
    "TB1": "OLY-TB1",
    "TB3": "OLY-TB3",
    "OLYTB1": "OLY-TB1",
    "OLYTB3": "OLY-TB3",
    "KV": "KVALITET",
    "LOTS": "LOT",
    "PTS": "MP",
    "MPTS": "MP",
    "GPTS": "GP",
}
_CANONICAL = {code.upper(): code for code in KNOWN_CODES}


def normalise_code(text: str) -> str | None:
    """Our spelling of one code (``bh:mp-c1`` → ``BH:MP/C1``), or None when it is unknown."""
    key = re.sub(r"\s+", "", text).upper().replace("_", "-")
    key = re.sub(r"-C1$", "/C1", key)
    key = _ALIASES.get(key, key)
    return _CANONICAL.get(key.upper())


def parse_chain(spec: str | Sequence[str]) -> tuple[str, ...]:
    """A tie-break chain from a preset name or a comma list; unknown codes raise TieBreakError.

    A sequence holding one preset name (as an event file's ``tiebreaks: online-2020`` is stored) expands too.
    """
    if not isinstance(spec, str) and len(spec) == 1:
        spec = spec[0]
    if isinstance(spec, str):
        name = spec.strip().lower()
        if name in PRESETS:
            return PRESETS[name]
        items = [part for part in spec.split(",")]
    else:
        items = list(spec)
    items = [item.strip() for item in items if item.strip()]
    if not items:
        raise TieBreakError("empty tie-break list: give a preset name or comma-separated codes")
    chain: list[str] = []
    unknown: list[str] = []
    for item in items:
        code = normalise_code(item)
        if code is None:
            unknown.append(item)
        else:
            chain.append(code)
    if unknown:
        raise TieBreakError(
            f"unknown tie-break code(s): {', '.join(unknown)}; known: {', '.join(KNOWN_CODES)}; "
            f"presets: {', '.join(PRESETS)}"
        )
    duplicates = sorted({code for code in chain if chain.count(code) > 1 and code not in GROUP_CODES})
    if duplicates:
        raise TieBreakError(f"tie-break code(s) listed twice: {', '.join(duplicates)}")
    return tuple(chain)
