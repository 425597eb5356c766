"""Read models of the spectator pages and the public API: plain frozen dataclasses built from repositories.

Spectators see published work only (events that are not drafts, published pools). Standings come from the
stored ``standing`` rows when the results service has computed them (they carry recorded lots, fair-play
rulings and the provisional flag); before that, they are computed here from the boards with the same
domain engine. Cross tables and rounds always come from the boards. Nothing here is secret or sealed:
Armageddon nominations, lot seeds and tokens are never read.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, tzinfo
from fractions import Fraction
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from orchestrator.adapters.tables import (
    Board,
    Match,
    Player,
    PoolStatus,
    Round,
    RoundStatus,
    Stage,
    StageKind,
    Standing,
    Team,
)
from orchestrator.adapters.tables import Event as EventRow
from orchestrator.adapters.tables import Pool as PoolRow
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.domain.event import EventDefinition, EventDefinitionError, parse_stored_event
from orchestrator.domain.performance import Performance, PlayedGame, performance
from orchestrator.domain.scoring import (
    DEFAULT_SCORING,
    MatchForfeit,
    MatchRecord,
    MatchScoring,
    format_points,
    no_show,
)
from orchestrator.domain.standings import compute_standings, team_totals
from orchestrator.domain.tiebreaks import PRESETS, TieBreakError, parse_chain
from orchestrator.services.errors import NotFound
from orchestrator.services.results.standings import effective_result

log = logging.getLogger(__name__)

DEFAULT_CHAIN = PRESETS["online-2020"]
DEFAULT_BOARDS = 6

# Column headings and their meaning (shown as a legend under each standings table, not as tooltips).
TIEBREAK_LABELS: dict[str, tuple[str, str]] = {
    "MP": ("MP", "match points"),
    "GP": ("GP", "game points"),
    "DE:MP": ("DE-MP", "match points among the tied teams"),
    "DE:GP": ("DE-GP", "game points among the tied teams"),
    "EDE": ("EDE", "extended direct encounter"),
    "EMMSB": ("SB-MP", "Sonneborn-Berger on match points"),
    "EGGSB": ("SB-GP", "Sonneborn-Berger on game points"),
    "EMGSB": ("SB-MG", "Sonneborn-Berger, match points × opponents' game points"),
    "EGMSB": ("SB-GM", "Sonneborn-Berger, game points × opponents' match points"),
    "BH:MP": ("BH-MP", "Buchholz on match points"),
    "BH:GP": ("BH-GP", "Buchholz on game points"),
    "WIN": ("Wins", "matches won"),
    "MPvGP": ("MPvGP", "the other primary score"),
    "OLY-TB1": ("TB1", "Olympiad Sonneborn-Berger"),
    "OLY-TB3": ("TB3", "opponents' match points less the lowest"),
    "LOT": ("Lot", "drawing of lots"),
}


def tiebreak_label(code: str) -> tuple[str, str]:
    """Short heading and meaning of a tie-break code (``EMGSB/C1`` → ``SB-MG C1``)."""
    base, _, cut = code.partition("/")
    short, meaning = TIEBREAK_LABELS.get(base, (base, base))
    if cut:
        return f"{short} {cut}", f"{meaning}, least significant value cut"
    return short, meaning


def format_value(value: Fraction) -> str:
    """An exact tie-break value as printed: whole numbers plain, halves as ``.5``, else two decimals."""
    if value.denominator == 1:
        return str(value.numerator)
    if value.denominator == 2:
        return format_points(value.numerator)
    return f"{float(value):.2f}"


def format_score(half: int) -> str:
    """Game points for people: ``4½``, ``3``, ``½``."""
    whole, rest = divmod(half, 2)
    if rest == 0:
        return str(whole)
    return f"{whole}½" if whole else "½"


# --- read models ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EventRef:
    slug: str
    name: str
    status: str


@dataclass(frozen=True, slots=True)
class TeamRef:
    id: int
    name: str
    federation: str
    seed: int


@dataclass(frozen=True, slots=True)
class PlayerRef:
    id: int
    name: str
    rating: int
    account: str
    team_id: int


@dataclass(frozen=True, slots=True)
class StageItem:
    id: int
    key: str
    name: str
    kind: str
    status: str
    position: int
    pool_count: int
    team_count: int
    rounds: int
    first_round_at: datetime | None
    last_round_at: datetime | None
    advance: int | None  # places per pool that go on; None for a knockout or when unknown
    next_stage: str | None
    has_page: bool  # something published to show


@dataclass(frozen=True, slots=True)
class EventListItem:
    event: EventRef
    team_count: int
    stage_count: int
    first_round_at: datetime | None
    last_round_at: datetime | None


@dataclass(frozen=True, slots=True)
class EventView:
    event: EventRef
    team_count: int
    stages: tuple[StageItem, ...]
    current_stage: str | None  # key of the stage being played, if any
    topics: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ValueCell:
    code: str
    text: str
    exact: str  # the Fraction as "n/d" (API consumers recompute nothing)


@dataclass(frozen=True, slots=True)
class StandingLine:
    rank: int
    team: TeamRef
    values: tuple[ValueCell, ...]
    separated_by: str | None  # tie-break code that split this row from the one above
    tied_with_previous: bool
    qualifies: bool
    mp: int
    gp_half: int
    played: int
    won: int
    drawn: int
    lost: int

    @property
    def separated_label(self) -> str | None:
        return tiebreak_label(self.separated_by)[0] if self.separated_by else None


@dataclass(frozen=True, slots=True)
class CrossCell:
    opponent_id: int
    match_id: int | None
    round_number: int | None
    own_half: int | None  # None: not played yet (or still playing)
    other_half: int | None
    outcome: str | None  # "win", "draw", "loss"
    forfeit: bool = False

    @property
    def text(self) -> str:
        if self.own_half is None:
            return ""
        if self.forfeit:
            return "+" if self.outcome == "win" else "−"
        return format_score(self.own_half)


@dataclass(frozen=True, slots=True)
class CrossRow:
    team: TeamRef
    rank: int
    cells: tuple[CrossCell | None, ...]  # None on the diagonal
    mp: int
    gp_half: int

    @property
    def gp_text(self) -> str:
        return format_value(Fraction(self.gp_half, 2))


@dataclass(frozen=True, slots=True)
class MatchLine:
    id: int
    round_number: int
    match_no: int
    first: TeamRef
    second: TeamRef
    first_half: int
    second_half: int
    status: str
    forfeit: str
    boards_final: int
    boards: int

    @property
    def final(self) -> bool:
        return self.forfeit != "" or (self.boards > 0 and self.boards_final == self.boards)

    @property
    def started(self) -> bool:
        return self.forfeit != "" or self.boards_final > 0

    @property
    def score_text(self) -> str:
        if self.forfeit == MatchForfeit.DOUBLE.value:
            return "−/− (double forfeit)"
        if not self.started:
            return "–"
        return f"{format_score(self.first_half)}–{format_score(self.second_half)}"


@dataclass(frozen=True, slots=True)
class RoundView:
    number: int
    name: str
    scheduled_at: datetime | None
    status: str
    matches: tuple[MatchLine, ...]


@dataclass(frozen=True, slots=True)
class ChainColumn:
    code: str
    short: str
    meaning: str


@dataclass(frozen=True, slots=True)
class PoolSummary:
    id: int
    letter: str
    average_rating: int | None
    team_count: int
    standings: tuple[StandingLine, ...]
    finished_matches: int
    total_matches: int


@dataclass(frozen=True, slots=True)
class StageView:
    event: EventRef
    stage: StageItem
    chain: tuple[ChainColumn, ...]
    pools: tuple[PoolSummary, ...]
    pools_published: bool
    duels: tuple[DuelLine, ...]
    rounds: tuple[RoundView, ...]  # round schedule, without matches
    topics: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DuelLine:
    key: str
    round_name: str
    first: TeamRef | None
    second: TeamRef | None
    first_source: str
    second_source: str
    status: str
    winner: TeamRef | None
    matches: tuple[MatchLine, ...]


@dataclass(frozen=True, slots=True)
class PoolView:
    event: EventRef
    stage: StageItem
    id: int
    letter: str
    average_rating: int | None
    chain: tuple[ChainColumn, ...]
    standings: tuple[StandingLine, ...]
    standings_source: str  # "stored" (results service) or "computed" (from the boards, before that)
    provisional: bool
    crosstable: tuple[CrossRow, ...]
    rounds: tuple[RoundView, ...]
    topics: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class BoardLine:
    number: int
    first_colour: str  # "white" or "black": the first-named team's colour on this board
    first_player: PlayerRef | None
    second_player: PlayerRef | None
    result: str  # from White's side, e.g. "1-0", "*"
    first_half: int
    second_half: int
    final: bool
    forfeit: bool
    game_url: str | None
    has_pgn: bool
    annulled: bool = False  # a fair-play ruling turned this game into a loss (docs/rules.md §2)
    played_result: str = ""  # the result on the board before the ruling

    @property
    def first_score(self) -> str:
        return _board_side_text(self.result, self.first_half, self.final, self.forfeit)

    @property
    def second_score(self) -> str:
        return _board_side_text(self.result, self.second_half, self.final, self.forfeit)


def _board_side_text(result: str, half: int, final: bool, forfeit: bool) -> str:
    if not final:
        return "*"
    if forfeit:
        return "+" if half == 2 else "−"
    return {2: "1", 1: "½", 0: "0"}[half]


@dataclass(frozen=True, slots=True)
class MatchView:
    event: EventRef
    stage: StageItem
    pool_letter: str | None
    duel_key: str | None
    round: RoundView
    match: MatchLine
    boards: tuple[BoardLine, ...]
    topics: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PlayerGame:
    stage_key: str
    round_number: int
    match_id: int
    board: int
    colour: str  # "white" | "black"
    opponent: PlayerRef | None
    opponent_team: TeamRef
    half_points: int | None  # None until final
    played: bool  # over the board (not a forfeit)
    forfeit: bool

    @property
    def text(self) -> str:
        if self.half_points is None:
            return "*"
        if self.forfeit:
            return "+" if self.half_points == 2 else "−"
        return {2: "1", 1: "½", 0: "0"}[self.half_points]


@dataclass(frozen=True, slots=True)
class PlayerLine:
    player: PlayerRef
    main_board: int | None
    category: str
    games: tuple[PlayerGame, ...]
    half_points: int
    games_counted: int
    performance: Performance | None

    @property
    def points_text(self) -> str:
        return format_score(self.half_points) if self.games_counted else ""

    def game_in(self, match_id: int) -> PlayerGame | None:
        return next((g for g in self.games if g.match_id == match_id), None)


@dataclass(frozen=True, slots=True)
class TeamMatchLine:
    stage: StageItem
    pool_letter: str | None
    match: MatchLine
    opponent: TeamRef
    own_half: int
    other_half: int

    @property
    def score_text(self) -> str:
        if not self.match.started:
            return "–"
        return f"{format_score(self.own_half)}–{format_score(self.other_half)}"

    @property
    def outcome(self) -> str:
        if self.own_half == self.other_half:
            return "draw"
        return "win" if self.own_half > self.other_half else "loss"


@dataclass(frozen=True, slots=True)
class TeamView:
    event: EventRef
    team: TeamRef
    strength: int | None
    pools: tuple[tuple[StageItem, str], ...]  # (stage, pool letter)
    players: tuple[PlayerLine, ...]
    matches: tuple[TeamMatchLine, ...]
    topics: tuple[str, ...]


# --- helpers -------------------------------------------------------------------------------------------


def _definition(text: str) -> EventDefinition | None:
    if not text.strip():
        return None
    try:
        return parse_stored_event(text)
    except EventDefinitionError:
        log.warning("stored event definition does not parse; spectator pages use defaults")
        return None


def _ref_event(event: EventRow) -> EventRef:
    return EventRef(event.slug, event.name, event.status)


def _ref_team(team: Team) -> TeamRef:
    return TeamRef(_id(team.id), team.name, team.federation, team.seed)


def _ref_player(player: Player) -> PlayerRef:
    return PlayerRef(_id(player.id), player.name, player.rating, player.account, player.team_id)


def _id(value: int | None) -> int:
    assert value is not None
    return value


def _round_half_up(value: Fraction) -> int:
    return (2 * value.numerator + value.denominator) // (2 * value.denominator)


def _decode_value(raw: Any) -> Fraction:
    """A stored tie-break value: an integer, a number, ``"n/d"``, ``[n, d]`` or ``{"num", "den"}``."""
    if isinstance(raw, bool):
        return Fraction(int(raw))
    if isinstance(raw, int):
        return Fraction(raw)
    if isinstance(raw, float):
        return Fraction(raw).limit_denominator(1000)
    if isinstance(raw, str):
        return Fraction(raw.strip())
    if isinstance(raw, list | tuple) and len(raw) == 2:
        return Fraction(int(raw[0]), int(raw[1]))
    if isinstance(raw, dict):
        num = raw.get("num", raw.get("numerator", 0))
        den = raw.get("den", raw.get("denominator", 1))
        return Fraction(int(num or 0), int(den or 1))
    raise ValueError(f"unreadable standing value {raw!r}")


def _cell(code: str, value: Fraction) -> ValueCell:
    return ValueCell(code, format_value(value), f"{value.numerator}/{value.denominator}")


class _EventData:
    """What every page of one event needs: the event, its definition and its stages."""

    def __init__(self, uow: UnitOfWork, slug: str) -> None:
        event = uow.public.visible_event(slug)
        if event is None:
            raise NotFound(f"There is no event {slug!r}.")
        self.uow = uow
        self.row = event
        self.ref = _ref_event(event)
        self.definition = _definition(event.definition_text)
        self.stages = list(uow.public.stages_of_events([_id(event.id)]))
        stage_ids = [_id(s.id) for s in self.stages]
        self.pools = list(uow.public.pools_of_stages(stage_ids))
        self.rounds = list(uow.public.rounds_of_stages(stage_ids))
        self.entries = list(uow.public.entries_of_pools(_id(p.id) for p in self.pools if _is_public(p)))
        self.duels = list(
            uow.public.duels_of_stages(_id(s.id) for s in self.stages if s.kind == StageKind.KNOCKOUT)
        )
        self.items = {_id(s.id): self._stage_item(s) for s in self.stages}
        self.annulled = uow.public.annulled_player_ids(_id(event.id))

    @property
    def boards(self) -> int:
        return self.definition.team_format.boards if self.definition else DEFAULT_BOARDS

    @property
    def scoring(self) -> MatchScoring:
        return self.definition.match_scoring if self.definition else DEFAULT_SCORING

    def chain(self, stage: Stage) -> tuple[str, ...]:
        codes: Sequence[str] = stage.tiebreaks
        if not codes and self.definition:
            definition = next((s for s in self.definition.stages if s.key == stage.key), None)
            codes = definition.tiebreaks if definition else ()
        try:
            return parse_chain(list(codes)) if codes else DEFAULT_CHAIN
        except TieBreakError:
            return DEFAULT_CHAIN

    def _stage_item(self, stage: Stage) -> StageItem:
        stage_id = _id(stage.id)
        pools = [p for p in self.pools if p.stage_id == stage_id]
        public_pools = [p for p in pools if _is_public(p)]
        pool_ids = {p.id for p in public_pools}
        rounds = [r for r in self.rounds if r.stage_id == stage_id]
        times = [r.scheduled_at for r in rounds if r.scheduled_at is not None]
        advance: int | None = None
        next_stage: str | None = None
        definition = (
            next((s for s in self.definition.stages if s.key == stage.key), None) if self.definition else None
        )
        if definition is not None:
            if not times and definition.schedule:
                zone = _zone(self.definition.timezone if self.definition else "UTC")
                times = [
                    t.replace(tzinfo=zone).astimezone(UTC) if t.tzinfo is None else t
                    for t in definition.schedule
                ]
            if stage.kind == StageKind.POOLS and definition.advance:
                advance = definition.advance
        later = [s for s in self.stages if s.position > stage.position]
        if advance is not None and later:
            next_stage = later[0].name
        duels = [d for d in self.duels if d.stage_id == stage_id]
        has_page = bool(public_pools) if stage.kind == StageKind.POOLS else bool(duels)
        return StageItem(
            id=stage_id,
            key=stage.key,
            name=stage.name,
            kind=stage.kind,
            status=stage.status,
            position=stage.position,
            pool_count=len(pools) or (definition.pool_count if definition else 0),
            team_count=sum(1 for e in self.entries if e.pool_id in pool_ids),
            rounds=len(rounds) or (len(definition.schedule) if definition else 0),
            first_round_at=min(times) if times else None,
            last_round_at=max(times) if times else None,
            advance=advance,
            next_stage=next_stage,
            has_page=has_page,
        )

    def stage_by_key(self, key: str) -> Stage:
        for stage in self.stages:
            if stage.key == key:
                return stage
        raise NotFound(f"There is no stage {key!r} in this event.")

    def stage_by_id(self, stage_id: int) -> Stage:
        return next(s for s in self.stages if s.id == stage_id)

    def public_pool(self, stage: Stage, letter: str) -> PoolRow:
        for pool in self.pools:
            if pool.stage_id == stage.id and pool.letter.upper() == letter.upper() and _is_public(pool):
                return pool
        raise NotFound(f"There is no published pool {letter!r} in {stage.name}.")


def _zone(name: str) -> tzinfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return UTC


def _is_public(pool: PoolRow) -> bool:
    return pool.status == PoolStatus.PUBLISHED.value


def _match_line(
    match: Match,
    round_number: int,
    teams: Mapping[int, Team],
    boards: Sequence[Board],
    board_count: int,
    annulled: set[int] | None = None,
) -> MatchLine:
    first_half = second_half = final = 0
    for board in boards:
        result = effective_result(board, annulled or set())
        if result.is_final:
            final += 1
        if board.board_no % 2 == 1:  # the first-named team has White on odd boards (docs/rules.md §1)
            first_half += result.white_half
            second_half += result.black_half
        else:
            first_half += result.black_half
            second_half += result.white_half
    if match.forfeit == MatchForfeit.A_WINS.value:
        first_half, second_half = board_count * 2, 0
    elif match.forfeit == MatchForfeit.B_WINS.value:
        first_half, second_half = 0, board_count * 2
    elif match.forfeit == MatchForfeit.DOUBLE.value:
        first_half = second_half = 0
    return MatchLine(
        id=_id(match.id),
        round_number=round_number,
        match_no=match.match_no,
        first=_ref_team(teams[match.first_team_id]),
        second=_ref_team(teams[match.second_team_id]),
        first_half=first_half,
        second_half=second_half,
        status=match.status,
        forfeit=match.forfeit,
        boards_final=final,
        boards=len(boards) or board_count,
    )


def _record(line: MatchLine) -> MatchRecord | None:
    """The tie-break engine's view of a finished match; None while it is being played."""
    if not line.final:
        return None
    a, b = str(line.first.id), str(line.second.id)
    if line.forfeit == MatchForfeit.A_WINS.value:
        return no_show(round=line.round_number, team_a=a, team_b=b, absent=b, boards=line.boards)
    if line.forfeit == MatchForfeit.B_WINS.value:
        return no_show(round=line.round_number, team_a=a, team_b=b, absent=a, boards=line.boards)
    if line.forfeit == MatchForfeit.DOUBLE.value:
        return no_show(round=line.round_number, team_a=a, team_b=b, absent=None, boards=line.boards)
    return MatchRecord(line.round_number, a, b, line.first_half, line.second_half)


