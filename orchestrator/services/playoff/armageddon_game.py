"""The Armageddon game: a one-board third match of the duel, its pairing on the game server, the game
the arbiter gives and its result (docs/rules.md §5, §8). White must win: a draw sends Black's team through."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from orchestrator.adapters.lichess import BulkSpec
from orchestrator.adapters.tables import Duel, MatchStatus, ResultSource, Round, RoundStatus
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.domain import knockout as ko
from orchestrator.domain.knockout import ArmageddonPhase
from orchestrator.domain.scoring import GameResult
from orchestrator.errors import Conflict, ValidationFailed
from orchestrator.services import live
from orchestrator.services.playoff._context import StageContext, load_duel, stored_game
from orchestrator.services.playoff.commands import add_match, advance_bracket
from orchestrator.services.playoff.storage import ARMAGEDDON_LEG, ARMAGEDDON_ROUND_BASE
from orchestrator.services.playoff.sync import finish_game, sync_armageddon_phase
from orchestrator.translation import gettext as _


def _armageddon_round(uow: UnitOfWork, ctx: StageContext, duel: Duel) -> Round:
    number = ARMAGEDDON_ROUND_BASE + (duel.id or 0)
    rnd = uow.rounds.round_by_number(ctx.stage.id or 0, number)
    if rnd is None:
        rnd = uow.rounds.insert(
            Round(
                stage_id=ctx.stage.id or 0,
                number=number,
                name=f"{duel.round_name} {duel.key}, Armageddon",
                status=RoundStatus.SCHEDULED.value,
            )
        )
    return rnd


def store_game(uow: UnitOfWork, ctx: StageContext, duel: Duel, state: ko.ArmageddonState) -> None:
    """The Armageddon game as a one-board match: its first team has White."""
    assert state.white is not None
    white_side = state.side(state.white)
    white_team = (duel.first_team_id, duel.second_team_id)[white_side]
    black_team = (duel.first_team_id, duel.second_team_id)[1 - white_side]
    assert white_team is not None and black_team is not None
    arm = ctx.armageddons[duel.id or 0]
    nominees = (arm.first_nominee_id, arm.second_nominee_id)
    rnd = _armageddon_round(uow, ctx, duel)
    match = add_match(uow, ctx, duel, rnd, ARMAGEDDON_LEG, white_team, black_team, 1)
    board = ctx.boards[match.id or 0][0]
    values: dict[str, Any] = {
        "white_player_id": nominees[white_side],
        "black_player_id": nominees[1 - white_side],
    }
    if state.result.is_final:  # decided by forfeit at the reveal
        values.update(result=state.result.value, result_source=ResultSource.ARBITER.value)
        finish_game(uow, match)
    uow.boards.update_versioned(board.id or 0, expected_version=board.version, values=values, actor="system")
    uow.flush()
    ctx.boards[match.id or 0] = list(uow.boards.boards_of_matches([match.id])[match.id or 0])


_LICHESS_ID = re.compile(r"^[A-Za-z0-9]{8}$")


def parse_game_ref(game_ref: str) -> tuple[str, str | None]:
    """A Lichess game id from an id or URL (``abcdefgh``, ``https://lichess.org/abcdefgh/black``, a
    12-character player URL); returns (id, url or None)."""
    text = game_ref.strip()
    url = None
    if "://" in text or text.startswith("lichess.org/"):
        url = text if "://" in text else f"https://{text}"
        path = re.sub(r"^[a-z]+://[^/]+", "", url).split("?")[0].split("#")[0]
        parts = [p for p in path.split("/") if p]
        text = parts[0] if parts else ""
    if len(text) == 12 and text.isalnum():
        text = text[:8]  # a player's link carries 4 more characters
    if not _LICHESS_ID.match(text):
        raise ValidationFailed([_("game: %(game)r is not a Lichess game id or URL") % {"game": game_ref}])
    return text, url or f"https://lichess.org/{text}"


def set_armageddon_game(uow: UnitOfWork, *, duel_id: int, game_ref: str, actor: str) -> str:
    """Track the Armageddon game the arbiter set up (Lichess id or URL); the workers pull its result."""
    game_id, url = parse_game_ref(game_ref)
    ctx, duel = load_duel(uow, duel_id, lock=True)
    game = stored_game(ctx, duel)
    arm = ctx.armageddons.get(duel_id)
    if game is None or arm is None:
        raise Conflict(_("Duel %(duel)s: the Armageddon colours are not settled yet.") % {"duel": duel.key})
    match, board = game
    if GameResult(board.result).is_final:
        raise Conflict(_("Duel %(duel)s: the Armageddon already has a result.") % {"duel": duel.key})
    other = uow.boards.get_by_game_id(game_id)
    if other is not None and other.id != board.id:
        raise Conflict(_("Game %(game)s is already tracked for another board.") % {"game": game_id})
    uow.boards.update_versioned(
        board.id or 0,
        expected_version=board.version,
        values={"game_id": game_id, "game_url": url},
        actor=actor,
    )
    rnd = uow.rounds.get_or_raise(Round, match.round_id)
    rnd.status = RoundStatus.PAIRED.value
    match.status = MatchStatus.PLAYING.value
    arm.enter(ArmageddonPhase.PLAYING)
    uow.rounds.add(rnd)
    uow.rounds.add(match)
    uow.playoff.add(arm)
    uow.audit.change(arm, "armageddon.game", actor=actor, event_id=ctx.event.id, new={"game_id": game_id})
    live.announce(uow, f"duel:{duel_id}", duel_id=duel_id)
    return game_id


@dataclass(frozen=True, slots=True)
class ArmageddonPairing:
    """What the workers need to create the game on the stand-in (unequal clocks) with create_bulk."""

    duel_id: int
    white_player_id: int
    black_player_id: int
    spec: BulkSpec


def armageddon_pairing(uow: UnitOfWork, *, duel_id: int) -> ArmageddonPairing:
    """The Armageddon game to create: players and the event's Armageddon clocks (docs/rules.md §5)."""
    ctx, duel = load_duel(uow, duel_id)
    game = stored_game(ctx, duel)
    if game is None or game[1].white_player_id is None or game[1].black_player_id is None:
        raise Conflict(_("Duel %(duel)s: the Armageddon colours are not settled yet.") % {"duel": duel.key})
    clock = ctx.definition.armageddon
    spec = BulkSpec(
        clock_limit_s=clock.white_seconds,
        clock_increment_s=clock.increment_seconds,
        white_limit_s=clock.white_seconds,
        black_limit_s=clock.black_seconds,
        message=f"{ctx.event.name}: Armageddon of duel {duel.key}. White must win. {{game}}",
    )
    return ArmageddonPairing(duel_id, game[1].white_player_id, game[1].black_player_id, spec)


def record_armageddon_result(uow: UnitOfWork, *, duel_id: int, result: str, actor: str) -> None:
    """An arbiter enters the Armageddon result (from White's side); the bracket moves on."""
    try:
        code = GameResult("½-½" if result.strip() == "1/2-1/2" else result.strip())
    except ValueError:
        raise ValidationFailed([_("result: %(result)r is not a result code") % {"result": result}]) from None
    ctx, duel = load_duel(uow, duel_id, lock=True)
    game = stored_game(ctx, duel)
    if game is None:
        raise Conflict(_("Duel %(duel)s: the Armageddon colours are not settled yet.") % {"duel": duel.key})
    _match, board = game
    old = board.result
    uow.boards.update_versioned(
        board.id or 0,
        expected_version=board.version,
        values={"result": code.value, "result_source": ResultSource.ARBITER.value},
        actor=actor,
    )
    uow.audit.change(
        board,
        "board.result",
        actor=actor,
        event_id=ctx.event.id,
        old={"result": old},
        new={"result": code.value},
    )
    uow.flush()
    sync_armageddon_phase(uow, duel)
    advance_bracket(uow, stage_id=duel.stage_id, actor=actor)
