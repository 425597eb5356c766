"""The Armageddon before its game: the category and colour lots, the sealed nominations and the colour
choice (docs/rules.md §5, §7; docs/knockout.md)."""

from __future__ import annotations

import secrets
from dataclasses import replace
from datetime import datetime, timedelta

from orchestrator.adapters.repo_teams import domain_player
from orchestrator.adapters.tables import Armageddon, Duel, DuelStatus, Lot, Team
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import utcnow
from orchestrator.domain import knockout as ko
from orchestrator.domain import lots as domain_lots
from orchestrator.domain.knockout import ArmageddonPhase
from orchestrator.domain.scoring import Colour
from orchestrator.domain.teams import Category, RosterEntry, TeamFormat
from orchestrator.domain.teams import Team as DomainTeam
from orchestrator.errors import Conflict, Forbidden, NotFound, ValidationFailed
from orchestrator.services import live
from orchestrator.services.accounts.users import AuthUser, ensure_team_access
from orchestrator.services.playoff._context import StageContext, armageddon_state, load_duel
from orchestrator.services.playoff.armageddon_game import store_game
from orchestrator.services.playoff.commands import advance_bracket
from orchestrator.services.playoff.storage import NOMINATION_MINUTES, LotWhich, lot_purpose
from orchestrator.services.setup.draws import refuse_early_draw
from orchestrator.translation import N_
from orchestrator.translation import gettext as _


def _audit(
    uow: UnitOfWork,
    ctx: StageContext,
    row: Lot | Armageddon,
    actor: str,
    action: str,
    *,
    reason: str | None = None,
    **new: object,
) -> None:
    """The audit entry of a step on one of the stage's Armageddon lots or games, its details as keyword
    arguments, under the stage's event."""
    uow.audit.change(row, action, actor=actor, event_id=ctx.event.id, new=new, reason=reason)


def _announce(uow: UnitOfWork, ctx: StageContext, duel_id: int | None) -> None:
    """The duel's page and the event's bracket show the step."""
    live.announce(uow, f"duel:{duel_id}", duel_id=duel_id)
    live.announce(uow, f"event:{ctx.event.slug}", duel_id=duel_id)


def commit_armageddon_lot(
    uow: UnitOfWork, *, duel_id: int, which: LotWhich, actor: str, seed: bytes | None = None
) -> int:
    """Publish the SHA-256 of a fresh secret seed for the category or colour lot (docs/rules.md §7); returns
    its id.

    ``seed`` is for tests and replays; a staff draw always takes ``secrets.token_bytes(32)``.
    """
    ctx, duel = load_duel(uow, duel_id, lock=True)
    arm = ctx.armageddons.get(duel_id)
    purpose = lot_purpose(duel.key, which)
    if which == "category":
        if duel.status != DuelStatus.ARMAGEDDON.value or arm is not None:
            raise Conflict(
                _("Duel %(duel)s is not waiting for its Armageddon category lot.") % {"duel": duel.key}
            )
        candidates = [c.value for c in ko.armageddon_categories(ctx.fmt)]
    elif which == "colour":
        if arm is None or arm.phase is not ArmageddonPhase.DRAW_CHOOSER:
            raise Conflict(
                _("Duel %(duel)s is not waiting for its colour lot (nominations must be revealed).")
                % {"duel": duel.key}
            )
        candidates = [ctx.name(duel.first_team_id) or "?", ctx.name(duel.second_team_id) or "?"]
    else:
        raise ValidationFailed([_("lot: 'category' or 'colour', not %(which)r") % {"which": which}])
    pending = ctx.lots.get(purpose)
    if pending is not None and pending.seed_hex is None:
        return pending.id or 0  # already committed: the published hash stands
    secret = seed if seed is not None else secrets.token_bytes(32)
    lot = uow.lots.insert(
        Lot(
            event_id=ctx.event.id or 0,
            purpose=purpose,
            commitment=domain_lots.commitment(secret),
            sealed_seed_hex=secret.hex(),
            kind=domain_lots.LotKind.ONE.value,
            candidates=candidates,
            drawn_by=actor,
            committed_at=utcnow(),
        )
    )
    _audit(
        uow, ctx, lot, actor, "lot.commit", purpose=purpose, candidates=candidates, commitment=lot.commitment
    )
    _announce(uow, ctx, duel_id)
    return lot.id or 0