def _team_strength(players: Iterable[Player]) -> int | None:
    """Average rating of the main players (docs/rules.md §3), rounded half up."""
    ratings = [p.rating for p in players if p.main_board is not None]
    return _round_half_up(Fraction(sum(ratings), len(ratings))) if ratings else None


def _average(values: Sequence[int | None]) -> int | None:
    known = [v for v in values if v is not None]
    return _round_half_up(Fraction(sum(known), len(known))) if known else None


def _chain_columns(chain: Sequence[str]) -> tuple[ChainColumn, ...]:
    return tuple(ChainColumn(code, *tiebreak_label(code)) for code in chain if code != "LOT")


@dataclass
class _PoolData:
    pool: PoolRow
    teams: dict[int, Team]
    entries: list[int]  # team ids by pairing number
    matches: list[MatchLine]
    rounds: list[Round]
    boards: dict[int, list[Board]] = field(default_factory=dict)


def _load_pools(data: _EventData, pools: Sequence[PoolRow]) -> list[_PoolData]:
    uow = data.uow
    pool_ids = [_id(p.id) for p in pools]
    teams = {_id(t.id): t for t in uow.public.teams_of_event(_id(data.row.id))}
    matches = list(uow.public.matches_of_pools(pool_ids))
    boards: dict[int, list[Board]] = defaultdict(list)
    for board in uow.public.boards_of_matches(_id(m.id) for m in matches):
        boards[board.match_id].append(board)
    round_by_id = {r.id: r for r in data.rounds}
    out: list[_PoolData] = []
    for pool in pools:
        pool_matches = [m for m in matches if m.pool_id == pool.id]
        lines = [
            _match_line(
                m, round_by_id[m.round_id].number, teams, boards[_id(m.id)], data.boards, data.annulled
            )
            for m in pool_matches
            if m.round_id in round_by_id
        ]
        entries = [e.team_id for e in data.entries if e.pool_id == pool.id]
        rounds = [r for r in data.rounds if r.stage_id == pool.stage_id]
        out.append(
            _PoolData(
                pool, teams, entries, lines, rounds, {_id(m.id): boards[_id(m.id)] for m in pool_matches}
            )
        )
    return out


