"""Playing one stand-in game out: result from the ratings, then moves, clocks and a termination.

The result comes from the rating model (orchestrator.domain.game_model: Elo expectation with an
online-rapid draw rate). Moves are legal and end the way the status says: a mate is a known miniature,
a resignation or flag is a short random legal game whose last move is the winner's (a prefix of one of
the seed's long random lines, made once). Only the result, termination and length are drawn when a game
is planned; moves and clocks are made the first time a client asks for them. python-chess (GPL,
optional) is imported lazily here only; without it a fixed opening is used.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Callable
from functools import cache
from random import Random

from orchestrator.domain.game_model import play_game
from orchestrator.domain.scoring import GameResult

# Known miniatures ending in mate, by winner; each is checked legal in tests/unit/test_standin_openapi.py.
MATES: dict[str, tuple[str, ...]] = {
    "white": (
        "e4 e5 Bc4 Nc6 Qh5 Nf6 Qxf7#",
        "e4 e5 Nf3 d6 Bc4 Bg4 Nc3 g6 Nxe5 Bxd1 Bxf7+ Ke7 Nd5#",
        "e4 c6 d4 d5 Nc3 dxe4 Nxe4 Nd7 Qe2 Ngf6 Nd6#",
        "e4 e5 Qh5 Ke7 Qxe5#",
    ),
    "black": (
        "f3 e5 g4 Qh4#",
        "e4 e5 Nf3 Nc6 Bc4 Nd4 Nxe5 Qg5 Nxf7 Qxg2 Rf1 Qxe4+ Be2 Nf3#",
        "d4 e5 dxe5 Nc6 Nf3 Qe7 Bf4 Qb4+ Bd2 Qxb2 Bc3 Bb4 Qd2 Bxc3 Qxc3 Qc1#",
    ),
}
OPENINGS: tuple[str, ...] = (
    "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7",
    "d4 d5 c4 e6 Nc3 Nf6 Bg5 Be7 e3 O-O",
    "e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6",
    "d4 Nf6 c4 g6 Nc3 Bg7 e4 d6 Nf3 O-O",
    "c4 e5 Nc3 Nf6 Nf3 Nc6 g3 d5 cxd5 Nxd5",
    "e4 e6 d4 d5 Nc3 Bb4 e5 c5 a3 Bxc3+",
)
NO_START_WAIT_S = 30.0  # Lichess gives noStart when the first move does not come in time
ABORT_WAIT_S = 20.0


class PlannedGame:
    """How a game will go: final status and winner, then (lazily) the moves and when each ply is made.

    The status, winner and number of plies are decided when the game is planned (cheap: the rating
    model and a few draws). The moves, ``ply_at_s`` (game-clock time, seconds after the clocks start, of
    each ply), ``clocks_cs`` (the mover's remaining time after each ply, in centiseconds) and ``end_at_s``
    (when the game ends) are made the first time someone asks and then kept. They follow from seeds
    drawn at planning time, so the same seed always gives the same game, whenever it is asked for.
    """

    __slots__ = (
        "_clock_seed",
        "_clocks",
        "_flagged",
        "_limits",
        "_make_moves",
        "_moves",
        "plies",
        "status",
        "winner",
    )

    def __init__(
        self,
        status: str,
        winner: str | None,
        plies: int,
        make_moves: Callable[[], tuple[str, ...]],
        *,
        limits: tuple[int, int, int],
        flagged: str | None = None,
        clock_seed: int = 0,
        fixed_clocks: tuple[tuple[float, ...], tuple[int, ...], float] | None = None,
    ) -> None:
        self.status = status
        self.winner = winner
        self.plies = plies
        self._make_moves = make_moves
        self._moves: tuple[str, ...] | None = None
        self._limits = limits
        self._flagged = flagged
        self._clock_seed = clock_seed
        self._clocks = fixed_clocks

    @property
    def moves(self) -> tuple[str, ...]:
        moves = self._moves
        if moves is None:
            moves = self._moves = self._make_moves()
        return moves

    def _clock_plan(self) -> tuple[tuple[float, ...], tuple[int, ...], float]:
        clocks = self._clocks
        if clocks is None:
            white_limit_s, black_limit_s, increment_s = self._limits
            clocks = self._clocks = _clock_plan(
                Random(self._clock_seed),
                self.plies,
                white_limit_s=white_limit_s,
                black_limit_s=black_limit_s,
                increment_s=increment_s,
                flagged=self._flagged,
            )
        return clocks

    @property
    def ply_at_s(self) -> tuple[float, ...]:
        return self._clock_plan()[0]

    @property
    def clocks_cs(self) -> tuple[int, ...]:
        return self._clock_plan()[1]

    @property
    def end_at_s(self) -> float:
        return self._clock_plan()[2]


def _result_winner(result: GameResult) -> str | None:
    if result is GameResult.WHITE_WINS:
        return "white"
    if result is GameResult.BLACK_WINS:
        return "black"
    return None


def random_moves(rng: Random, plies: int) -> tuple[str, ...]:
    """A legal game of ``plies`` plies (an opening, then random moves) that is not over at its end.

    Every position along the way is not over either, so every prefix of the answer is such a game too.
    """
    opening = rng.choice(OPENINGS).split()
    try:
        import chess  # GPL, optional: only the stand-in uses it
    except ImportError:  # pragma: no cover - exercised only without the optional dependency
        return tuple(opening[: min(plies, len(opening))])
    board = chess.Board()
    sans: list[str] = []
    for san in opening[:plies]:
        board.push_san(san)
        sans.append(san)
    while len(sans) < plies:
        moves = sorted(board.legal_moves, key=lambda m: m.uci())
        rng.shuffle(moves)
        # Safe captures first, then moves to squares the opponent does not attack: fewer silly blunders.
        enemy = not board.turn
        moves.sort(
            key=lambda m: (
                board.is_attacked_by(enemy, m.to_square),
                not board.is_capture(m) or rng.random() < 0.5,
            )
        )
        for move in moves:
            san = board.san(move)
            board.push(move)
            if not board.is_game_over(claim_draw=False):
                sans.append(san)
                break
            board.pop()
        else:
            break  # every move ends the game: stop here, the status still decides the result
    return tuple(sans)


def _clock_plan(
    rng: Random,
    plies: int,
    *,
    white_limit_s: int,
    black_limit_s: int,
    increment_s: int,
    flagged: str | None,
) -> tuple[tuple[float, ...], tuple[int, ...], float]:
    """Times of each ply and remaining clocks; a flagged side uses all its time and a bit more."""
    limits = {"white": float(white_limit_s), "black": float(black_limit_s)}
    moves_of = {"white": (plies + 1) // 2, "black": plies // 2}
    budget: dict[str, list[float]] = {}
    for side in ("white", "black"):
        count = moves_of[side]
        total = limits[side] + increment_s * count
        share = 0.97 if side == flagged else rng.uniform(0.25, 0.85)
        weights = [rng.uniform(0.3, 1.7) for _ in range(count)]
        scale = total * share / (sum(weights) or 1.0)
        budget[side] = [w * scale for w in weights]
    elapsed = 0.0
    remaining = dict(limits)
    ply_at: list[float] = []
    clocks: list[int] = []
    for ply in range(plies):
        side = "white" if ply % 2 == 0 else "black"
        spend = min(budget[side][ply // 2], remaining[side])
        elapsed += spend
        remaining[side] = remaining[side] - spend + increment_s
        ply_at.append(elapsed)
        clocks.append(max(0, round(remaining[side] * 100)))
    # A flag falls when the loser's time runs out; otherwise the loser thinks, then resigns or agrees.
    end = elapsed + (remaining[flagged] if flagged is not None else rng.uniform(1.0, 10.0))
    return tuple(ply_at), tuple(clocks), end


# Resignations, flags and draws are prefixes of a few long random lines, made once per seed and line on
# first use: a game costs a slice instead of a python-chess play-out (about 6 ms a game).
LINE_COUNT = 64
LINE_PLIES = 120  # longer than any planned game (draws 40-119 plies, decisive games 30-110)
_lines: dict[tuple[str, int], tuple[str, ...]] = {}
_lines_lock = threading.Lock()


@cache
def chess_available() -> bool:
    """python-chess is installed (an optional dependency of the stand-in)."""
    return importlib.util.find_spec("chess") is not None


def lines_made(seed: str) -> int:
    """How many of ``seed``'s random lines are made and cached so far."""
    with _lines_lock:
        return sum(1 for made_seed, _ in _lines if made_seed == seed)


def random_line(seed: str, index: int) -> tuple[str, ...]:
    """Line ``index`` for ``seed``: ``LINE_PLIES`` legal plies, no position along it over (cached)."""
    key = (seed, index)
    line = _lines.get(key)
    if line is None:
        with _lines_lock:
            line = _lines.get(key)
            attempt = 0
            while line is None:
                made = random_moves(Random(f"{seed}/line/{index}/{attempt}"), LINE_PLIES)
                if len(made) == LINE_PLIES or attempt >= 20:
                    line = made
                attempt += 1
            _lines[key] = line
    return line


def plan_game(
    rng: Random,
    *,
    white_rating: int,
    black_rating: int,
    white_limit_s: int,
    black_limit_s: int,
    increment_s: int,
    fault: str | None = None,
    line_seed: str = "",
) -> PlannedGame:
    """Plan a game from the ratings; ``fault`` is "aborted" or "noStart" for injected failures.

    Only the result, the termination and the length are drawn here; the moves (a prefix of one of the
    seed's random lines, or a mate miniature) and the clocks are made when first asked for.
    """
    limits = (white_limit_s, black_limit_s, increment_s)
    winner: str | None
    if fault in ("aborted", "noStart"):
        # No first move (White did not start) or one move (Black did not start).
        plies = rng.choice((0, 1))
        fixed: tuple[str, ...] = ("e4",) if plies else ()
        winner = None if fault == "aborted" else ("white" if plies else "black")
        wait = ABORT_WAIT_S if fault == "aborted" else NO_START_WAIT_S
        clocks = ((1.0,) * plies, (white_limit_s * 100,) * plies, wait)
        return PlannedGame(fault, winner, plies, lambda: fixed, limits=limits, fixed_clocks=clocks)
    winner = _result_winner(play_game(rng, white_rating, black_rating))
    if winner is None:
        status = "draw"
        plies = rng.randrange(40, 120)
    else:
        roll = rng.random()
        status = "mate" if roll < 0.2 else "outoftime" if roll < 0.35 else "resign"
        if status == "mate":
            mate = tuple(rng.choice(MATES[winner]).split())
            plies = len(mate)
        else:
            plies = rng.randrange(30, 110)
            # The winner made the last move: white's plies are odd-numbered.
            if (plies % 2 == 1) != (winner == "white"):
                plies += 1
    loser = None if winner is None else ("black" if winner == "white" else "white")
    flagged = loser if status == "outoftime" else None
    clock_seed = rng.getrandbits(64)
    if status == "mate":
        return PlannedGame(status, winner, plies, lambda: mate, limits=limits, clock_seed=clock_seed)
    if not chess_available():  # pragma: no cover - only without the optional dependency
        moves = random_moves(rng, plies)
        if len(moves) < plies:
            status, flagged = "resign", None  # shorter than planned: the loser resigns on the spot
        return PlannedGame(
            status, winner, len(moves), lambda: moves, limits=limits, flagged=flagged, clock_seed=clock_seed
        )
    index = rng.randrange(LINE_COUNT)
    length = plies

    def make_moves() -> tuple[str, ...]:
        return random_line(line_seed, index)[:length]

    return PlannedGame(
        status, winner, plies, make_moves, limits=limits, flagged=flagged, clock_seed=clock_seed
    )


def speed_name(white_limit_s: int, black_limit_s: int, increment_s: int) -> str:
    """Lichess speed from the estimated duration limit + 40 × increment (lila chess.Speed)."""
    estimate = max(white_limit_s, black_limit_s) + 40 * increment_s
    if estimate < 30:
        return "ultraBullet"
    if estimate < 180:
        return "bullet"
    if estimate < 480:
        return "blitz"
    if estimate < 1500:
        return "rapid"
    return "classical"


TERMINATION = {
    "created": "Unterminated",
    "started": "Unterminated",
    "aborted": "Abandoned",
    "noStart": "Abandoned",
    "timeout": "Time forfeit",
    "outoftime": "Time forfeit",
    "insufficientMaterialClaim": "Insufficient material",
    "cheat": "Rules infraction",
    "unknownFinish": "Unknown",
}


def pgn_result(status: str, winner: str | None) -> str:
    """The PGN Result tag for a status and winner (lila PgnDump)."""
    if status in ("created", "started", "aborted"):
        return "*"
    if winner == "white":
        return "1-0"
    if winner == "black":
        return "0-1"
    return "1/2-1/2"


def _clock_comment(centis: int) -> str:
    seconds = centis // 100
    return f"{{ [%clk {seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}] }}"


def render_pgn(
    headers: list[tuple[str, str]],
    moves: tuple[str, ...],
    result: str,
    *,
    clocks_cs: tuple[int, ...] | None = None,
) -> str:
    """A PGN text: tag pairs, then movetext with optional ``[%clk]`` comments."""
    lines = [f'[{name} "{value}"]' for name, value in headers]
    tokens: list[str] = []
    for ply, san in enumerate(moves):
        if ply % 2 == 0:
            tokens.append(f"{ply // 2 + 1}.")
        elif clocks_cs is not None:
            tokens.append(f"{ply // 2 + 1}...")
        tokens.append(san)
        if clocks_cs is not None and ply < len(clocks_cs):
            tokens.append(_clock_comment(clocks_cs[ply]))
    tokens.append(result)
    return "\n".join(lines) + "\n\n" + " ".join(tokens) + "\n"
