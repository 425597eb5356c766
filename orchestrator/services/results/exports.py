"""Reports staff download: standings CSV and TRF-2026 per pool, PGN of a match's games.

python-chess is an optional GPL dependency (extra ``pgn``): imported lazily to normalise PGN; without it
the stored PGN texts are concatenated as they are.
"""

from __future__ import annotations

import importlib
import io
from fractions import Fraction

from orchestrator.adapters.csv_files import write_csv
from orchestrator.adapters.tables import Match, Standing
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.domain.scoring import format_points
from orchestrator.domain.tiebreaks import TieBreakError
from orchestrator.domain.trf.teams import write_trf
from orchestrator.errors import Conflict
from orchestrator.services.results import standings as standings_service
from orchestrator.translation import gettext as _


def _label(uow: UnitOfWork, pool_id: int) -> tuple[standings_service.PoolRecords, str]:
    data = standings_service.pool_records(uow, pool_id=pool_id)
    return data, f"{data.event.name} – {data.stage.name} – Pool {data.pool.letter}"


def standings_csv(uow: UnitOfWork, *, pool_id: int) -> str:
    """The pool's standings as CSV: rank, team, every tie-break value (exact), the separating rule."""
    data = _label(uow, pool_id)[0]
    table = standings_service.pool_standings(uow, pool_id=pool_id)
    stored = {row.team_id: row for row in uow.rounds.standings_of_pool(pool_id)}
    codes = [code for code in table.chain if code != "LOT"]
    lines: list[list[object]] = [
        ["rank", "team", *codes, *(["LOT"] if "LOT" in table.chain else []), "separated_by", "status"]
    ]
    final = bool(stored) and not any(row.provisional for row in stored.values())
    rows = (
        [(row.rank, name, row.values, row.separated_by) for row, name in _stored_rows(uow, data)]
        if final
        else [
            (row.rank, row.team, {c: str(v) for c, v in row.values.items()}, row.separated_by)
            for row in table.rows
        ]
    )
    for rank, team, values, separated_by in rows:
        cells = [_cell(code, values.get(code)) for code in codes]
        lot = [values.get("LOT", "")] if "LOT" in table.chain else []
        lines.append([rank, team, *cells, *lot, separated_by or "", "final" if final else "provisional"])
    return write_csv(lines)


def _stored_rows(uow: UnitOfWork, data: standings_service.PoolRecords) -> list[tuple[Standing, str]]:
    names = {tid: name for name, tid in data.team_ids.items()}
    return [
        (row, names.get(row.team_id, str(row.team_id)))
        for row in uow.rounds.standings_of_pool(data.pool.id or 0)
    ]


def _cell(code: str, value: object) -> str:
    if value is None:
        return ""
    fraction = Fraction(str(value))
    if fraction.denominator == 2 or code == "GP":
        return format_points(int(fraction * 2))
    return str(fraction)


def pool_trf(uow: UnitOfWork, *, pool_id: int) -> str:
    """TRF-2026 of the pool with the real per-board results (annulments applied, counted matches only)."""
    data, name = _label(uow, pool_id)
    lots = standings_service.recorded_lot_numbers(uow, data)
    try:
        return write_trf(
            data.teams,
            data.records,
            chain=data.chain,
            name=name,
            boards=data.boards,
            scoring=data.rules.scoring,
            lots=lots,
            games=data.games,
            adjustments=data.adjustments,
        )
    except TieBreakError as exc:  # a stored name the format cannot hold (docs/input-limits.md)
        raise Conflict(_("The pool cannot be written as TRF-2026: %(error)s.") % {"error": exc}) from None


def match_pgn(uow: UnitOfWork, *, match_id: int) -> str:
    """The PGN of every board of the match that has one, with the event, round and board in the headers."""
    match = uow.rounds.get_or_raise(Match, match_id)
    rnd = uow.rounds.round_of_match(match)
    stage = uow.rounds.stage_of_match(match)
    event = uow.events.event_of_stage(stage)
    texts = [(b.board_no, b.pgn) for b in uow.boards.for_match(match_id) if b.pgn]
    try:
        chess_pgn = importlib.import_module("chess.pgn")
    except ImportError:
        chess_pgn = None
    games: list[str] = []
    for board_no, text in texts:
        assert text is not None
        if chess_pgn is None:
            games.append(text.strip())
            continue
        game = chess_pgn.read_game(io.StringIO(text))
        if game is None:
            games.append(text.strip())
            continue
        game.headers["Event"] = f"{event.name} – {stage.name}"
        game.headers["Round"] = f"{rnd.number}.{match.match_no}"
        game.headers["Board"] = str(board_no)
        games.append(str(game).strip())
    return "\n\n".join(games) + ("\n" if games else "")
