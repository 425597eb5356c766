"""Play-off duels, the Armageddon tie-break and the bracket (docs/rules.md §5, docs/rules.md §3 play-off
table).

A duel is two matches; match points decide it, game points never do; a level duel goes to one Armageddon
game. Everything here is pure: lots come in as seeds, time comes in as ``now``. Choices the rules leave
open are written down in docs/knockout.md.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from enum import Enum

from orchestrator.domain.bracket import DuelSpec, LoserOf, PoolPlace, SlotRef, WinnerOf
from orchestrator.domain.lots import Lot, run_lot
from orchestrator.domain.scoring import (
    DEFAULT_SCORING,
    Colour,
    GameResult,
    HalfPoints,
    MatchForfeit,
    MatchRecord,
    MatchScoring,
    board_colours,
    format_points,
    match_game_points,
)
from orchestrator.domain.teams import Category, Player, Sex, Team, TeamFormat, is_eligible


class KnockoutError(ValueError):
    """A duel, Armageddon step or bracket that does not fit the rules; the message says why."""


class NominationError(KnockoutError):
    """An Armageddon nomination that cannot be accepted."""


# --------------------------------------------------------------------------------------------- duels


def duel_match_colours(match_no: int, boards: int = 6) -> tuple[str, ...]:
    """Colours of the duel's first-named team, board by board: odd boards White in match 1, reversed in 2."""
    if match_no not in (1, 2):
        raise KnockoutError(f"a duel has matches 1 and 2, not {match_no}")
    return board_colours(boards, first_named=match_no == 1)


@dataclass(frozen=True, slots=True)
class DuelMatch:
    """One match of a duel: board results from White's side, or a whole-match forfeit.

    ``MatchForfeit.A_WINS`` means the duel's *first* team wins because the second did not play.
    """

    results: tuple[GameResult, ...] = ()
    forfeit: MatchForfeit = MatchForfeit.NONE

    @property
    def is_final(self) -> bool:
        if self.forfeit is not MatchForfeit.NONE:
            return True
        return bool(self.results) and all(result.is_final for result in self.results)


@dataclass(frozen=True, slots=True)
class ArmageddonResult:
    """The Armageddon game: which team had White, and the result from White's side."""

    white: str
    result: GameResult


@dataclass(frozen=True, slots=True)
class Ruling:
    """An exceptional outcome recorded by staff (2020 final: joint winners after a disconnection appeal)."""

    winners: tuple[str, ...]
    reason: str


@dataclass(frozen=True, slots=True)
class DuelRecord:
    """Everything known about one duel; ``first`` is named first in match 1."""

    key: str
    first: str
    second: str
    matches: tuple[DuelMatch, ...] = ()
    armageddon: ArmageddonResult | None = None
    withdrawn: str | None = None  # withdrew before the duel was decided: loses every remaining game
    ruling: Ruling | None = None
    boards: int = 6


class DuelReason(Enum):
    PENDING = "pending"  # a match is not final yet
    ARMAGEDDON_NEEDED = "armageddon_needed"  # level on match points, Armageddon not played yet
    MATCH_POINTS = "match_points"
    ARMAGEDDON = "armageddon"
    FORFEIT = "forfeit"  # the loser's forfeit (a match or the Armageddon) decided the duel
    WITHDRAWAL = "withdrawal"
    RULING = "ruling"  # staff decision with a reason, one winner
    JOINT_WINNERS = "joint_winners"  # staff decision with a reason, both teams
    NEEDS_RULING = "needs_ruling"  # both Armageddon players forfeited: only staff can decide


@dataclass(frozen=True, slots=True)
class DuelOutcome:
    """Where a duel stands: who goes through (if anyone yet), why, and a sentence for the public pages."""

    key: str
    first: str
    second: str
    reason: DuelReason
    winners: tuple[str, ...]
    mp: tuple[int, int]  # first, second; over the final matches
    gp: tuple[HalfPoints, HalfPoints]  # shown, never used to decide
    sentence: str

    @property
    def is_decided(self) -> bool:
        return bool(self.winners)

    @property
    def winner(self) -> str | None:
        """The one team that goes through, or None (undecided or joint winners)."""
        return self.winners[0] if len(self.winners) == 1 else None

    @property
    def loser(self) -> str | None:
        winner = self.winner
        if winner is None:
            return None
        return self.second if winner == self.first else self.first


