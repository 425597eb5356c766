"""The bracket and duel read model for pages and the JSON API (docs/knockout.md); sealed nominations stay
sealed (the domain's ``public_view`` / ``captain_view``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from orchestrator.adapters.tables import Duel, DuelStatus, EventStatus, Lot, Match, Round, Stage
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import utcnow
from orchestrator.domain import knockout as ko
from orchestrator.domain import lots as domain_lots
from orchestrator.domain.bracket import DuelSpec
from orchestrator.domain.event import slot_label
from orchestrator.domain.scoring import GameResult, MatchForfeit, format_points
from orchestrator.errors import NotFound
from orchestrator.services.playoff._context import (
    StageContext,
    armageddon_state,
    decide,
    duel_record,
    is_provisional,
    load_players,
    load_stage,
    stored_game,
)
from orchestrator.services.playoff.sentences import duel_sentence
from orchestrator.services.playoff.storage import ARMAGEDDON_LEG, lot_purpose
from orchestrator.translation import gettext as _


@dataclass(frozen=True, slots=True)
class LotInfo:
    purpose: str
    candidates: tuple[str, ...]
    commitment: str
    seed_hex: str | None
    outcome: str | None
    committed_at: datetime
    revealed_at: datetime | None

    def as_json(self) -> dict[str, Any]:
        return {
            "purpose": self.purpose,
            "candidates": list(self.candidates),
            "commitment": self.commitment,
            "seed_hex": self.seed_hex,
            "outcome": self.outcome,
            "committed_at": self.committed_at.isoformat(),
            "revealed_at": self.revealed_at.isoformat() if self.revealed_at else None,
            "procedure": domain_lots.PROCEDURE,
        }


@dataclass(frozen=True, slots=True)
class NomineeInfo:
    team: str
    player: str
    by_default: bool


@dataclass(frozen=True, slots=True)
class ArmageddonInfo:
    phase: str
    category: str | None
    category_lot: LotInfo | None
    deadline: datetime | None
    sealed: bool
    nominations_in: int  # how many are in while sealed (never which player)
    nominees: tuple[NomineeInfo, ...]  # empty while sealed
    colour_lot: LotInfo | None
    chooser: str | None
    white: str | None
    black: str | None
    white_player: str | None
    black_player: str | None
    clock: str  # ArmageddonClock.describe(): "White 5 min, Black 4 min, no increment"
    result: str | None
    game_url: str | None
    own_nomination: str | None = None  # captain view only

    def as_json(self) -> dict[str, Any]:
        return {
            "phase": self.phase,
            "category": self.category,
            "category_lot": self.category_lot.as_json() if self.category_lot else None,
            "nomination_deadline": self.deadline.isoformat() if self.deadline else None,
            "sealed": self.sealed,
            "nominations_in": self.nominations_in,
            "nominees": [
                {"team": n.team, "player": n.player, "by_default": n.by_default} for n in self.nominees
            ],
            "colour_lot": self.colour_lot.as_json() if self.colour_lot else None,
            "chooser": self.chooser,
            "white": self.white,
            "black": self.black,
            "white_player": self.white_player,
            "black_player": self.black_player,
            "clock": self.clock,
            "result": self.result,
            "game_url": self.game_url,
        }


@dataclass(frozen=True, slots=True)
class MatchInfo:
    leg: int
    match_id: int
    first_gp: str | None  # the duel's first team's game points, None before any result
    second_gp: str | None
    first_colour_odd: str  # "White"/"Black": the duel's first team on odd boards
    forfeit: str | None
    finished: bool
    starts_at: datetime | None


@dataclass(frozen=True, slots=True)
class DuelInfo:
    id: int
    key: str
    round_name: str
    first: str  # team or slot label
    second: str
    first_known: bool
    second_known: bool
    status: str
    matches: tuple[MatchInfo, ...]
    mp: tuple[int, int] | None
    reason: str | None
    winners: tuple[str, ...]
    provisional: bool
    sentence: str | None
    armageddon: ArmageddonInfo | None
    pending_lot: LotInfo | None  # a committed lot waiting for its draw

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "key": self.key,
            "round": self.round_name,
            "first": self.first if self.first_known else None,
            "second": self.second if self.second_known else None,
            "first_slot": None if self.first_known else self.first,
            "second_slot": None if self.second_known else self.second,
            "status": self.status,
            "matches": [
                {
                    "leg": m.leg,
                    "match_id": m.match_id,
                    "first_gp": m.first_gp,
                    "second_gp": m.second_gp,
                    "forfeit": m.forfeit,
                    "finished": m.finished,
                    "starts_at": m.starts_at.isoformat() if m.starts_at else None,
                }
                for m in self.matches
            ],
            "match_points": list(self.mp) if self.mp else None,
            "reason": self.reason,
            "winners": list(self.winners),
            "provisional": self.provisional,
            "summary": self.sentence,
            "armageddon": self.armageddon.as_json() if self.armageddon else None,
            "pending_lot": self.pending_lot.as_json() if self.pending_lot else None,
        }


@dataclass(frozen=True, slots=True)
class BracketView:
    event_slug: str
    event_name: str
    stage_id: int
    stage_name: str
    rounds: tuple[tuple[str, tuple[DuelInfo, ...]], ...]
    champions: tuple[str, ...]
    built: bool
    armageddon_clock: str  # the event's Armageddon clocks, ArmageddonClock.describe()

    def duels(self) -> list[DuelInfo]:
        return [d for _round, duels in self.rounds for d in duels]

    def as_json(self) -> dict[str, Any]:
        return {
            "event": {"slug": self.event_slug, "name": self.event_name},
            "stage": {"id": self.stage_id, "name": self.stage_name},
            "built": self.built,
            "champions": list(self.champions),
            "rounds": [{"name": name, "duels": [d.as_json() for d in duels]} for name, duels in self.rounds],
        }


def lot_info(lot: Lot | None) -> LotInfo | None:
    if lot is None:
        return None
    return LotInfo(
        purpose=lot.purpose,
        candidates=tuple(str(c) for c in lot.candidates),
        commitment=lot.commitment,
        seed_hex=lot.seed_hex,
        outcome=str(lot.outcome[0]) if lot.outcome else None,
        committed_at=lot.committed_at,
        revealed_at=lot.revealed_at,
    )


def armageddon_info(
    uow: UnitOfWork, ctx: StageContext, duel: Duel, now: datetime, viewer_team: int | None = None
) -> ArmageddonInfo | None:
    arm = ctx.armageddons.get(duel.id or 0)
    if arm is None:
        return None
    state = armageddon_state(uow, ctx, duel)
    if viewer_team is not None and ctx.name(viewer_team) in state.teams:
        view = ko.captain_view(state, ctx.name(viewer_team) or "", now)
    else:
        view = ko.public_view(state, now)
    nominees: tuple[NomineeInfo, ...] = ()
    if view.nominations is not None:
        nominees = tuple(
            NomineeInfo(team, n.player if n else "nobody (forfeit)", n.by_default if n else True)
            for team, n in zip(view.teams, view.nominations, strict=True)
        )
    game = stored_game(ctx, duel)
    white = view.white
    black = None if white is None else (view.teams[1] if white == view.teams[0] else view.teams[0])
    players = {n.team: n.player for n in nominees}
    return ArmageddonInfo(
        phase=view.phase.value,
        category=view.category.value if view.category else None,
        category_lot=lot_info(uow.lots.get(Lot, arm.category_lot_id) if arm.category_lot_id else None),
        deadline=view.deadline,
        sealed=view.nominations is None,
        nominations_in=sum(1 for n in state.sealed if n is not None) if view.nominations is None else 2,
        nominees=nominees,
        colour_lot=lot_info(uow.lots.get(Lot, arm.chooser_lot_id) if arm.chooser_lot_id else None),
        chooser=view.chooser,
        white=white,
        black=black,
        white_player=players.get(white) if white else None,
        black_player=players.get(black) if black else None,
        clock=clock_text(view.clock),
        result=view.result.value if view.result.is_final else None,
        game_url=game[1].game_url if game else None,
        own_nomination=view.own_nomination.player if view.own_nomination else None,
    )


def _match_info(ctx: StageContext, duel: Duel, match: Match, starts_at: datetime | None) -> MatchInfo:
    """A duel match's score from the duel's first team's side (match 2 names the other team first)."""
    boards = ctx.boards.get(match.id or 0, [])
    forfeit = MatchForfeit(match.forfeit)
    duel_first_is_match_first = match.first_team_id == duel.first_team_id
    a = b = 0
    any_result = forfeit is not MatchForfeit.NONE
    if forfeit is not MatchForfeit.NONE:
        full = 2 * ctx.fmt.boards
        a, b = {MatchForfeit.A_WINS: (full, 0), MatchForfeit.B_WINS: (0, full)}.get(forfeit, (0, 0))
        if not duel_first_is_match_first:
            a, b = b, a
    else:
        for board in boards:
            result = GameResult(board.result)
            if result.is_final:
                any_result = True
                first_white = (board.board_no % 2 == 1) == duel_first_is_match_first
                a += result.white_half if first_white else result.black_half
                b += result.black_half if first_white else result.white_half
    finished = forfeit is not MatchForfeit.NONE or (
        bool(boards) and all(GameResult(x.result).is_final for x in boards)
    )
    return MatchInfo(
        leg=match.leg or 0,
        match_id=match.id or 0,
        first_gp=format_points(a) if any_result else None,
        second_gp=format_points(b) if any_result else None,
        first_colour_odd="White" if duel_first_is_match_first else "Black",
        forfeit=forfeit.value or None,
        finished=finished,
        starts_at=starts_at,
    )