def _standings(
    data: _EventData, stage: Stage, item: StageItem, pool: _PoolData, stored: Sequence[Standing]
) -> tuple[tuple[StandingLine, ...], str, bool]:
    chain = data.chain(stage)
    records = [r for r in (_record(m) for m in pool.matches) if r is not None]
    keys = [str(t) for t in pool.entries]
    totals = team_totals(keys, records, scoring=data.scoring)
    # Qualifying places are marked once the pool has a finished match, not on an empty table.
    advance = (item.advance or 0) if records else 0
    lines: list[StandingLine] = []
    complete = {s.team_id for s in stored} == set(pool.entries) and bool(pool.entries)
    if complete:
        previous_rank = None
        for row in stored:
            values = {code: _decode_value(v) for code, v in (row.values or {}).items()}
            lines.append(_line(row.rank, pool.teams[row.team_id], chain, values, row.separated_by,
                               previous_rank, totals[str(row.team_id)], advance))  # fmt: skip
            previous_rank = row.rank
        return tuple(lines), "stored", any(row.provisional for row in stored)
    try:
        standings = compute_standings(keys, records, chain=chain, boards=data.boards, scoring=data.scoring)
    except TieBreakError:
        log.exception("pool %s: standings could not be computed", pool.pool.id)
        return (), "computed", True
    previous_rank = None
    for srow in standings.rows:
        team_id = int(srow.team)
        lines.append(_line(srow.rank, pool.teams[team_id], chain, dict(srow.values), srow.separated_by,
                           previous_rank, totals[srow.team], advance))  # fmt: skip
        previous_rank = srow.rank
    finished = len(records) == len(pool.matches) and bool(pool.matches)
    return tuple(lines), "computed", not finished or stage.status != "closed"