def _other(record: DuelRecord, team: str) -> str:
    return record.second if team == record.first else record.first


def _check_record(record: DuelRecord) -> None:
    teams = (record.first, record.second)
    if record.first == record.second:
        raise KnockoutError(f"duel {record.key}: a team cannot meet itself ({record.first})")
    if len(record.matches) > 2:
        raise KnockoutError(f"duel {record.key}: a duel has two matches, got {len(record.matches)}")
    for match_no, match in enumerate(record.matches, start=1):
        if match.results and len(match.results) != record.boards:
            raise KnockoutError(
                f"duel {record.key} match {match_no}: {len(match.results)} results for {record.boards} boards"
            )
        if match.results and match.forfeit is not MatchForfeit.NONE:
            raise KnockoutError(f"duel {record.key} match {match_no}: board results and a match forfeit")
    if record.withdrawn is not None and record.withdrawn not in teams:
        raise KnockoutError(f"duel {record.key}: {record.withdrawn} does not play in this duel")
    if record.armageddon is not None and record.armageddon.white not in teams:
        raise KnockoutError(
            f"duel {record.key}: Armageddon White {record.armageddon.white} is not in the duel"
        )
    if record.ruling is not None:
        if not record.ruling.winners or not set(record.ruling.winners) <= set(teams):
            raise KnockoutError(f"duel {record.key}: a ruling must name one or both teams of the duel")
        if not record.ruling.reason.strip():
            raise KnockoutError(f"duel {record.key}: an exceptional outcome needs a reason")


def _match_records(record: DuelRecord) -> list[MatchRecord]:
    """Final matches as MatchRecords (team_a = the duel's first team); a withdrawal forfeits the rest."""
    out: list[MatchRecord] = []
    matches = list(record.matches) + [DuelMatch()] * (2 - len(record.matches))
    for match_no, match in enumerate(matches, start=1):
        full = 2 * record.boards
        if match.forfeit is not MatchForfeit.NONE:
            gp = {
                MatchForfeit.A_WINS: (full, 0),
                MatchForfeit.B_WINS: (0, full),
                MatchForfeit.DOUBLE: (0, 0),
            }[match.forfeit]
            out.append(MatchRecord(match_no, record.first, record.second, *gp, match.forfeit))
        elif match.is_final:
            a, b = match_game_points(match.results, a_is_first_named=match_no == 1)
            out.append(MatchRecord(match_no, record.first, record.second, a, b))
        elif record.withdrawn is not None:
            forfeit = MatchForfeit.B_WINS if record.withdrawn == record.first else MatchForfeit.A_WINS
            gp = (0, full) if forfeit is MatchForfeit.B_WINS else (full, 0)
            out.append(MatchRecord(match_no, record.first, record.second, *gp, forfeit))
        else:
            break  # match 2 is not counted before match 1 is final
    return out


def _scores_text(matches: Sequence[MatchRecord]) -> str:
    parts = []
    for m in matches:
        note = " by forfeit" if m.forfeit is not MatchForfeit.NONE else ""
        parts.append(f"match {m.round} {format_points(m.gp_a)}–{format_points(m.gp_b)}{note}")
    return ", ".join(parts) if parts else "no match played"


def _forfeited_by(team: str, record: DuelRecord, matches: Sequence[MatchRecord]) -> bool:
    lost = MatchForfeit.B_WINS if team == record.first else MatchForfeit.A_WINS
    return any(m.forfeit in (lost, MatchForfeit.DOUBLE) for m in matches)


