"""Fair-play rulings (docs/rules.md §2): all of one player's results in the event become losses, after the
fact.

How: an ``annulment`` row is stored and every standings computation scores each final game of that player
as a forfeit loss (a win by forfeit for the opponent, whatever the game's result; ``-/-`` when the
opponent is annulled too). The board keeps the game's own result (spectators still see what was played);
the audit log keeps, per board, the original result and what it is now scored as. Every pool the player
played in is stored again; when a closed stage's final standings change, every later stage already built
from them is reviewed (services/results/late_changes.py): a different set of qualifiers is recorded as a
late change for staff to rule on, never silently re-seeded.
"""

from __future__ import annotations

from dataclasses import dataclass

from orchestrator.adapters.tables import Annulment, Match, Player, Round, Stage
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.domain.scoring import GameResult
from orchestrator.errors import Conflict, NotFound, ValidationFailed
from orchestrator.services import live
from orchestrator.services.results import late_changes
from orchestrator.services.results import standings as standings_service
from orchestrator.translation import gettext as _


@dataclass(frozen=True, slots=True)
class AnnulmentReport:
    annulment_id: int
    player_id: int
    boards: tuple[int, ...]  # boards whose result is now scored as a loss for the player
    pools: tuple[int, ...]  # pools whose standings were stored again
    flagged_stages: tuple[int, ...]  # later stages with a pending late change (who would qualify now)


def annul_player(uow: UnitOfWork, *, player_id: int, reason: str, actor: str) -> AnnulmentReport:
    """Turn all of a player's results in the event into losses; recompute and flag what depended on them."""
    reason = reason.strip()
    if not reason:
        raise ValidationFailed([_("a fair-play ruling needs its reason")])
    player = uow.teams.get(Player, player_id)
    if player is None:
        raise NotFound(_("player %(player)s does not exist") % {"player": player_id})
    if uow.teams.annulment_of_player(player_id) is not None:
        raise Conflict(_("%(player)s's results are already annulled") % {"player": player.name})
    boards = uow.boards.boards_of_player(player_id)
    matches = {b.match_id: uow.rounds.get_or_raise(Match, b.match_id) for b in boards}
    pool_ids = sorted({m.pool_id for m in matches.values() if m.pool_id is not None})
    for pool_id in pool_ids:
        uow.locks.lock_pool(pool_id)
    annulment = uow.teams.insert(Annulment(player_id=player_id, reason=reason, annulled_by=actor))
    annulled = uow.teams.annulled_player_ids(player.event_id)
    changed: list[int] = []
    for board in boards:
        before = GameResult(board.result)
        if not before.is_final:
            continue
        counted = standings_service.effective_result(board, annulled)
        changed.append(board.id or 0)
        uow.audit.change(
            board,
            "board.annulled",
            actor=actor,
            event_id=player.event_id,
            old={"result": board.result},
            new={"counted_as": counted.value, "player_id": player_id},
            reason=reason,
        )
    uow.audit.change(
        player,
        "player.annul",
        actor=actor,
        event_id=player.event_id,
        new={"annulment_id": annulment.id, "boards": changed},
        reason=reason,
    )
    stages: dict[int, Stage] = {}
    for match in matches.values():
        rnd = uow.rounds.get_or_raise(Round, match.round_id)
        stages[rnd.stage_id] = uow.events.get_or_raise(Stage, rnd.stage_id)
    for pool_id in pool_ids:
        standings_service.recompute_pool(uow, pool_id=pool_id, actor=actor)
    pending = [
        change
        for stage in stages.values()
        for change in late_changes.review_closed_stage(
            uow,
            stage_id=stage.id or 0,
            actor=actor,
            cause="annulment",
            cause_text=f"fair-play ruling on {player.name} by {actor}: {reason}",
        )
    ]
    flagged = late_changes.stages_named(pending)
    for match in matches.values():
        live.announce(uow, f"match:{match.id}", kind="annulment")
        if match.duel_id is not None:
            live.announce(uow, f"duel:{match.duel_id}", kind="annulment")
    for stage in stages.values():
        event = uow.events.event_of_stage(stage)
        live.announce(uow, f"event:{event.slug}", kind="annulment")
        break
    return AnnulmentReport(annulment.id or 0, player_id, tuple(changed), tuple(pool_ids), tuple(flagged))