def _line(
    rank: int,
    team: Team,
    chain: Sequence[str],
    values: Mapping[str, Fraction],
    separated_by: str | None,
    previous_rank: int | None,
    totals: Any,
    advance: int,
) -> StandingLine:
    cells = tuple(_cell(code, values.get(code, Fraction(0))) for code in chain if code != "LOT")
    return StandingLine(
        rank=rank,
        team=_ref_team(team),
        values=cells,
        separated_by=separated_by,
        tied_with_previous=previous_rank == rank,
        qualifies=0 < rank <= advance,
        mp=totals.mp,
        gp_half=totals.gp_half,
        played=totals.played,
        won=totals.won,
        drawn=totals.drawn,
        lost=totals.lost,
    )


def _rounds(pool_rounds: Sequence[Round], matches: Sequence[MatchLine]) -> tuple[RoundView, ...]:
    by_round: dict[int, list[MatchLine]] = defaultdict(list)
    for line in matches:
        by_round[line.round_number].append(line)
    out = []
    for r in sorted(pool_rounds, key=lambda r: r.number):
        lines = tuple(sorted(by_round.get(r.number, []), key=lambda m: m.match_no))
        out.append(
            RoundView(r.number, r.name or f"Round {r.number}", r.scheduled_at, _round_status(r, lines), lines)
        )
    return tuple(out)