def decide_duel(record: DuelRecord, *, scoring: MatchScoring = DEFAULT_SCORING) -> DuelOutcome:
    """Where a duel stands (docs/rules.md §5): match points decide, then Armageddon; then forfeits or
    rulings."""
    _check_record(record)
    matches = _match_records(record)
    mp_a = sum(m.mp(scoring)[0] for m in matches)
    mp_b = sum(m.mp(scoring)[1] for m in matches)
    gp = (sum(m.gp_a for m in matches), sum(m.gp_b for m in matches))
    head = f"{record.first} – {record.second}: {_scores_text(matches)}"

    def outcome(reason: DuelReason, winners: tuple[str, ...], tail: str) -> DuelOutcome:
        return DuelOutcome(record.key, record.first, record.second, reason, winners, (mp_a, mp_b), gp, tail)

    if record.ruling is not None:
        winners = tuple(t for t in (record.first, record.second) if t in record.ruling.winners)
        if len(winners) == 2:
            text = f"{head}. {record.first} and {record.second} are joint winners: {record.ruling.reason}."
            return outcome(DuelReason.JOINT_WINNERS, winners, text)
        text = f"{head}. {winners[0]} goes through by decision: {record.ruling.reason}."
        return outcome(DuelReason.RULING, winners, text)

    if record.withdrawn is not None:
        winner = _other(record, record.withdrawn)
        text = f"{head}. {record.withdrawn} withdrew; {winner} goes through."
        return outcome(DuelReason.WITHDRAWAL, (winner,), text)

    if len(matches) < 2:
        return outcome(DuelReason.PENDING, (), f"{head}; the duel is not decided yet.")

    if mp_a != mp_b:
        winner, loser = (record.first, record.second) if mp_a > mp_b else (record.second, record.first)
        if record.armageddon is not None:
            raise KnockoutError(
                f"duel {record.key}: an Armageddon was recorded but {winner} won on match points"
            )
        high, low = max(mp_a, mp_b), min(mp_a, mp_b)
        if _forfeited_by(loser, record, matches):
            text = f"{head}. {winner} wins {high}–{low} on match points; {loser} forfeited a match."
            return outcome(DuelReason.FORFEIT, (winner,), text)
        text = f"{head}. {winner} wins {high}–{low} on match points."
        return outcome(DuelReason.MATCH_POINTS, (winner,), text)

    level = f"{head}. Level {mp_a}–{mp_b} on match points"
    game = record.armageddon
    if game is None or not game.result.is_final:
        return outcome(DuelReason.ARMAGEDDON_NEEDED, (), f"{level}: an Armageddon game decides.")
    black = _other(record, game.white)
    result = game.result
    if result is GameResult.DOUBLE_FORFEIT:
        text = f"{level}; both Armageddon players forfeited: staff must rule."
        return outcome(DuelReason.NEEDS_RULING, (), text)
    if result in (GameResult.WHITE_WINS, GameResult.WHITE_WINS_FORFEIT):
        winner, how = game.white, "White won"
    elif result is GameResult.DRAW:
        winner, how = black, "drawn with Black"
    else:
        winner, how = black, "Black won"
    if result.is_forfeit:
        loser = _other(record, winner)
        text = f"{level}; {loser} forfeited the Armageddon game, {winner} goes through."
        return outcome(DuelReason.FORFEIT, (winner,), text)
    colours = f"{game.white} White, {black} Black"
    text = f"{level}; Armageddon {result.value} ({colours}): {how}, {winner} goes through."
    return outcome(DuelReason.ARMAGEDDON, (winner,), text)


# ----------------------------------------------------------------------------------------- Armageddon


@dataclass(frozen=True, slots=True)
class ArmageddonClock:
    """The Armageddon's time control in seconds, the event file's ``armageddon`` settings (docs/rules.md §5;
    2020: White 5 min, Black 4 min, no increment). ``describe`` is the one wording shown to people."""

    white_seconds: int = 300
    black_seconds: int = 240
    increment_seconds: int = 0

    def describe(self) -> str:
        """``White 5 min, Black 4 min, no increment`` (or ``..., +2 s``)."""
        increment = f"+{self.increment_seconds} s" if self.increment_seconds else "no increment"
        return f"White {_duration(self.white_seconds)}, Black {_duration(self.black_seconds)}, {increment}"


def _duration(seconds: int) -> str:
    minutes, rest = divmod(seconds, 60)
    parts = ([f"{minutes} min"] if minutes else []) + ([f"{rest} s"] if rest or not minutes else [])
    return " ".join(parts)


class ArmageddonPhase(Enum):
    """Where an Armageddon stands, from the category lot to the result (docs/knockout.md); the one
    vocabulary services, jobs and pages use (the ``armageddon`` row stores it as ``Armageddon.phase``)."""

    DRAW_CATEGORY = "draw_category"
    NOMINATING = "nominating"
    DRAW_CHOOSER = "draw_chooser"  # nominations revealed; lot for who chooses the colour
    CHOOSE_COLOUR = "choose_colour"
    READY = "ready"  # colours known: the arbiter (or the workers) sets up the game
    PLAYING = "playing"  # the game is on the game server
    FINISHED = "finished"