def _seal_out(lot: Lot, drawn: domain_lots.Lot, now: datetime) -> None:
    if drawn.commitment != lot.commitment:
        raise Conflict(_("The lot's seed does not match its published commitment."))  # pragma: no cover
    lot.seed_hex = drawn.seed_hex
    lot.outcome = list(drawn.outcome)
    lot.sealed_seed_hex = None
    lot.revealed_at = now


def reveal_armageddon_lot(
    uow: UnitOfWork,
    *,
    duel_id: int,
    which: LotWhich,
    actor: str,
    now: datetime | None = None,
    nomination_minutes: int = NOMINATION_MINUTES,
) -> str:
    """Draw a committed lot and publish its seed; returns what was drawn (a category or a team name)."""
    now = now or utcnow()
    ctx, duel = load_duel(uow, duel_id, lock=True)
    lot = ctx.lots.get(lot_purpose(duel.key, which))
    if lot is None or lot.seed_hex is not None or lot.sealed_seed_hex is None:
        raise Conflict(
            _("Duel %(duel)s: publish the %(which)s lot's hash first.") % {"duel": duel.key, "which": which}
        )
    refuse_early_draw(uow, lot, now=now)  # the event's lot publication delay (docs/lots.md)
    seed = bytes.fromhex(lot.sealed_seed_hex)
    if which == "category":
        if ctx.armageddons.get(duel_id) is not None:
            raise Conflict(_("Duel %(duel)s: the Armageddon category is already drawn.") % {"duel": duel.key})
        state = ko.draw_category(armageddon_state(uow, ctx, duel), seed)
        assert state.category_lot is not None
        _seal_out(lot, state.category_lot, now)
        uow.lots.add(lot)
        arm = uow.playoff.insert(
            Armageddon(
                duel_id=duel_id,
                category=state.category_lot.chosen,
                category_lot_id=lot.id,
                deadline_at=now + timedelta(minutes=nomination_minutes),
            )
        )
        ctx.armageddons[duel_id] = arm
        drawn = state.category_lot.chosen
    else:
        existing = ctx.armageddons.get(duel_id)
        if existing is None:
            raise Conflict(_("Duel %(duel)s: no Armageddon yet.") % {"duel": duel.key})
        arm = existing
        try:
            state = ko.draw_chooser(armageddon_state(uow, ctx, duel), seed)
        except ko.KnockoutError as error:
            raise Conflict(str(error)) from None
        assert state.chooser_lot is not None
        _seal_out(lot, state.chooser_lot, now)
        uow.lots.add(lot)
        arm.chooser_lot_id = lot.id
        chooser_side = state.side(state.chooser_lot.chosen)
        arm.chooser_player_id = (arm.first_nominee_id, arm.second_nominee_id)[chooser_side]
        uow.playoff.add(arm)
        drawn = state.chooser_lot.chosen
    _audit(uow, ctx, lot, actor, "lot.draw", purpose=lot.purpose, seed_hex=lot.seed_hex, outcome=lot.outcome)
    _announce(uow, ctx, duel_id)
    return drawn


NOMINATIONS_CLOSED = N_("Nominations for this Armageddon are closed.")


def _domain_team(uow: UnitOfWork, team: Team, fmt: TeamFormat) -> DomainTeam:
    entries = []
    for p in uow.teams.players_of_team(team.id or 0):
        entries.append(RosterEntry(domain_player(p), p.main_board, Category(p.category)))
    return DomainTeam(team.name, team.federation, team.seed, tuple(entries))


