"""The knockout stage loaded once per use case, and what every play-off module rebuilds from it: duel
records for the domain (docs/knockout.md) and the Armageddon's domain state (docs/rules.md §5)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from orchestrator.adapters.repo_teams import domain_player
from orchestrator.adapters.tables import (
    Armageddon,
    Board,
    Duel,
    Event,
    Lot,
    Match,
    Player,
    Stage,
    StageKind,
    Team,
)
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import utcnow
from orchestrator.domain import knockout as ko
from orchestrator.domain import lots as domain_lots
from orchestrator.domain.bracket import DuelSpec
from orchestrator.domain.event import EventDefinition
from orchestrator.domain.knockout import ArmageddonPhase
from orchestrator.domain.scoring import GameResult, MatchForfeit
from orchestrator.domain.teams import TeamFormat
from orchestrator.errors import Conflict, NotFound
from orchestrator.services.playoff.storage import ARMAGEDDON_LEG, NOMINATION_MINUTES, lot_purpose
from orchestrator.services.teams.lineups import definition_of
from orchestrator.translation import gettext as _


@dataclass
class StageContext:
    """Everything about one knockout stage (or one duel of it: ``load_duel``), loaded once per use case."""

    event: Event
    stage: Stage
    definition: EventDefinition
    specs: tuple[DuelSpec, ...]
    duels: dict[str, Duel]  # by key
    teams: dict[int, Team]
    matches: dict[int, list[Match]]  # by duel id
    boards: dict[int, list[Board]]  # by match id
    armageddons: dict[int, Armageddon]  # by duel id
    lots: dict[str, Lot]  # by purpose
    open_appeals: set[int]  # match ids
    players: dict[int, Player] = field(default_factory=dict)

    @property
    def fmt(self) -> TeamFormat:
        return self.definition.team_format

    def name(self, team_id: int | None) -> str | None:
        return self.teams[team_id].name if team_id is not None and team_id in self.teams else None

    def team_id(self, name: str | None) -> int | None:
        for team_id, team in self.teams.items():
            if team.name == name:
                return team_id
        return None

    def match(self, duel: Duel, leg: int) -> Match | None:
        return next((m for m in self.matches.get(duel.id or 0, []) if m.leg == leg), None)


def load_stage(
    uow: UnitOfWork, stage_id: int, *, all_teams: bool = False, lots: bool = True, only: Duel | None = None
) -> StageContext:
    """The stage's bracket; ``teams`` holds the teams the duels name (every team of the event with
    ``all_teams``, for building the bracket from the standings); ``lots`` empty unless asked for.

    With ``only``, the context holds that duel alone (its matches, boards, Armageddon, teams and lots):
    what one duel's use case reads (``load_duel``), not the whole stage's rows; ``specs`` stays the whole
    bracket's."""
    event, stage = uow.events.event_and_stage(stage_id)
    if stage.kind != StageKind.KNOCKOUT.value:
        raise Conflict(_("%(stage)s is not a knockout stage.") % {"stage": stage.name})
    definition = definition_of(event)
    if definition is None or not definition.bracket:
        raise Conflict(
            _("%(event)s has no valid event file with a bracket: the play-off cannot be built.")
            % {"event": event.name}
        )
    rows = uow.playoff.bracket_rows(stage_id, None if only is None else only.id or 0)
    duels = {d.key: d for d in rows.duels}
    purposes = [
        p
        for key in ([spec.key for spec in definition.bracket] if only is None else [only.key])
        for p in (lot_purpose(key, "category"), lot_purpose(key, "colour"))
    ]
    return StageContext(
        event=event,
        stage=stage,
        definition=definition,
        specs=definition.bracket,
        duels=duels,
        teams=({t.id or 0: t for t in uow.teams.teams_of_event(event.id or 0)} if all_teams else rows.teams),
        matches=rows.matches,
        boards=rows.boards,
        armageddons=rows.armageddons,
        lots=uow.lots.lots_with_purposes(event.id or 0, purposes) if lots else {},
        open_appeals=rows.open_appeals,
    )


