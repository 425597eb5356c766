"""What the staff desk and the captain's Armageddon page offer next (docs/rules.md §5); ids and public
facts only, never a sealed choice."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from orchestrator.adapters.tables import Armageddon, Duel, DuelStatus, Lot
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import utcnow
from orchestrator.domain.knockout import ArmageddonPhase
from orchestrator.domain.teams import Category
from orchestrator.errors import Forbidden
from orchestrator.services.accounts.users import AuthUser, ensure_team_access
from orchestrator.services.playoff._context import load_duel, load_stage
from orchestrator.services.playoff.read import ArmageddonInfo, armageddon_info
from orchestrator.services.playoff.storage import lot_purpose
from orchestrator.services.teams.lineups import ineligibility
from orchestrator.translation import gettext as _


@dataclass(frozen=True, slots=True)
class NominationForm:
    duel_id: int
    duel_key: str
    team_id: int
    team: str
    opponent: str
    armageddon: ArmageddonInfo | None
    options: tuple[tuple[str, str], ...]  # (account, label) of the team's eligible players
    open: bool
    chooser_is_us: bool


def nomination_form(
    uow: UnitOfWork, *, duel_id: int, team_id: int, user: AuthUser, now: datetime | None = None
) -> NominationForm:
    """The captain's Armageddon page: the category, their own sealed nomination, eligible players.

    Only the team's own captain sees its sealed nomination: staff opening the page for a team see what the
    public sees (how many nominations are in, not whom) until the seal ends (docs/rules.md, "The
    Armageddon", step 2)."""
    now = now or utcnow()
    ensure_team_access(user, team_id)
    ctx, duel = load_duel(uow, duel_id)
    if team_id not in (duel.first_team_id, duel.second_team_id):
        raise Forbidden(_("Your team does not play this duel."))
    own_captain = not user.is_staff and user.team_id == team_id
    info = armageddon_info(uow, ctx, duel, now, viewer_team=team_id if own_captain else None)
    arm = ctx.armageddons.get(duel_id)
    options: list[tuple[str, str]] = []
    if arm is not None:
        category = Category(arm.category)
        for p in uow.teams.players_of_team(team_id):
            if ineligibility(p, category, ctx.fmt.cutoff_year) is None:
                options.append((p.account, f"{p.name} ({p.rating})"))
    is_open = bool(
        arm is not None
        and arm.phase is ArmageddonPhase.NOMINATING
        and (arm.deadline_at is None or now < arm.deadline_at)
    )
    other = duel.second_team_id if duel.first_team_id == team_id else duel.first_team_id
    return NominationForm(
        duel_id=duel_id,
        duel_key=duel.key,
        team_id=team_id,
        team=ctx.name(team_id) or "?",
        opponent=ctx.name(other) or "?",
        armageddon=info,
        options=tuple(options),
        open=is_open,
        chooser_is_us=bool(info and info.chooser == ctx.name(team_id) and info.white is None),
    )


@dataclass(frozen=True, slots=True)
class DeskDuel:
    """What the staff desk needs to offer the next step of a duel (ids, never sealed choices)."""

    duel_id: int
    key: str
    teams: tuple[tuple[int, str], ...]  # (id, name) of the known teams
    matches: tuple[tuple[int, int], ...]  # (leg, match id) of matches 1 and 2; none once the duel is decided
    next_step: str  # "category-commit", "category-reveal", "nominating", "colour-commit", ...
    chooser_team_id: int | None


@dataclass(frozen=True, slots=True)
class StaffDesk:
    stage_id: int
    event_slug: str
    built: bool
    duels: dict[str, DeskDuel]
    withdrawable: tuple[tuple[int, str], ...]  # teams still in the bracket


def staff_desk(uow: UnitOfWork, *, stage_id: int) -> StaffDesk:
    """The staff desk's data: each duel's next Armageddon step and the ids its forms post."""
    ctx = load_stage(uow, stage_id)
    duels: dict[str, DeskDuel] = {}
    in_bracket: dict[int, str] = {}
    for key, duel in ctx.duels.items():
        teams = tuple(
            (t, ctx.name(t) or "?") for t in (duel.first_team_id, duel.second_team_id) if t is not None
        )
        if duel.status != DuelStatus.DECIDED.value:
            in_bracket.update({t: n for t, n in teams if ctx.teams[t].withdrawn_at is None})
        arm = ctx.armageddons.get(duel.id or 0)
        category_lot = ctx.lots.get(lot_purpose(key, "category"))
        colour_lot = ctx.lots.get(lot_purpose(key, "colour"))
        step = _next_step(duel, arm, category_lot, colour_lot)
        chooser = None
        if step == "choose-colour" and colour_lot is not None and colour_lot.outcome:
            chooser = ctx.team_id(str(colour_lot.outcome[0]))
        matches: tuple[tuple[int, int], ...] = ()  # none on a decided duel (forfeit_match refuses it)
        if duel.status != DuelStatus.DECIDED.value:
            matches = tuple(
                (m.leg or 0, m.id or 0) for m in ctx.matches.get(duel.id or 0, []) if m.leg in (1, 2)
            )
        duels[key] = DeskDuel(duel.id or 0, key, teams, matches, step, chooser)
    return StaffDesk(
        stage_id=stage_id,
        event_slug=ctx.event.slug,
        built=bool(ctx.duels),
        duels=duels,
        withdrawable=tuple(sorted(in_bracket.items(), key=lambda item: item[1])),
    )


_DESK_STEP = {
    ArmageddonPhase.NOMINATING: "nominating",
    ArmageddonPhase.CHOOSE_COLOUR: "choose-colour",
    ArmageddonPhase.READY: "game",
    ArmageddonPhase.PLAYING: "game",
}


def _next_step(duel: Duel, arm: Armageddon | None, category_lot: Lot | None, colour_lot: Lot | None) -> str:
    """The staff desk's next Armageddon step of a duel ("" when staff have nothing to do for it)."""
    if arm is None:
        if duel.status != DuelStatus.ARMAGEDDON.value:
            return ""
        committed = category_lot is not None and category_lot.seed_hex is None
        return "category-reveal" if committed else "category-commit"
    if arm.phase is ArmageddonPhase.DRAW_CHOOSER:
        committed = colour_lot is not None and colour_lot.seed_hex is None
        return "colour-reveal" if committed else "colour-commit"
    return _DESK_STEP.get(arm.phase, "")