@dataclass(frozen=True, slots=True)
class Nomination:
    team: str
    player: Player | None  # None: the team has nobody to field (no default available) and forfeits
    submitted_at: datetime | None  # None for a default applied at the deadline
    by_default: bool = False


@dataclass(frozen=True, slots=True)
class ArmageddonState:
    """One Armageddon from category lot to result. Holds sealed nominations: show it only via the views."""

    duel_key: str
    teams: tuple[str, str]  # the duel's first and second team
    team_format: TeamFormat
    deadline: datetime  # for nominations
    match2_lineups: tuple[tuple[Player | None, ...], tuple[Player | None, ...]]  # board order, per team
    clock: ArmageddonClock = ArmageddonClock()
    category_lot: Lot | None = None
    sealed: tuple[Nomination | None, Nomination | None] = (None, None)
    revealed: bool = False
    chooser_lot: Lot | None = None
    white: str | None = None  # the team with White
    playing: bool = False  # the game is on the game server
    result: GameResult = GameResult.PENDING

    @property
    def category(self) -> Category | None:
        return Category(self.category_lot.chosen) if self.category_lot else None

    @property
    def chooser(self) -> str | None:
        """The team whose nominee chooses the colour."""
        return self.chooser_lot.chosen if self.chooser_lot else None

    @property
    def phase(self) -> ArmageddonPhase:
        if self.category_lot is None:
            return ArmageddonPhase.DRAW_CATEGORY
        if not self.revealed:
            return ArmageddonPhase.NOMINATING
        if self.result.is_final:
            return ArmageddonPhase.FINISHED
        if self.white is not None:
            return ArmageddonPhase.PLAYING if self.playing else ArmageddonPhase.READY
        if self.chooser_lot is None:
            return ArmageddonPhase.DRAW_CHOOSER
        return ArmageddonPhase.CHOOSE_COLOUR

    def side(self, team: str) -> int:
        if team not in self.teams:
            raise KnockoutError(f"{team} does not play duel {self.duel_key}")
        return self.teams.index(team)


def armageddon_categories(team_format: TeamFormat) -> tuple[Category, ...]:
    """The categories the lot draws from: those the team format has, in board order."""
    return tuple(dict.fromkeys(team_format.board_categories))


def default_nominee(
    team_format: TeamFormat, category: Category, match2_lineup: Sequence[Player | None]
) -> Player | None:
    """The player of the category's first board in match 2 (docs/rules.md §5), or None if that board was
    empty."""
    board = team_format.first_board_of(category)
    if board is None or board > len(match2_lineup):
        return None
    return match2_lineup[board - 1]


def start_armageddon(
    *,
    duel_key: str,
    teams: tuple[str, str],
    team_format: TeamFormat,
    deadline: datetime,
    match2_lineups: tuple[Sequence[Player | None], Sequence[Player | None]],
    clock: ArmageddonClock = ArmageddonClock(),
) -> ArmageddonState:
    """A new Armageddon for a level duel; match-2 lineups give the default nominees."""
    if teams[0] == teams[1]:
        raise KnockoutError(f"duel {duel_key}: a team cannot meet itself")
    lineups = (tuple(match2_lineups[0]), tuple(match2_lineups[1]))
    return ArmageddonState(duel_key, teams, team_format, deadline, lineups, clock)


def draw_category(state: ArmageddonState, seed: bytes) -> ArmageddonState:
    """Draw the Armageddon category by lot among the format's categories (docs/rules.md §5, §7)."""
    if state.phase is not ArmageddonPhase.DRAW_CATEGORY:
        raise KnockoutError(f"duel {state.duel_key}: the Armageddon category is already drawn")
    candidates = [c.value for c in armageddon_categories(state.team_format)]
    lot = run_lot(seed, candidates, purpose=f"Armageddon category, duel {state.duel_key}")
    return replace(state, category_lot=lot)


def _both_in(state: ArmageddonState) -> bool:
    return all(n is not None for n in state.sealed)


def may_reveal(state: ArmageddonState, now: datetime) -> bool:
    """Nominations are unsealed when both are in or the deadline has passed."""
    return state.category_lot is not None and (_both_in(state) or now >= state.deadline)