def load_duel(uow: UnitOfWork, duel_id: int, *, lock: bool = False) -> tuple[StageContext, Duel]:
    duel = uow.locks.lock_duel(duel_id) if lock else uow.playoff.get(Duel, duel_id)
    if duel is None:
        raise NotFound(_("duel %(duel)s does not exist") % {"duel": duel_id})
    ctx = load_stage(uow, duel.stage_id, only=duel)  # the duel's rows, not the whole bracket's
    return ctx, ctx.duels[duel.key]


def _flip(forfeit: MatchForfeit) -> MatchForfeit:
    return {MatchForfeit.A_WINS: MatchForfeit.B_WINS, MatchForfeit.B_WINS: MatchForfeit.A_WINS}.get(
        forfeit, forfeit
    )


def _duel_match(ctx: StageContext, duel: Duel, match: Match | None) -> ko.DuelMatch:
    if match is None:
        return ko.DuelMatch()
    forfeit = MatchForfeit(match.forfeit)
    if forfeit is not MatchForfeit.NONE:
        # Match codes are from the match's first team; the duel's from its own first team.
        return ko.DuelMatch(forfeit=forfeit if match.first_team_id == duel.first_team_id else _flip(forfeit))
    boards = ctx.boards.get(match.id or 0, [])
    if len(boards) != ctx.fmt.boards:
        return ko.DuelMatch()
    return ko.DuelMatch(tuple(GameResult(b.result) for b in boards))


def stored_game(ctx: StageContext, duel: Duel) -> tuple[Match, Board] | None:
    match = ctx.match(duel, ARMAGEDDON_LEG)
    if match is None:
        return None
    boards = ctx.boards.get(match.id or 0, [])
    return (match, boards[0]) if boards else None


def duel_record(ctx: StageContext, duel: Duel) -> ko.DuelRecord:
    first, second = ctx.name(duel.first_team_id), ctx.name(duel.second_team_id)
    assert first is not None and second is not None
    matches = (_duel_match(ctx, duel, ctx.match(duel, 1)), _duel_match(ctx, duel, ctx.match(duel, 2)))
    game = stored_game(ctx, duel)
    armageddon = None
    if game is not None:
        armageddon = ko.ArmageddonResult(ctx.name(game[0].first_team_id) or "?", GameResult(game[1].result))
    outcome = duel.outcome or {}
    withdrawn = ctx.name(outcome.get("withdrawn_team_id"))
    ruling = None
    if outcome.get("ruling"):
        names = tuple(n for n in (ctx.name(t) for t in outcome["ruling"]["winner_team_ids"]) if n)
        ruling = ko.Ruling(names, outcome["ruling"]["reason"])
    return ko.DuelRecord(
        duel.key, first, second, matches, armageddon, withdrawn, ruling, boards=ctx.fmt.boards
    )


def is_provisional(ctx: StageContext, duel: Duel) -> bool:
    return any((m.id or 0) in ctx.open_appeals for m in ctx.matches.get(duel.id or 0, []))


def decide(ctx: StageContext, duel: Duel) -> ko.DuelOutcome:
    try:
        return ko.decide_duel(duel_record(ctx, duel), scoring=ctx.definition.match_scoring)
    except ko.KnockoutError as error:
        raise Conflict(str(error)) from None


def _match2_lineups(uow: UnitOfWork, ctx: StageContext, duel: Duel) -> tuple[list[Any], list[Any]]:
    """Each team's players of match 2 in board order (None for an empty board)."""
    match = ctx.match(duel, 2)
    sides: tuple[list[Any], list[Any]] = ([None] * ctx.fmt.boards, [None] * ctx.fmt.boards)
    if match is None:
        return sides
    boards = ctx.boards.get(match.id or 0, [])
    players = load_players(uow, ctx, (p for b in boards for p in (b.white_player_id, b.black_player_id)))
    for board in boards:
        # The match's first team has White on odd boards.
        first_player = board.white_player_id if board.board_no % 2 == 1 else board.black_player_id
        second_player = board.black_player_id if board.board_no % 2 == 1 else board.white_player_id
        for team_id, player_id in (
            (match.first_team_id, first_player),
            (match.second_team_id, second_player),
        ):
            side = 0 if team_id == duel.first_team_id else 1
            if player_id is not None and player_id in players and board.board_no <= ctx.fmt.boards:
                sides[side][board.board_no - 1] = domain_player(players[player_id])
    return sides