def nominate(
    uow: UnitOfWork,
    *,
    duel_id: int,
    team_id: int,
    account: str,
    actor: AuthUser,
    now: datetime | None = None,
) -> None:
    """A captain's sealed Armageddon nomination (only that team's captain, or staff).

    The answer never depends on the other team's nomination: closed is closed for both, and a player is
    checked against the nominating team's roster and the drawn category only.
    """
    now = now or utcnow()
    ensure_team_access(actor, team_id)
    ctx, duel = load_duel(uow, duel_id, lock=True)
    if team_id not in (duel.first_team_id, duel.second_team_id):
        raise Forbidden(_("Your team does not play this duel."))
    arm = ctx.armageddons.get(duel_id)
    if arm is None:
        raise Conflict(_("The Armageddon category has not been drawn yet."))
    if arm.phase is not ArmageddonPhase.NOMINATING or (arm.deadline_at and now >= arm.deadline_at):
        raise Conflict(_(NOMINATIONS_CLOSED))
    team = ctx.teams[team_id]
    state = armageddon_state(uow, ctx, duel)
    # Hide the other side's nomination from the domain check too, so no message can depend on it.
    side = state.side(team.name)
    own_only = list(state.sealed)
    own_only[1 - side] = None
    state = replace(state, sealed=(own_only[0], own_only[1]))
    try:
        state = ko.nominate(state, _domain_team(uow, team, ctx.fmt), account.strip().lower(), now)
    except ko.NominationError as error:
        raise ValidationFailed([str(error)]) from None
    player = next(p for p in uow.teams.players_of_team(team_id) if p.account == account.strip().lower())
    if side == 0:
        arm.first_nominee_id, arm.first_submitted_at = player.id, now
    else:
        arm.second_nominee_id, arm.second_submitted_at = player.id, now
    uow.playoff.add(arm)
    # The audit says that a nomination arrived, not whom.
    _audit(uow, ctx, arm, actor.username, "armageddon.nominate", team_id=team_id)
    uow.flush()
    if arm.first_nominee_id is not None and arm.second_nominee_id is not None:
        unseal(uow, ctx, duel, now=now, actor="system")


def unseal(uow: UnitOfWork, ctx: StageContext, duel: Duel, *, now: datetime, actor: str) -> None:
    arm = ctx.armageddons[duel.id or 0]
    state = ko.reveal(armageddon_state(uow, ctx, duel), now)
    accounts = {}
    for side, nomination in enumerate(state.sealed):
        assert nomination is not None
        team_id = (duel.first_team_id, duel.second_team_id)[side]
        player_id = None
        if nomination.player is not None and team_id is not None:
            player_id = next(
                (p.id for p in uow.teams.players_of_team(team_id) if p.account == nomination.player.account),
                None,
            )
        if side == 0:
            arm.first_nominee_id = player_id
        else:
            arm.second_nominee_id = player_id
        accounts[nomination.team] = {
            "player_id": player_id,
            "by_default": nomination.by_default,
        }
    arm.enter(ArmageddonPhase.DRAW_CHOOSER)
    uow.playoff.add(arm)
    _audit(uow, ctx, arm, actor, "armageddon.reveal", nominations=accounts)
    uow.flush()
    if state.white is not None:  # a team had nobody to field: the game is decided by forfeit
        arm.enter(ArmageddonPhase.FINISHED)
        uow.playoff.add(arm)
        store_game(uow, ctx, duel, state)
        advance_bracket(uow, stage_id=duel.stage_id, actor=actor, now=now)
    _announce(uow, ctx, duel.id)


