"""The stand-in's game page (``GET /{game_id}``, as a Lichess game address): what a spectator's "Watch game"
link opens during a demo or a test (docs/gameserver.md).

Rendered on the server, without JavaScript: the players with their ratings, the result and how the game
ended, the time control and the clocks, the moves in SAN and the position reached, drawn as an SVG board by
python-chess (GPL, the optional ``pgn`` extra, imported here only when installed). Without python-chess the
moves and the PGN are shown without a board. A game being played shows its moves three plies behind, as
the export does (and as Lichess delays its broadcast).
"""

from __future__ import annotations

from html import escape

from orchestrator.standin.engine import chess_available, pgn_result, speed_name
from orchestrator.standin.store import GameView, Store

ENDINGS = {
    "mate": "checkmate",
    "resign": "resignation",
    "stalemate": "stalemate",
    "timeout": "the opponent leaving",
    "draw": "agreement",
    "outoftime": "time",
    "cheat": "a rules infraction",
    "noStart": "no first move",
    "aborted": "aborted",
    "insufficientMaterialClaim": "insufficient material",
    "variantEnd": "the end of the variant",
    "unknownFinish": "an unknown ending",
}

STYLE = """
body { font: 16px/1.5 system-ui, sans-serif; color: #1b1f24; margin: 0; background: #fff; }
main { max-width: 60rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.4rem; margin: 0.25rem 0 0.5rem; }
.eyebrow, .muted { color: #545d68; }
.result { font-size: 1.2rem; font-weight: 700; }
.layout { display: flex; flex-wrap: wrap; gap: 1.5rem; align-items: flex-start; }
figure { margin: 0; max-width: 100%; }
figure svg { width: min(360px, 100%); height: auto; display: block; }
figcaption { font-size: 0.8rem; color: #545d68; word-break: break-all; max-width: 360px; }
.moves { list-style: none; padding: 0; margin: 0; columns: 2 10rem; font-variant-numeric: tabular-nums; }
.moves li { break-inside: avoid; }
.moves .n { display: inline-block; min-width: 2.2rem; color: #545d68; }
.moves .ply { display: inline-block; min-width: 3.6rem; }
dl { display: grid; grid-template-columns: auto 1fr; gap: 0.1rem 1rem; margin: 0.5rem 0 1rem; }
dt { color: #545d68; }
dd { margin: 0; }
pre { white-space: pre-wrap; word-break: break-word; font-size: 0.8rem;
  background: #f4f5f7; padding: 0.5rem; }
"""


def clock_text(seconds: int) -> str:
    """``m:ss`` (``h:mm:ss`` from an hour)."""
    hours, rest = divmod(max(0, seconds), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def result_sentence(view: GameView) -> str:
    """ "White won by checkmate", "Draw by stalemate", "Being played" ..."""
    if not view.finished:
        return "Being played" if view.game.clock_start is not None else "Waiting for the clocks to start"
    ending = ENDINGS.get(view.status, view.status)
    if view.status in ("aborted", "noStart") and view.winner is None:
        return f"No game: {ending}"
    if view.winner is None:
        return f"Draw by {ending}"
    return f"{view.winner.capitalize()} won by {ending}"


def _time_control(view: GameView) -> str:
    game = view.game
    speed = speed_name(game.white_limit_s, game.black_limit_s, game.increment_s)
    if game.unequal:
        limits = f"White {clock_text(game.white_limit_s)}, Black {clock_text(game.black_limit_s)}"
    else:
        limits = f"{clock_text(game.white_limit_s)} each"
    return f"{limits}, {game.increment_s} s a move ({speed})"


def _clocks_left(view: GameView, shown: int) -> str:
    """Each side's clock after its last shown move (the clocks as they stood), or the starting time."""
    game = view.game
    clocks = game.plan.clocks_cs[:shown] if shown else ()
    white = next((clocks[i] for i in range(len(clocks) - 1, -1, -1) if i % 2 == 0), None)
    black = next((clocks[i] for i in range(len(clocks) - 1, -1, -1) if i % 2 == 1), None)
    white_s = white // 100 if white is not None else game.white_limit_s
    black_s = black // 100 if black is not None else game.black_limit_s
    return f"White {clock_text(white_s)}, Black {clock_text(black_s)}"


def _moves_html(moves: tuple[str, ...]) -> str:
    if not moves:
        return '<p class="muted">No move yet.</p>'
    items = []
    for index in range(0, len(moves), 2):
        pair = "".join(f'<span class="ply">{escape(san)}</span> ' for san in moves[index : index + 2])
        items.append(f'<li><span class="n">{index // 2 + 1}.</span> {pair.strip()}</li>')
    return f'<ol class="moves" aria-label="Moves">{"".join(items)}</ol>'


def board_svg(moves: tuple[str, ...]) -> str | None:
    """The position after ``moves`` as an SVG board (python-chess), with a caption; None without it."""
    if not chess_available():
        return None
    import chess
    import chess.svg

    board = chess.Board()
    for san in moves:
        board.push_san(san)
    last = board.peek() if board.move_stack else None
    svg = chess.svg.board(board, lastmove=last, size=360, coordinates=True)
    label = f"Position after {len(moves)} plies, {'White' if board.turn else 'Black'} to move"
    return (
        f'<figure><div role="img" aria-label="{escape(label)}">{svg}</div>'
        f"<figcaption>{escape(label)}. FEN {escape(board.fen())}</figcaption></figure>"
    )


def game_page(store: Store, view: GameView) -> str:
    """The whole HTML page of one game."""
    game = view.game
    shown = store.shown_plies(view)
    moves = tuple(game.plan.moves[:shown])
    white = f"{escape(game.white.username)} ({game.white.rating})"
    black = f"{escape(game.black.username)} ({game.black.rating})"
    result = pgn_result(view.status, view.winner) if view.finished else "*"
    board = board_svg(moves)
    no_board = "" if board else '<p class="muted">Board not drawn: python-chess is not installed.</p>'
    delayed = "" if view.finished else '<p class="muted">Moves are shown three plies behind the game.</p>'
    pgn = escape(store.pgn(view))
    return f"""<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{white} – {black} · stand-in game {escape(game.id)}</title><style>{STYLE}</style></head>
<body><main>
<p class="eyebrow">Stand-in game server · game {escape(game.id)}</p>
<h1><span>White: {white}</span> – <span>Black: {black}</span></h1>
<p class="result">{escape(result.replace("1/2", "½"))} · {escape(result_sentence(view))}</p>
<dl>
  <dt>Time control</dt><dd>{escape(_time_control(view))}</dd>
  <dt>Clocks left</dt><dd>{escape(_clocks_left(view, shown))}</dd>
  <dt>Moves</dt><dd>{(shown + 1) // 2}</dd>
</dl>
<div class="layout">
  {board or no_board}
  <section aria-labelledby="moves-h"><h2 id="moves-h">Moves</h2>{delayed}{_moves_html(moves)}</section>
</div>
<details><summary>PGN</summary><pre>{pgn}</pre></details>
</main></body></html>
"""


def missing_page(game_id: str) -> str:
    """The 404 page for a game id the stand-in does not know."""
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>No such game · stand-in game server</title></head>
<body><main><h1>No such game</h1>
<p>The stand-in game server has no game {escape(game_id)}.</p></main></body></html>
"""
