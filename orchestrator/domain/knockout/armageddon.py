"""The Armageddon tie-break of a level duel: category lot, nominations, colours, views (docs/rules.md §5)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from enum import Enum

from orchestrator.domain.knockout.duels import ArmageddonResult, KnockoutError
from orchestrator.domain.lots import Lot, run_lot
from orchestrator.domain.scoring import (
    Colour,
    GameResult,
)
from orchestrator.domain.teams import Category, Player, Sex, Team, TeamFormat, is_eligible


class NominationError(KnockoutError):
    """An Armageddon nomination that cannot be accepted."""


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