def _duel_info(
    uow: UnitOfWork,
    ctx: StageContext,
    spec: DuelSpec,
    now: datetime,
    viewer_team: int | None,
    rounds: dict[int | None, Round],
) -> DuelInfo:
    duel = ctx.duels.get(spec.key)
    first_label, second_label = (
        slot_label(ctx.definition, spec.first),
        slot_label(ctx.definition, spec.second),
    )
    if duel is None:
        return DuelInfo(
            0,
            spec.key,
            spec.round_name,
            first_label,
            second_label,
            False,
            False,
            DuelStatus.WAITING.value,
            (),
            None,
            None,
            (),
            False,
            None,
            None,
            None,
        )
    first, second = ctx.name(duel.first_team_id), ctx.name(duel.second_team_id)
    outcome = decide(ctx, duel) if first and second else None
    matches = []
    for match in ctx.matches.get(duel.id or 0, []):
        if match.leg == ARMAGEDDON_LEG:
            continue
        rnd = rounds.get(match.round_id)
        matches.append(_match_info(ctx, duel, match, rnd.scheduled_at if rnd else None))
    pending = None
    for which in ("category", "colour"):
        lot = ctx.lots.get(lot_purpose(spec.key, which))
        if lot is not None and lot.seed_hex is None:
            pending = lot_info(lot)
    provisional = is_provisional(ctx, duel) and bool(outcome and outcome.is_decided)
    return DuelInfo(
        id=duel.id or 0,
        key=duel.key,
        round_name=duel.round_name,
        first=first or first_label,
        second=second or second_label,
        first_known=first is not None,
        second_known=second is not None,
        status=duel.status,
        matches=tuple(matches),
        mp=outcome.mp if outcome else None,
        reason=outcome.reason.value if outcome else None,
        winners=outcome.winners if outcome else (),
        provisional=provisional,
        sentence=duel_sentence(duel_record(ctx, duel), outcome) if outcome else None,
        armageddon=armageddon_info(uow, ctx, duel, now, viewer_team),
        pending_lot=pending,
    )


