"""Team tie-breaks (FIDE C.07 2026, Olympiad 2026 Appendix 2; our decisions in docs/tiebreaks.md).

Every value is exact: scores are Fractions built from integer match points and integer half-points.
A criterion is either a *value* (one number per team, higher ranks higher) or a *group* criterion
(direct encounter: computed inside each subgroup still tied, C.07 4.2 and 6.2) or the drawing of lots.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from fractions import Fraction

from orchestrator.domain.scoring import DEFAULT_SCORING, MatchForfeit, MatchRecord, MatchScoring


class TieBreakError(ValueError):
    """A tie-break list or input the engine cannot use."""


# --- codes and presets ---------------------------------------------------------------------------

ESB_CODES = ("EMMSB", "EMGSB", "EGMSB", "EGGSB")
KNOWN_CODES: tuple[str, ...] = (
    "MP",
    "GP",
    "DE:MP",
    "DE:GP",
    "EDE",
    *ESB_CODES,
    *(f"{code}/C1" for code in ESB_CODES),
    "BH:MP",
    "BH:MP/C1",
    "BH:GP",
    "BH:GP/C1",
    "WIN",
    "MPvGP",
    "OLY-TB1",
    "OLY-TB3",
    "LOT",
)
GROUP_CODES = frozenset({"DE:MP", "DE:GP", "EDE"})

PRESETS: dict[str, tuple[str, ...]] = {
    "online-2020": ("MP", "GP", "DE:MP", "DE:GP", "EMMSB", "EGGSB", "LOT"),
    "olympiad-2026": ("MP", "OLY-TB1", "GP", "OLY-TB3"),
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


# --- one team's record ---------------------------------------------------------------------------


class RoundKind(Enum):
    PLAYED = "played"
    FORFEIT_WIN = "forfeit win"
    FORFEIT_LOSS = "forfeit loss"
    DOUBLE_FORFEIT = "double forfeit"
    BYE = "pairing-allocated bye"
    ABSENT = "not paired"

    @property
    def is_vur(self) -> bool:
        """Voluntary unplayed round: forfeit loss or absence (C.07 16.1.2); a double forfeit is both."""
        return self in (RoundKind.FORFEIT_LOSS, RoundKind.DOUBLE_FORFEIT, RoundKind.ABSENT)


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
class Event:
    """All teams' rounds of one pool or stage, ready for tie-break computation."""

    teams: tuple[str, ...]
    rounds: Mapping[str, tuple[TeamRound, ...]]
    number_of_rounds: int
    boards: int
    scoring: MatchScoring
    round_robin: bool

    def mp(self, team: str) -> int:
        return sum(r.mp for r in self.rounds[team])

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
) -> Event:
    """Each team's rounds from the match records; a round without a record is an absence."""
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
    return Event(tuple(teams), rounds, number_of_rounds, boards, scoring, round_robin)


# --- scores ---------------------------------------------------------------------------------------

Score = str  # "MP" or "GP"


def _pts(entry: TeamRound, score: Score) -> Fraction:
    return Fraction(entry.mp) if score == "MP" else Fraction(entry.gp, 2)


def _total(event: Event, team: str, score: Score) -> Fraction:
    return sum((_pts(r, score) for r in event.rounds[team]), Fraction(0))


def _draw(event: Event, score: Score) -> Fraction:
    return Fraction(event.scoring.draw) if score == "MP" else Fraction(event.boards, 2)


def _win(event: Event, score: Score) -> Fraction:
    return Fraction(event.scoring.win) if score == "MP" else Fraction(event.boards)


def adjusted_score(event: Event, team: str, score: Score) -> Fraction:
    """The team's score as its opponents see it (C.07 16.3; 15.2: round robins use the final score)."""
    if event.round_robin:
        return _total(event, team, score)
    rounds = event.rounds[team]
    last_not_vur = max((r.round for r in rounds if not r.kind.is_vur), default=0)
    total = Fraction(0)
    for r in rounds:
        # 16.3.2: an absence followed only by voluntary unplayed rounds counts as a draw.
        if r.kind is RoundKind.ABSENT and r.round > last_not_vur:
            total += _draw(event, score)
        else:
            total += _pts(r, score)
    return total


@dataclass(frozen=True, slots=True)
class _Element:
    """One addend of a Buchholz / Sonneborn-Berger sum, before any cut."""

    opp_score: Fraction
    value: Fraction
    vur: bool