def _ineligibility(player: Player, category: Category, cutoff_year: int) -> str:
    """Why a player ``is_eligible`` refused cannot play ``category``: every player may play open boards,
    so it is the sex (women, or a girl board for a male player) or else the birth year."""
    if category is Category.WOMEN or (category is Category.GIRL and player.sex is not Sex.FEMALE):
        return f"the {category.value} category is for female players"
    born = f"born {player.birth_year}"
    return f"{born}; the {category.value} category is for players born {cutoff_year} or later"


def nominate(state: ArmageddonState, team: Team, account: str, now: datetime) -> ArmageddonState:
    """A captain's sealed nomination; it may be changed until both are in or the deadline passes."""
    side = state.side(team.name)
    category = state.category
    if category is None:
        raise NominationError(f"duel {state.duel_key}: the Armageddon category has not been drawn yet")
    if state.revealed or _both_in(state):
        raise NominationError(f"duel {state.duel_key}: both nominations are in and revealed")
    if now >= state.deadline:
        raise NominationError(f"duel {state.duel_key}: the nomination deadline has passed")
    player = next((e.player for e in team.roster if e.player.account == account), None)
    if player is None:
        raise NominationError(f"{account!r} is not on the roster of {team.name}")
    if not is_eligible(player, category, state.team_format.cutoff_year):
        why = _ineligibility(player, category, state.team_format.cutoff_year)
        raise NominationError(f"{player.name} cannot play the {category.value} Armageddon: {why}")
    sealed = list(state.sealed)
    sealed[side] = Nomination(team.name, player, now)
    return replace(state, sealed=(sealed[0], sealed[1]))


def reveal(state: ArmageddonState, now: datetime) -> ArmageddonState:
    """Unseal the nominations; a missing one defaults to the category's first board of match 2."""
    if state.revealed:
        return state
    if not may_reveal(state, now):
        raise KnockoutError(
            f"duel {state.duel_key}: nominations stay sealed until both are in or the deadline"
        )
    category = state.category
    assert category is not None  # may_reveal checked it
    filled: list[Nomination] = []
    for side, nomination in enumerate(state.sealed):
        if nomination is None:
            player = default_nominee(state.team_format, category, state.match2_lineups[side])
            nomination = Nomination(state.teams[side], player, None, by_default=True)
        filled.append(nomination)
    revealed = replace(state, sealed=(filled[0], filled[1]), revealed=True)
    missing = [n.team for n in filled if n.player is None]
    if not missing:
        return revealed
    # A team with nobody to field forfeits the game (docs/rules.md §5: a forfeit by one nominee loses).
    if len(missing) == 2:
        return replace(revealed, white=state.teams[0], result=GameResult.DOUBLE_FORFEIT)
    present = state.teams[1 - state.side(missing[0])]
    return replace(revealed, white=present, result=GameResult.WHITE_WINS_FORFEIT)


def draw_chooser(state: ArmageddonState, seed: bytes) -> ArmageddonState:
    """Draw which of the two nominees chooses the colour."""
    if state.phase is not ArmageddonPhase.DRAW_CHOOSER:
        raise KnockoutError(f"duel {state.duel_key}: not the time for the colour lot ({state.phase.value})")
    lot = run_lot(seed, list(state.teams), purpose=f"Armageddon colour choice, duel {state.duel_key}")
    return replace(state, chooser_lot=lot)


def choose_colour(state: ArmageddonState, team: str, colour: Colour) -> ArmageddonState:
    """The drawn team's nominee (through the captain) takes White or Black."""
    if state.phase is not ArmageddonPhase.CHOOSE_COLOUR:
        raise KnockoutError(f"duel {state.duel_key}: not the time to choose a colour ({state.phase.value})")
    if team != state.chooser:
        raise KnockoutError(
            f"{team} did not win the colour lot in duel {state.duel_key}; {state.chooser} chooses"
        )
    if colour not in tuple(Colour):
        raise KnockoutError(f"choose W or B, not {colour!r}")
    white = team if colour == Colour.WHITE else state.teams[1 - state.side(team)]
    return replace(state, white=white)