def knockout_stage_of(uow: UnitOfWork, *, slug: str, public: bool = True) -> Stage:
    event = uow.events.get_by_slug(slug)
    if event is None or (public and event.status == EventStatus.DRAFT.value):
        raise NotFound(_("This event does not exist."))
    stages = uow.events.knockout_stages(event.id or 0)
    if not stages:
        raise NotFound(_("%(event)s has no play-off.") % {"event": event.name})
    return stages[0]


def bracket_view(
    uow: UnitOfWork, *, stage_id: int, now: datetime | None = None, viewer_team: int | None = None
) -> BracketView:
    """The whole bracket for pages and the API; sealed nominations stay sealed (domain public_view)."""
    now = now or utcnow()
    ctx = load_stage(uow, stage_id)
    stage_rounds = {r.id: r for r in uow.rounds.rounds_of_stage(stage_id)}
    # Every Armageddon's players (match 2's boards and the nominees) in one query.
    with_armageddon = [d for d in ctx.duels.values() if (d.id or 0) in ctx.armageddons]
    match2 = [m for d in with_armageddon if (m := ctx.match(d, 2)) is not None]
    load_players(
        uow,
        ctx,
        [
            *(
                p
                for m in match2
                for b in ctx.boards.get(m.id or 0, [])
                for p in (b.white_player_id, b.black_player_id)
            ),
            *(p for a in ctx.armageddons.values() for p in (a.first_nominee_id, a.second_nominee_id)),
        ],
    )
    duels = [_duel_info(uow, ctx, spec, now, viewer_team, stage_rounds) for spec in ctx.specs]
    by_key = {d.key: d for d in duels}
    resolved = ko.resolve_bracket(ctx.specs, {}, {})
    rounds = tuple(
        (name, tuple(by_key[d.spec.key] for d in group)) for name, group in ko.rounds_for_display(resolved)
    )
    final = ko.final_duel(resolved)
    champions: tuple[str, ...] = ()
    if final is not None:
        info = by_key[final.spec.key]
        if info.status == DuelStatus.DECIDED.value:
            champions = info.winners
    return BracketView(
        event_slug=ctx.event.slug,
        event_name=ctx.event.name,
        stage_id=stage_id,
        stage_name=ctx.stage.name,
        rounds=rounds,
        champions=champions,
        built=bool(ctx.duels),
        armageddon_clock=clock_text(ctx.definition.armageddon),
    )