def _elements(event: Event, team: str, opp_score: Score, own_score: Score | None) -> list[_Element]:
    """Opponents' scores (× own score against them when ``own_score``) per round.

    Round robin: byes and absences are no element (C.07 15.2). Swiss: unplayed rounds meet the
    dummy, whose score is the team's own, capped (C.07 16.4.1 forfeits, 16.4.2 other rounds).
    """
    own_total = _total(event, team, opp_score)
    out: list[_Element] = []
    for r in event.rounds[team]:
        if r.opponent is not None and (r.kind is RoundKind.PLAYED or event.round_robin):
            opp = adjusted_score(event, r.opponent, opp_score)
        elif event.round_robin:
            continue
        elif r.opponent is not None:
            opp = min(own_total, adjusted_score(event, r.opponent, opp_score))
        else:
            opp = min(own_total, _draw(event, opp_score) * event.number_of_rounds)
        value = opp if own_score is None else opp * _pts(r, own_score)
        vur = r.kind.is_vur and not event.round_robin
        out.append(_Element(opp, value, vur))
    return out


def _cut_one(elements: list[_Element]) -> list[_Element]:
    """C.07 14.1 / 14.1.2: drop the lowest-scoring opponent's element (ties: lowest value);
    16.5: a voluntary unplayed round's element goes first when it is not below that one."""
    if not elements:
        return elements
    lsv = min(range(len(elements)), key=lambda i: (elements[i].opp_score, elements[i].value))
    vurs = [i for i in range(len(elements)) if elements[i].vur]
    drop = lsv
    if vurs:
        vur = min(vurs, key=lambda i: (elements[i].value, elements[i].opp_score))
        if elements[lsv].value <= elements[vur].value:
            drop = vur
    return elements[:drop] + elements[drop + 1 :]


def sonneborn_berger(event: Event, team: str, code: str) -> Fraction:
    """EMMSB, EMGSB, EGMSB, EGGSB (C.07 13.2), with ``/C1`` the cut of 14.1.2."""
    base, _, modifier = code.partition("/")
    opp = "MP" if base[1] == "M" else "GP"
    own = "MP" if base[2] == "M" else "GP"
    elements = _elements(event, team, opp, own)
    if modifier == "C1":
        elements = _cut_one(elements)
    return sum((e.value for e in elements), Fraction(0))


def buchholz(event: Event, team: str, code: str) -> Fraction:
    """BH:MP / BH:GP (C.07 8.1 applied to teams, 13 preamble), ``/C1`` per 14.1 a."""
    base, _, modifier = code.partition("/")
    score = base.split(":")[1]
    elements = _elements(event, team, score, None)
    if modifier == "C1":
        elements = _cut_one(elements)
    return sum((e.value for e in elements), Fraction(0))


def _unpaired_rounds(event: Event, team: str) -> int:
    return sum(1 for r in event.rounds[team] if r.kind is RoundKind.ABSENT)


def olympiad_tb1(event: Event, team: str) -> Fraction:
    """Olympiad 2026 App. 2.I TB1: Σ GP vs i × i's final MP, without the bye round, else without
    the lowest-MP opponent (ties: lowest product); unplayed matches per App. 2.IV (FMP + UR)."""
    items: list[tuple[Fraction, Fraction]] = []
    had_bye = False
    for r in event.rounds[team]:
        if r.kind is RoundKind.BYE:
            had_bye = True
            continue
        if r.opponent is None:
            continue
        fmp = Fraction(event.mp(r.opponent) + _unpaired_rounds(event, r.opponent))
        items.append((fmp, fmp * Fraction(r.gp, 2)))
    if not had_bye and items:
        items.remove(min(items))
    return sum((value for _, value in items), Fraction(0))


def olympiad_tb3(event: Event, team: str) -> Fraction:
    """Olympiad 2026 App. 2.I TB3: Σ opponents' MP less the lowest (a bye round is no opponent)."""
    scores = [
        Fraction(event.mp(r.opponent) + _unpaired_rounds(event, r.opponent))
        for r in event.rounds[team]
        if r.opponent is not None
    ]
    if scores:
        scores.remove(min(scores))
    return sum(scores, Fraction(0))


def primary_score(chain: Sequence[str]) -> Score:
    """MP unless the chain names GP before MP (C.04.6 1.2.2 default)."""
    for code in chain:
        if code in ("MP", "GP"):
            return code
    return "MP"


def value_of(event: Event, team: str, code: str, *, primary: Score = "MP") -> Fraction:
    """A value criterion for one team (higher ranks higher)."""
    if code == "MP":
        return Fraction(event.mp(team))  # C.07 11.1.1
    if code == "GP":
        return Fraction(event.gp(team), 2)  # C.07 11.1.2
    if code == "MPvGP":
        return value_of(event, team, "GP" if primary == "MP" else "MP")  # C.07 13.1
    if code == "WIN":
        # C.07 7.1: rounds with as many match points as a win, with or without playing.
        return Fraction(sum(1 for r in event.rounds[team] if r.mp == event.scoring.win))
    if code.startswith("E") and code[:5] in ESB_CODES:
        return sonneborn_berger(event, team, code)  # C.07 13.2, 14.1.2
    if code.startswith("BH:"):
        return buchholz(event, team, code)  # C.07 8.1, 14.1
    if code == "OLY-TB1":
        return olympiad_tb1(event, team)  # Olympiad 2026 Appendix 2.I TB1
    if code == "OLY-TB3":
        return olympiad_tb3(event, team)  # Olympiad 2026 Appendix 2.I TB3
    raise TieBreakError(f"{code} is not a value tie-break")