def load_players(uow: UnitOfWork, ctx: StageContext, player_ids: Iterable[int | None]) -> dict[int, Player]:
    """Players by id, read once per context (``bracket_view`` reads every Armageddon's in one query)."""
    wanted = {p for p in player_ids if p is not None}
    missing = wanted - ctx.players.keys()
    if missing:
        ctx.players.update(uow.teams.players_by_id(missing))
    return {p: ctx.players[p] for p in wanted if p in ctx.players}


def _domain_lot(lot: Lot | None) -> domain_lots.Lot | None:
    if lot is None or lot.seed_hex is None or lot.outcome is None:
        return None
    return domain_lots.Lot(
        lot.purpose,
        domain_lots.LotKind(lot.kind),
        tuple(str(c) for c in lot.candidates),
        lot.commitment,
        lot.seed_hex,
        tuple(str(c) for c in lot.outcome),
    )


def armageddon_state(uow: UnitOfWork, ctx: StageContext, duel: Duel) -> ko.ArmageddonState:
    """The domain state of a duel's Armageddon, rebuilt from the rows (holds sealed data: never show it)."""
    first, second = ctx.name(duel.first_team_id), ctx.name(duel.second_team_id)
    if first is None or second is None:
        raise Conflict(_("Duel %(duel)s does not have both teams yet.") % {"duel": duel.key})
    arm = ctx.armageddons.get(duel.id or 0)
    lineups = _match2_lineups(uow, ctx, duel)
    deadline = (
        arm.deadline_at if arm and arm.deadline_at else utcnow() + timedelta(minutes=NOMINATION_MINUTES)
    )
    state = ko.start_armageddon(
        duel_key=duel.key,
        teams=(first, second),
        team_format=ctx.fmt,
        deadline=deadline,
        match2_lineups=(lineups[0], lineups[1]),
        clock=ctx.definition.armageddon,
    )
    if arm is None:
        return state
    revealed = arm.phase is not ArmageddonPhase.NOMINATING
    players = load_players(uow, ctx, [arm.first_nominee_id, arm.second_nominee_id])
    sealed: list[ko.Nomination | None] = []
    for team, nominee, at in (
        (first, arm.first_nominee_id, arm.first_submitted_at),
        (second, arm.second_nominee_id, arm.second_submitted_at),
    ):
        if nominee is not None and nominee in players:
            sealed.append(ko.Nomination(team, domain_player(players[nominee]), at, by_default=at is None))
        elif revealed:
            sealed.append(ko.Nomination(team, None, None, by_default=True))
        else:
            sealed.append(None)
    game = stored_game(ctx, duel)
    white = ctx.name(game[0].first_team_id) if game else None
    result = GameResult(game[1].result) if game else GameResult.PENDING
    return ko.ArmageddonState(
        duel_key=duel.key,
        teams=(first, second),
        team_format=ctx.fmt,
        deadline=deadline,
        match2_lineups=state.match2_lineups,
        clock=state.clock,
        category_lot=_domain_lot(uow.lots.get(Lot, arm.category_lot_id) if arm.category_lot_id else None),
        sealed=(sealed[0], sealed[1]),
        revealed=revealed,
        chooser_lot=_domain_lot(uow.lots.get(Lot, arm.chooser_lot_id) if arm.chooser_lot_id else None),
        white=white,
        playing=arm.phase is ArmageddonPhase.PLAYING,
        result=result,
    )