def _round_status(rnd: Round, matches: Sequence[MatchLine]) -> str:
    """The round's status as spectators see it: the boards tell when it is being played or over."""
    if matches and all(m.final for m in matches):
        return RoundStatus.FINISHED.value
    if any(m.started for m in matches) and rnd.status != RoundStatus.FINISHED.value:
        return RoundStatus.PLAYING.value
    return rnd.status


def _crosstable(pool: _PoolData, standings: Sequence[StandingLine]) -> tuple[CrossRow, ...]:
    order = [line.team.id for line in standings] or list(pool.entries)
    ranks = {line.team.id: line.rank for line in standings}
    cells: dict[tuple[int, int], CrossCell] = {}
    for m in pool.matches:
        a, b = m.first.id, m.second.id
        if m.final:
            for own, other, own_half, other_half in ((a, b, m.first_half, m.second_half),
                                                     (b, a, m.second_half, m.first_half)):  # fmt: skip
                outcome = "win" if own_half > other_half else "loss" if own_half < other_half else "draw"
                cells[(own, other)] = CrossCell(other, m.id, m.round_number, own_half, other_half, outcome,
                                                m.forfeit != "")  # fmt: skip
        else:
            cells[(a, b)] = CrossCell(b, m.id, m.round_number, None, None, None)
            cells[(b, a)] = CrossCell(a, m.id, m.round_number, None, None, None)
    by_line = {line.team.id: line for line in standings}
    rows = []
    for team_id in order:
        row_cells = tuple(
            None
            if other == team_id
            else cells.get((team_id, other), CrossCell(other, None, None, None, None, None))
            for other in order
        )
        line = by_line.get(team_id)
        rows.append(
            CrossRow(
                _ref_team(pool.teams[team_id]),
                ranks.get(team_id, 0),
                row_cells,
                line.mp if line else 0,
                line.gp_half if line else 0,
            )
        )
    return tuple(rows)