def record_armageddon(state: ArmageddonState, result: GameResult) -> ArmageddonState:
    """The Armageddon game's result, from White's side."""
    if state.phase not in (ArmageddonPhase.READY, ArmageddonPhase.PLAYING, ArmageddonPhase.FINISHED):
        raise KnockoutError(f"duel {state.duel_key}: colours are not settled yet ({state.phase.value})")
    return replace(state, result=result)


def armageddon_result(state: ArmageddonState) -> ArmageddonResult | None:
    """The game for DuelRecord.armageddon, once colours are known."""
    return ArmageddonResult(state.white, state.result) if state.white is not None else None


@dataclass(frozen=True, slots=True)
class ArmageddonGame:
    """What the arbiter sets up on the game server."""

    white_team: str
    black_team: str
    white: Player
    black: Player
    clock: ArmageddonClock


def armageddon_game(state: ArmageddonState) -> ArmageddonGame:
    if state.white is None or not state.revealed:
        raise KnockoutError(f"duel {state.duel_key}: colours are not settled yet ({state.phase.value})")
    white_side = state.side(state.white)
    white, black = state.sealed[white_side], state.sealed[1 - white_side]
    if white is None or black is None or white.player is None or black.player is None:
        raise KnockoutError(f"duel {state.duel_key}: the Armageddon was decided by forfeit, no game")
    return ArmageddonGame(white.team, black.team, white.player, black.player, state.clock)


@dataclass(frozen=True, slots=True)
class PublicNomination:
    team: str
    player: str
    account: str
    by_default: bool


@dataclass(frozen=True, slots=True)
class ArmageddonView:
    """What may be shown: nominations only once unsealed."""

    duel_key: str
    teams: tuple[str, str]
    phase: ArmageddonPhase
    category: Category | None
    category_lot: Lot | None
    deadline: datetime
    nominations: tuple[PublicNomination | None, ...] | None  # None while sealed
    chooser: str | None
    chooser_lot: Lot | None
    white: str | None
    clock: ArmageddonClock
    result: GameResult
    own_nomination: PublicNomination | None = None  # captain view only: their own sealed choice


def _public(nomination: Nomination | None) -> PublicNomination | None:
    if nomination is None or nomination.player is None:
        return None
    p = nomination.player
    return PublicNomination(nomination.team, p.name, p.account, nomination.by_default)


def public_view(state: ArmageddonState, now: datetime) -> ArmageddonView:
    """The spectators' view: unseals (with defaults) only when both are in or the deadline passed."""
    if not state.revealed and may_reveal(state, now):
        state = reveal(state, now)
    nominations = tuple(_public(n) for n in state.sealed) if state.revealed else None
    return ArmageddonView(
        duel_key=state.duel_key,
        teams=state.teams,
        phase=state.phase,
        category=state.category,
        category_lot=state.category_lot,
        deadline=state.deadline,
        nominations=nominations,
        chooser=state.chooser,
        chooser_lot=state.chooser_lot,
        white=state.white,
        clock=state.clock,
        result=state.result,
    )


def captain_view(state: ArmageddonState, team: str, now: datetime) -> ArmageddonView:
    """The public view plus the captain's own sealed nomination, and nothing about the other team's."""
    own = state.sealed[state.side(team)]
    return replace(public_view(state, now), own_nomination=_public(own))


# -------------------------------------------------------------------------------------------- bracket

ROUND_ORDER = ("Preliminary", "Quarter-final", "Semi-final", "Final")


class BracketError(KnockoutError):
    """A bracket that cannot be resolved (unknown duel, cycle, outcome for other teams)."""


@dataclass(frozen=True, slots=True)
class ResolvedDuel:
    spec: DuelSpec
    first: str | None  # None while the slot is not known yet
    second: str | None
    outcome: DuelOutcome | None

    @property
    def winner(self) -> str | None:
        return self.outcome.winner if self.outcome else None

    @property
    def loser(self) -> str | None:
        return self.outcome.loser if self.outcome else None


def _depends_on(ref: SlotRef) -> str | None:
    return ref.duel if isinstance(ref, WinnerOf | LoserOf) else None