def duel_stage_id(uow: UnitOfWork, *, duel_id: int) -> int:
    duel = uow.playoff.get(Duel, duel_id)
    if duel is None:
        raise NotFound(_("duel %(duel)s does not exist") % {"duel": duel_id})
    return duel.stage_id


def duel_topics(uow: UnitOfWork, *, stage_id: int) -> list[str]:
    """Live-update topics of a bracket page: the event's and each duel's."""
    event, _stage = uow.events.event_and_stage(stage_id)
    return [f"event:{event.slug}", f"stage:{stage_id}"] + [
        f"duel:{d.id}" for d in uow.playoff.duels_of_stage(stage_id)
    ]


def stage_of_match(uow: UnitOfWork, *, match_id: int) -> int:
    match = uow.rounds.get(Match, match_id)
    if match is None:
        raise NotFound(_("match %(match)s does not exist") % {"match": match_id})
    return uow.rounds.get_or_raise(Round, match.round_id).stage_id


def clock_text(clock: ko.ArmageddonClock) -> str:
    """The Armageddon clocks in the reader's language (``ArmageddonClock.describe`` says them in English
    for the command line): "White 5 min, Black 4 min, no increment"."""
    words = {"white": _duration_text(clock.white_seconds), "black": _duration_text(clock.black_seconds)}
    if clock.increment_seconds:
        return _("White %(white)s, Black %(black)s, +%(increment)s s") % {
            **words,
            "increment": clock.increment_seconds,
        }
    return _("White %(white)s, Black %(black)s, no increment") % words


def _duration_text(seconds: int) -> str:
    minutes, rest = divmod(seconds, 60)
    if minutes and rest:
        return _("%(minutes)s min %(seconds)s s") % {"minutes": minutes, "seconds": rest}
    if minutes:
        return _("%(minutes)s min") % {"minutes": minutes}
    return _("%(seconds)s s") % {"seconds": rest}