def _strengths(uow: UnitOfWork, team_ids: Iterable[int]) -> dict[int, int | None]:
    players: dict[int, list[Player]] = defaultdict(list)
    for player in uow.public.players_of_teams(team_ids):
        players[player.team_id].append(player)
    return {team_id: _team_strength(players.get(team_id, [])) for team_id in team_ids}


# --- use cases -----------------------------------------------------------------------------------------


def list_events(uow: UnitOfWork) -> tuple[EventListItem, ...]:
    """Every event spectators may follow, newest first."""
    events = list(uow.public.visible_events())
    items = []
    for event in events:
        data = _EventData(uow, event.slug)
        starts = [s.first_round_at for s in data.items.values() if s.first_round_at]
        ends = [s.last_round_at for s in data.items.values() if s.last_round_at]
        items.append(
            EventListItem(
                event=data.ref,
                team_count=len(uow.public.teams_of_event(_id(event.id))),
                stage_count=len(data.stages),
                first_round_at=min(starts) if starts else None,
                last_round_at=max(ends) if ends else None,
            )
        )
    return tuple(items)


def event_view(uow: UnitOfWork, *, slug: str) -> EventView:
    """The event overview: its stage timeline."""
    data = _EventData(uow, slug)
    stages = tuple(data.items[_id(s.id)] for s in data.stages)
    current = next((s.key for s in stages if s.status == "running"), None)
    topics = (f"event:{slug}", *(f"stage:{s.id}" for s in stages))
    return EventView(data.ref, len(uow.public.teams_of_event(_id(data.row.id))), stages, current, topics)


def stage_view(uow: UnitOfWork, *, slug: str, stage_key: str) -> StageView:
    """One stage: its pools with strength and standings summary, or its duels."""
    data = _EventData(uow, slug)
    stage = data.stage_by_key(stage_key)
    item = data.items[_id(stage.id)]
    pools = [p for p in data.pools if p.stage_id == stage.id and _is_public(p)]
    summaries = []
    stored_all = list(uow.public.standings_of_pools(_id(p.id) for p in pools))
    strengths = _strengths(uow, [e.team_id for e in data.entries if e.pool_id in {p.id for p in pools}])
    loaded = _load_pools(data, pools)
    for pool in loaded:
        stored = [s for s in stored_all if s.pool_id == pool.pool.id]
        lines, _source, _provisional = _standings(data, stage, item, pool, stored)
        summaries.append(
            PoolSummary(
                id=_id(pool.pool.id),
                letter=pool.pool.letter,
                average_rating=_average([strengths.get(t) for t in pool.entries]),
                team_count=len(pool.entries),
                standings=lines,
                finished_matches=sum(1 for m in pool.matches if m.final),
                total_matches=len(pool.matches),
            )
        )
    duels = _duels(data, stage) if stage.kind == StageKind.KNOCKOUT else ()
    all_matches = [m for pool in loaded for m in pool.matches]
    rounds = tuple(
        replace(r, matches=())
        for r in _rounds([r for r in data.rounds if r.stage_id == stage.id], all_matches)
    )
    topics = (f"event:{slug}", f"stage:{stage.id}", *(f"pool:{p.id}" for p in summaries))
    return StageView(
        event=data.ref,
        stage=item,
        chain=_chain_columns(data.chain(stage)),
        pools=tuple(summaries),
        pools_published=bool(summaries),
        duels=duels,
        rounds=rounds,
        topics=topics + tuple(f"duel:{d.id}" for d in data.duels if d.stage_id == stage.id),
    )