def _topological(duels: Sequence[DuelSpec]) -> list[DuelSpec]:
    by_key: dict[str, DuelSpec] = {}
    for duel in duels:
        if duel.key in by_key:
            raise BracketError(f"duel {duel.key} is defined twice")
        by_key[duel.key] = duel
    done: dict[str, bool] = {}  # False = in progress
    order: list[DuelSpec] = []

    def visit(key: str, path: tuple[str, ...]) -> None:
        if done.get(key) is True:
            return
        if key in done:
            raise BracketError(f"the bracket has a cycle: {' → '.join((*path, key))}")
        if key not in by_key:
            raise BracketError(f"duel {path[-1]} refers to duel {key}, which does not exist")
        done[key] = False
        for ref in (by_key[key].first, by_key[key].second):
            dep = _depends_on(ref)
            if dep is not None:
                visit(dep, (*path, key))
        done[key] = True
        order.append(by_key[key])

    for duel in duels:
        visit(duel.key, ())
    return order


def resolve_bracket(
    duels: Sequence[DuelSpec],
    places: Mapping[PoolPlace, str],
    outcomes: Mapping[str, DuelOutcome],
    *,
    withdrawn: Collection[str] = (),
) -> tuple[ResolvedDuel, ...]:
    """Fill each duel's teams from pool places and earlier outcomes; a withdrawn team's opponent advances.

    Duels come back in the order given. A duel without an outcome whose one known team is in ``withdrawn``
    is decided for its opponent by withdrawal (as soon as the opponent is known).
    """
    resolved: dict[str, ResolvedDuel] = {}

    def team_of(ref: SlotRef) -> str | None:
        if isinstance(ref, PoolPlace):
            return places.get(ref)
        earlier = resolved[ref.duel]
        return earlier.winner if isinstance(ref, WinnerOf) else earlier.loser

    for spec in _topological(duels):
        first, second = team_of(spec.first), team_of(spec.second)
        outcome = outcomes.get(spec.key)
        if outcome is not None and (outcome.first, outcome.second) != (first, second):
            raise BracketError(
                f"duel {spec.key}: the outcome is for {outcome.first} – {outcome.second}, "
                f"but the bracket has {first or '?'} – {second or '?'}"
            )
        if outcome is None and first is not None and second is not None:
            gone = [team for team in (first, second) if team in withdrawn]
            if len(gone) == 1:
                outcome = decide_duel(DuelRecord(spec.key, first, second, withdrawn=gone[0]))
        resolved[spec.key] = ResolvedDuel(spec, first, second, outcome)
    return tuple(resolved[spec.key] for spec in duels)


def final_duel(resolved: Sequence[ResolvedDuel]) -> ResolvedDuel | None:
    """The duel named "Final", else the one duel whose winner no other duel takes."""
    named = [d for d in resolved if d.spec.round_name == "Final"]
    if len(named) == 1:
        return named[0]
    taken = {ref.duel for d in resolved for ref in (d.spec.first, d.spec.second) if isinstance(ref, WinnerOf)}
    last = [d for d in resolved if d.spec.key not in taken]
    return last[0] if len(last) == 1 else None


def champions(resolved: Sequence[ResolvedDuel]) -> tuple[str, ...]:
    """The champion (two teams for joint winners), or () while the final is undecided."""
    final = final_duel(resolved)
    if final is None or final.outcome is None:
        return ()
    return final.outcome.winners


def rounds_for_display(resolved: Sequence[ResolvedDuel]) -> tuple[tuple[str, tuple[ResolvedDuel, ...]], ...]:
    """Duels grouped by round, earliest round first (Preliminary, Quarter-final, Semi-final, Final)."""
    depth: dict[str, int] = {}
    by_key = {d.spec.key: d for d in resolved}

    def depth_of(key: str) -> int:
        if key not in depth:
            spec = by_key[key].spec
            deps = [dep for ref in (spec.first, spec.second) if (dep := _depends_on(ref)) in by_key]
            depth[key] = 1 + max((depth_of(dep) for dep in deps if dep is not None), default=-1)
        return depth[key]

    groups: dict[str, list[ResolvedDuel]] = {}
    for duel in resolved:
        groups.setdefault(duel.spec.round_name, []).append(duel)

    def rank(name: str) -> tuple[int, int]:
        known = ROUND_ORDER.index(name) if name in ROUND_ORDER else len(ROUND_ORDER)
        return min(depth_of(d.spec.key) for d in groups[name]), known

    return tuple((name, tuple(groups[name])) for name in sorted(groups, key=rank))