# --- direct encounter ----------------------------------------------------------------------------


@dataclass
class DirectEncounterTrace:
    """Per team, the score inside the last group where direct encounter was computed for it."""

    score: dict[str, Fraction] = field(default_factory=dict)


def _de_scores(
    event: Event, group: Sequence[str], score: Score
) -> tuple[dict[str, Fraction], dict[str, Fraction], bool]:
    """Score of each member against the others (C.07 6.1, repeated meetings averaged per 6.1.2),
    the best it could reach if missing meetings were won, and whether all of them met."""
    members = set(group)
    current: dict[str, Fraction] = {}
    best: dict[str, Fraction] = {}
    all_met = True
    for team in group:
        per_opp: dict[str, list[Fraction]] = defaultdict(list)
        for r in event.rounds[team]:
            if r.opponent not in members:
                continue
            # 6.1.1: forfeits count only where 15.2 (pre-determined pairings) treats them as played.
            if r.kind is RoundKind.PLAYED or event.round_robin:
                per_opp[r.opponent].append(_pts(r, score))
        total = sum((sum(v, Fraction(0)) / len(v) for v in per_opp.values()), Fraction(0))
        missing = len(group) - 1 - len(per_opp)
        current[team] = total
        best[team] = total + missing * _win(event, score)
        if missing and not event.round_robin:
            all_met = False
    return current, best, all_met


def _de_split(
    event: Event, group: Sequence[str], score: Score, trace: DirectEncounterTrace
) -> list[list[str]]:
    """One application of C.07 Art. 6 to a tied group: ordered subgroups (6.2 or, Swiss, 6.3)."""
    current, best, all_met = _de_scores(event, group, score)
    for team in group:
        trace.score[team] = current[team]
    ordered = sorted(group, key=lambda t: (-current[t], -best[t], t))
    if all_met:
        parts: list[list[str]] = []
        for team in ordered:
            if parts and current[parts[-1][0]] == current[team]:
                parts[-1].append(team)
            else:
                parts.append([team])
        return parts
    # 6.3: a team goes ahead only when no outcome of the missing meetings can catch it.
    parts = []
    rest = list(ordered)
    while len(rest) > 1:
        head, others = rest[0], rest[1:]
        if current[head] > max(best[t] for t in others):
            parts.append([head])
            rest = others
        else:
            break
    if rest:
        parts.append(rest)
    return parts


def _refine(
    parts: list[list[str]], split: Callable[[list[str]], list[list[str]]]
) -> tuple[list[list[str]], bool]:
    """Apply ``split`` to every group still tied until nothing changes (C.07 6.2 reapplied)."""
    changed_any = False
    while True:
        new_parts: list[list[str]] = []
        changed = False
        for part in parts:
            if len(part) < 2:
                new_parts.append(part)
                continue
            pieces = split(part)
            changed = changed or len(pieces) > 1
            new_parts.extend(pieces)
        parts = new_parts
        if not changed:
            return parts, changed_any
        changed_any = True


def _splitter(
    event: Event, score: Score, trace: DirectEncounterTrace
) -> Callable[[list[str]], list[list[str]]]:
    def split(group: list[str]) -> list[list[str]]:
        return _de_split(event, group, score, trace)

    return split


def direct_encounter(
    event: Event, group: Sequence[str], code: str, trace: DirectEncounterTrace, *, primary: Score = "MP"
) -> list[list[str]]:
    """Order a tied group by DE:MP, DE:GP (C.07 6) or EDE (C.07 13.3); returns ordered subgroups.

    EDE alternates between the primary and the secondary score, each to a fixed point, and keeps
    using the secondary score inside a subgroup it created, as FIDE's checker does (docs/tiebreaks.md).
    """
    parts = [sorted(group)]
    if code in ("DE:MP", "DE:GP"):
        score = code.split(":")[1]
        return _refine(parts, _splitter(event, score, trace))[0]
    if code != "EDE":
        raise TieBreakError(f"{code} is not a direct-encounter tie-break")
    scores = (primary, "GP" if primary == "MP" else "MP")
    index, quiet = 0, 0
    while quiet < 2:
        parts, changed = _refine(parts, _splitter(event, scores[index], trace))
        quiet = 0 if changed else quiet + 1
        index = 1 - index
    return parts


def all_values(
    event: Event, chain: Iterable[str], *, primary: Score = "MP"
) -> dict[str, dict[str, Fraction]]:
    """Every value criterion of the chain for every team: code -> team -> value."""
    return {
        code: {team: value_of(event, team, code, primary=primary) for team in event.teams}
        for code in chain
        if code not in GROUP_CODES and code != "LOT"
    }