def _duels(data: _EventData, stage: Stage) -> tuple[DuelLine, ...]:
    uow = data.uow
    duels = [d for d in data.duels if d.stage_id == stage.id]
    teams = {_id(t.id): t for t in uow.public.teams_of_event(_id(data.row.id))}
    legs = list(uow.public.matches_of_duels(_id(d.id) for d in duels))
    boards: dict[int, list[Board]] = defaultdict(list)
    for board in uow.public.boards_of_matches(_id(m.id) for m in legs):
        boards[board.match_id].append(board)
    round_by_id = {r.id: r.number for r in data.rounds}
    out = []
    for duel in duels:
        lines = tuple(
            _match_line(
                m, round_by_id.get(m.round_id, 0), teams, boards[_id(m.id)], data.boards, data.annulled
            )
            for m in legs
            if m.duel_id == duel.id
        )
        out.append(
            DuelLine(
                key=duel.key,
                round_name=duel.round_name,
                first=_ref_team(teams[duel.first_team_id]) if duel.first_team_id else None,
                second=_ref_team(teams[duel.second_team_id]) if duel.second_team_id else None,
                first_source=duel.first_source,
                second_source=duel.second_source,
                status=duel.status,
                winner=_ref_team(teams[duel.winner_team_id]) if duel.winner_team_id else None,
                matches=lines,
            )
        )
    return tuple(out)


def pool_view(uow: UnitOfWork, *, slug: str, stage_key: str, letter: str) -> PoolView:
    """One pool: standings with every tie-break column, cross table and rounds."""
    data = _EventData(uow, slug)
    stage = data.stage_by_key(stage_key)
    item = data.items[_id(stage.id)]
    pool_row = data.public_pool(stage, letter)
    pool = _load_pools(data, [pool_row])[0]
    stored = list(uow.public.standings_of_pools([_id(pool_row.id)]))
    lines, source, provisional = _standings(data, stage, item, pool, stored)
    strengths = _strengths(uow, pool.entries)
    topics = (
        f"event:{slug}",
        f"stage:{stage.id}",
        f"pool:{pool_row.id}",
        *(f"match:{m.id}" for m in pool.matches),
    )
    return PoolView(
        event=data.ref,
        stage=item,
        id=_id(pool_row.id),
        letter=pool_row.letter,
        average_rating=_average([strengths.get(t) for t in pool.entries]),
        chain=_chain_columns(data.chain(stage)),
        standings=lines,
        standings_source=source,
        provisional=provisional,
        crosstable=_crosstable(pool, lines),
        rounds=_rounds(pool.rounds, pool.matches),
        topics=topics,
    )


def _match_and_context(data: _EventData, match_id: int) -> tuple[Match, Stage, Round]:
    match = data.uow.public.get(Match, match_id)
    round_by_id = {r.id: r for r in data.rounds}
    if match is None or match.round_id not in round_by_id:
        raise NotFound(f"There is no match {match_id} in this event.")
    if match.pool_id is not None:
        pool = next((p for p in data.pools if p.id == match.pool_id), None)
        if pool is None or not _is_public(pool):
            raise NotFound(f"There is no match {match_id} in this event.")
    rnd = round_by_id[match.round_id]
    return match, data.stage_by_id(rnd.stage_id), rnd


def match_view(uow: UnitOfWork, *, slug: str, match_id: int) -> MatchView:
    """One match board by board, with players, colours, results and links to the games."""
    data = _EventData(uow, slug)
    match, stage, rnd = _match_and_context(data, match_id)
    teams = {_id(t.id): t for t in uow.public.teams_of_event(_id(data.row.id))}
    boards = list(uow.public.boards_of_matches([match_id]))
    players = uow.public.players_by_id(
        [b.white_player_id for b in boards] + [b.black_player_id for b in boards]
    )
    line = _match_line(match, rnd.number, teams, boards, data.boards, data.annulled)
    board_lines = []
    for board in boards:
        result = effective_result(board, data.annulled)
        first_white = board.board_no % 2 == 1
        white = _ref_player(players[board.white_player_id]) if board.white_player_id in players else None
        black = _ref_player(players[board.black_player_id]) if board.black_player_id in players else None
        board_lines.append(
            BoardLine(
                number=board.board_no,
                first_colour="white" if first_white else "black",
                first_player=white if first_white else black,
                second_player=black if first_white else white,
                result=result.value,
                first_half=result.white_half if first_white else result.black_half,
                second_half=result.black_half if first_white else result.white_half,
                final=result.is_final,
                forfeit=result.is_forfeit,
                game_url=board.game_url if board.game_url and board.game_url.startswith("http") else None,
                has_pgn=bool(board.pgn),
                annulled=result.value != board.result,
                played_result=board.result,
            )
        )
    pool_letter = None
    if match.pool_id is not None:
        pool_letter = next(p.letter for p in data.pools if p.id == match.pool_id)
    duel_key = None
    if match.duel_id is not None:
        duel_key = next((d.key for d in data.duels if d.id == match.duel_id), None)
    topics = (f"match:{match_id}", *([f"pool:{match.pool_id}"] if match.pool_id else []))
    round_view = RoundView(rnd.number, rnd.name or f"Round {rnd.number}", rnd.scheduled_at, rnd.status, ())
    return MatchView(
        event=data.ref,
        stage=data.items[_id(stage.id)],
        pool_letter=pool_letter,
        duel_key=duel_key,
        round=round_view,
        match=line,
        boards=tuple(board_lines),
        topics=topics,
    )