def reveal_nominations(uow: UnitOfWork, *, duel_id: int, actor: str, now: datetime | None = None) -> None:
    """Unseal at the deadline (missing nominations become the defaults); refused before it."""
    now = now or utcnow()
    ctx, duel = load_duel(uow, duel_id, lock=True)
    arm = ctx.armageddons.get(duel_id)
    if arm is None or arm.phase is not ArmageddonPhase.NOMINATING:
        raise Conflict(_("Duel %(duel)s: nothing to reveal.") % {"duel": duel.key})
    both = arm.first_nominee_id is not None and arm.second_nominee_id is not None
    if not both and (arm.deadline_at is None or now < arm.deadline_at):
        raise Conflict(
            _("Duel %(duel)s: nominations stay sealed until both are in or the deadline passes.")
            % {"duel": duel.key}
        )
    unseal(uow, ctx, duel, now=now, actor=actor)


def choose_colour(uow: UnitOfWork, *, duel_id: int, team_id: int, colour: str, actor: AuthUser) -> None:
    """The colour-lot winner's captain (or staff for them) takes White or Black for their nominee."""
    ensure_team_access(actor, team_id)
    ctx, duel = load_duel(uow, duel_id, lock=True)
    arm = ctx.armageddons.get(duel_id)
    if arm is None or team_id not in (duel.first_team_id, duel.second_team_id):
        raise NotFound(_("duel %(duel)s has no Armageddon for this team") % {"duel": duel_id})
    code = {"w": "W", "white": "W", "b": "B", "black": "B"}.get(colour.strip().lower())
    if code is None:
        raise ValidationFailed([_("colour: choose White or Black")])
    state = armageddon_state(uow, ctx, duel)
    team = ctx.teams[team_id].name
    if state.phase is ArmageddonPhase.CHOOSE_COLOUR and state.chooser != team:
        raise Forbidden(
            _("%(chooser)s won the colour lot; their nominee chooses.") % {"chooser": state.chooser}
        )
    _settle_colour(uow, ctx, duel, arm, state, team_id=team_id, code=code, actor=actor.username)


def _settle_colour(
    uow: UnitOfWork,
    ctx: StageContext,
    duel: Duel,
    arm: Armageddon,
    state: ko.ArmageddonState,
    *,
    team_id: int,
    code: str,
    actor: str,
    reason: str | None = None,
) -> None:
    team = ctx.teams[team_id].name
    try:
        state = ko.choose_colour(state, team, Colour(code))
    except ko.KnockoutError as error:
        raise Conflict(str(error)) from None
    arm.colour = Colour(code).word
    arm.enter(ArmageddonPhase.READY)
    uow.playoff.add(arm)
    store_game(uow, ctx, duel, state)
    _audit(
        uow,
        ctx,
        arm,
        actor,
        "armageddon.colour",
        reason=reason,
        team_id=team_id,
        colour=arm.colour,
        white=state.white,
    )
    _announce(uow, ctx, duel.id)


def apply_default_colour(uow: UnitOfWork, *, duel_id: int, colour: str, actor: str) -> bool:
    """For the tick: the colour-lot winner did not choose in time, so their nominee gets ``colour``.

    Returns False (and changes nothing) when the duel is not waiting for a colour choice.
    """
    try:
        code = Colour.of_word(colour.strip().lower())
    except ValueError:
        raise ValidationFailed([_("colour: white or black")]) from None
    ctx, duel = load_duel(uow, duel_id, lock=True)
    arm = ctx.armageddons.get(duel_id)
    if arm is None or arm.phase is not ArmageddonPhase.CHOOSE_COLOUR or arm.colour is not None:
        return False
    state = armageddon_state(uow, ctx, duel)
    if state.phase is not ArmageddonPhase.CHOOSE_COLOUR or state.chooser is None:
        return False
    team_id = ctx.team_id(state.chooser)
    assert team_id is not None
    reason = f"{state.chooser} did not choose a colour in time: the default ({colour}) applies"
    _settle_colour(uow, ctx, duel, arm, state, team_id=team_id, code=code, actor=actor, reason=reason)
    return True