def board_pgn(uow: UnitOfWork, *, slug: str, match_id: int, board_no: int) -> str:
    """The stored PGN of one board's game."""
    data = _EventData(uow, slug)
    _match_and_context(data, match_id)
    for board in uow.public.boards_of_matches([match_id]):
        if board.board_no == board_no and board.pgn:
            return board.pgn
    raise NotFound(f"Board {board_no} of match {match_id} has no game record yet.")


def team_view(uow: UnitOfWork, *, slug: str, team_id: int) -> TeamView:
    """One team: roster with each player's games and performance, and the team's matches."""
    data = _EventData(uow, slug)
    team = uow.public.get(Team, team_id)
    if team is None or team.event_id != data.row.id:
        raise NotFound(f"There is no team {team_id} in this event.")
    teams = {_id(t.id): t for t in uow.public.teams_of_event(_id(data.row.id))}
    public_pool_ids = {p.id for p in data.pools if _is_public(p)}
    round_by_id = {r.id: r for r in data.rounds}
    matches = [
        m
        for m in uow.public.matches_of_team(team_id)
        if m.round_id in round_by_id and (m.pool_id is None or m.pool_id in public_pool_ids)
    ]
    boards_by_match: dict[int, list[Board]] = defaultdict(list)
    for board in uow.public.boards_of_matches(_id(m.id) for m in matches):
        boards_by_match[board.match_id].append(board)
    roster = list(uow.public.players_of_teams([team_id]))
    all_ids = [b.white_player_id for bs in boards_by_match.values() for b in bs] + [
        b.black_player_id for bs in boards_by_match.values() for b in bs
    ]
    players = uow.public.players_by_id(all_ids)
    pool_letters = {p.id: p.letter for p in data.pools}
    match_lines: list[TeamMatchLine] = []
    games: dict[int, list[PlayerGame]] = defaultdict(list)
    for match in sorted(matches, key=lambda m: (data.stage_by_id(round_by_id[m.round_id].stage_id).position,
                                                 round_by_id[m.round_id].number)):  # fmt: skip
        rnd = round_by_id[match.round_id]
        stage = data.stage_by_id(rnd.stage_id)
        line = _match_line(
            match, rnd.number, teams, boards_by_match[_id(match.id)], data.boards, data.annulled
        )
        is_first = match.first_team_id == team_id
        opponent_team = line.second if is_first else line.first
        match_lines.append(
            TeamMatchLine(
                data.items[_id(stage.id)],
                pool_letters.get(match.pool_id) if match.pool_id else None,
                line,
                opponent_team,
                line.first_half if is_first else line.second_half,
                line.second_half if is_first else line.first_half,
            )
        )
        for board in boards_by_match[_id(match.id)]:
            result = effective_result(board, data.annulled)
            for player_id, colour, opp_id in (
                (board.white_player_id, "white", board.black_player_id),
                (board.black_player_id, "black", board.white_player_id),
            ):
                player = players.get(player_id) if player_id is not None else None
                if player is None or player.team_id != team_id:
                    continue
                half = result.white_half if colour == "white" else result.black_half
                opponent = players.get(opp_id) if opp_id is not None else None
                games[_id(player.id)].append(
                    PlayerGame(
                        stage_key=stage.key,
                        round_number=rnd.number,
                        match_id=_id(match.id),
                        board=board.board_no,
                        colour=colour,
                        opponent=_ref_player(opponent) if opponent else None,
                        opponent_team=opponent_team,
                        half_points=half if result.is_final else None,
                        played=result.is_played and opponent is not None,
                        forfeit=result.is_forfeit,
                    )
                )
    lines = []
    for player in roster:
        own = tuple(games.get(_id(player.id), []))
        final = [g for g in own if g.half_points is not None]
        # C.07 10.1-10.2: only games played over the board count for the performance rating.
        otb = [PlayedGame(g.opponent.rating, g.half_points) for g in final if g.played and g.opponent
               and g.half_points is not None]  # fmt: skip
        lines.append(
            PlayerLine(
                player=_ref_player(player),
                main_board=player.main_board,
                category=player.category,
                games=own,
                half_points=sum(g.half_points or 0 for g in final),
                games_counted=len(final),
                performance=performance(otb),
            )
        )
    team_pools = tuple(
        (data.items[_id(p.stage_id)], p.letter)
        for p in data.pools
        if _is_public(p) and any(e.pool_id == p.id and e.team_id == team_id for e in data.entries)
    )
    topics = (
        f"event:{slug}",
        *(
            f"pool:{p.id}"
            for p in data.pools
            if any(e.pool_id == p.id and e.team_id == team_id for e in data.entries)
        ),
        *(f"match:{m.id}" for m in matches),
    )
    return TeamView(
        event=data.ref,
        team=_ref_team(team),
        strength=_team_strength(roster),
        pools=team_pools,
        players=tuple(lines),
        matches=tuple(match_lines),
        topics=topics,
    )
