"""Game results, game points and match points (docs/rules.md §2; FIDE C.07 Art. 11).

All points are integer half-points: 1 = ½ game point, 2 = one game point. No float ever decides a rank.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum, StrEnum

HalfPoints = int  # ½ point = 1


class ScoreError(ValueError):
    """A result code or score that cannot be read."""


class GameResult(Enum):
    """One board's result, from White's side (docs/rules.md §2 result codes)."""

    WHITE_WINS = "1-0"
    DRAW = "½-½"
    BLACK_WINS = "0-1"
    WHITE_WINS_FORFEIT = "+/-"
    BLACK_WINS_FORFEIT = "-/+"
    DOUBLE_FORFEIT = "-/-"
    PENDING = "*"

    @property
    def white_half(self) -> HalfPoints:
        return _HALVES[self][0]

    @property
    def black_half(self) -> HalfPoints:
        return _HALVES[self][1]

    @property
    def is_final(self) -> bool:
        return self is not GameResult.PENDING

    @property
    def is_forfeit(self) -> bool:
        """A forfeit is an unplayed game (C.07 Art. 15) even though its points count."""
        return self in (
            GameResult.WHITE_WINS_FORFEIT,
            GameResult.BLACK_WINS_FORFEIT,
            GameResult.DOUBLE_FORFEIT,
        )

    @property
    def is_played(self) -> bool:
        return self in (GameResult.WHITE_WINS, GameResult.DRAW, GameResult.BLACK_WINS)

    def reversed(self) -> GameResult:
        """The same result seen with the colours swapped."""
        return _REVERSED[self]


_HALVES: dict[GameResult, tuple[int, int]] = {
    GameResult.WHITE_WINS: (2, 0),
    GameResult.DRAW: (1, 1),
    GameResult.BLACK_WINS: (0, 2),
    GameResult.WHITE_WINS_FORFEIT: (2, 0),
    GameResult.BLACK_WINS_FORFEIT: (0, 2),
    GameResult.DOUBLE_FORFEIT: (0, 0),
    GameResult.PENDING: (0, 0),
}

_REVERSED: dict[GameResult, GameResult] = {
    GameResult.WHITE_WINS: GameResult.BLACK_WINS,
    GameResult.BLACK_WINS: GameResult.WHITE_WINS,
    GameResult.DRAW: GameResult.DRAW,
    GameResult.WHITE_WINS_FORFEIT: GameResult.BLACK_WINS_FORFEIT,
    GameResult.BLACK_WINS_FORFEIT: GameResult.WHITE_WINS_FORFEIT,
    GameResult.DOUBLE_FORFEIT: GameResult.DOUBLE_FORFEIT,
    GameResult.PENDING: GameResult.PENDING,
}

_ALIASES: dict[str, GameResult] = {
    "1-0": GameResult.WHITE_WINS,
    "0-1": GameResult.BLACK_WINS,
    "½-½": GameResult.DRAW,
    "1/2-1/2": GameResult.DRAW,
    "0.5-0.5": GameResult.DRAW,
    "=-=": GameResult.DRAW,
    "+/-": GameResult.WHITE_WINS_FORFEIT,
    "+-": GameResult.WHITE_WINS_FORFEIT,
    "-/+": GameResult.BLACK_WINS_FORFEIT,
    "-+": GameResult.BLACK_WINS_FORFEIT,
    "-/-": GameResult.DOUBLE_FORFEIT,
    "--": GameResult.DOUBLE_FORFEIT,
    "*": GameResult.PENDING,
    "": GameResult.PENDING,
    "–": GameResult.PENDING,
}


def parse_result(text: str) -> GameResult:
    """Read a result code such as ``1-0``, ``½-½``, ``1/2-1/2``, ``+/-`` or ``*``."""
    key = text.strip().replace(" ", "")
    try:
        return _ALIASES[key]
    except KeyError:
        raise ScoreError(
            f"unknown result {text!r}: use 1-0, ½-½ (or 1/2-1/2), 0-1, +/-, -/+, -/- or *"
        ) from None


_POINTS_RE = re.compile(r"^(?P<whole>\d+)?(?P<frac>\.5|\.0|½|,5|,0)?$")


def parse_points(text: str) -> HalfPoints:
    """Read game points written as ``3``, ``3.5``, ``3½``, ``3,5`` or ``½`` into half-points."""
    raw = text.strip()
    match = _POINTS_RE.match(raw)
    if not raw or match is None or (match["whole"] is None and match["frac"] is None):
        raise ScoreError(f"malformed score {text!r}: write game points such as 3, 3.5 or 3½")
    whole = int(match["whole"] or 0)
    half = 1 if match["frac"] in (".5", "½", ",5") else 0
    return whole * 2 + half


def format_points(half: HalfPoints) -> str:
    """Half-points as FIDE prints them: ``3.5``, ``4.0``."""
    sign = "-" if half < 0 else ""
    half = abs(half)
    return f"{sign}{half // 2}.{5 if half % 2 else 0}"


@dataclass(frozen=True, slots=True)
class MatchScoring:
    """Match points for a win, draw and loss (C.07 11.1.1; default 2/1/0)."""

    win: int = 2
    draw: int = 1
    loss: int = 0

    def match_points(self, own_half: HalfPoints, other_half: HalfPoints) -> int:
        """Match points from the two teams' game points (docs/rules.md §2)."""
        if own_half > other_half:
            return self.win
        if own_half == other_half:
            return self.draw
        return self.loss


DEFAULT_SCORING = MatchScoring()


class MatchForfeit(Enum):
    """A whole match not played (TRF-2026 record 330 codes)."""

    NONE = ""
    A_WINS = "+-"
    B_WINS = "-+"
    DOUBLE = "--"

    def game_points(self, boards: int) -> tuple[HalfPoints, HalfPoints]:
        """The game points the forfeit awards team_a and team_b: the absent team loses 0–boards, a double
        forfeit scores 0–0 (docs/rules.md §2). The one place a no-show becomes a score."""
        if self is MatchForfeit.A_WINS:
            return boards * 2, 0
        if self is MatchForfeit.B_WINS:
            return 0, boards * 2
        if self is MatchForfeit.DOUBLE:
            return 0, 0
        raise ScoreError("a match without a forfeit is scored from its boards")


class ByeRequest(Enum):
    """A bye the team asked for (TRF-2026 record 240 ``F``, ``H``), or none (the pairing-allocated bye)."""

    NONE = ""
    FULL = "F"  # the match points of a won match and every board's game point
    HALF = "H"  # the match points of a drawn match and half the boards' game points

    def game_points(self, boards: int) -> HalfPoints:
        """The half-points of a requested bye (docs/trf.md, "Requested byes")."""
        if self is ByeRequest.NONE:
            raise ScoreError("a pairing-allocated bye's game points are the competition's")
        return 2 * boards if self is ByeRequest.FULL else boards

    def match_points(self, scoring: MatchScoring) -> int:
        """The match points of a requested bye: a won match's, or a drawn match's."""
        if self is ByeRequest.NONE:
            raise ScoreError("a pairing-allocated bye's match points are the competition's")
        return scoring.win if self is ByeRequest.FULL else scoring.draw


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """One match of a stage as the tie-break engine sees it.

    ``team_b`` is ``None`` for a round ``team_a`` had a bye in: the pairing-allocated bye, or the bye it
    asked for (``request``); then ``gp_a`` holds the awarded half-points. For a whole-match forfeit the
    game points hold the awarded points.
    """

    round: int
    team_a: str
    team_b: str | None
    gp_a: HalfPoints
    gp_b: HalfPoints
    forfeit: MatchForfeit = MatchForfeit.NONE
    request: ByeRequest = ByeRequest.NONE

    @classmethod
    def requested_bye(cls, round_no: int, team: str, request: ByeRequest, boards: int) -> MatchRecord:
        """The record of a requested bye of ``team`` in ``round_no`` (its game points)."""
        return cls(round_no, team, None, request.game_points(boards), 0, request=request)

    @property
    def is_bye(self) -> bool:
        return self.team_b is None

    @property
    def is_played(self) -> bool:
        return not self.is_bye and self.forfeit is MatchForfeit.NONE

    def mp(self, scoring: MatchScoring = DEFAULT_SCORING) -> tuple[int, int]:
        """Match points of team_a and team_b; a double forfeit gives both the loss value."""
        if self.forfeit is MatchForfeit.DOUBLE:
            return scoring.loss, scoring.loss
        if self.forfeit is MatchForfeit.A_WINS:
            return scoring.win, scoring.loss
        if self.forfeit is MatchForfeit.B_WINS:
            return scoring.loss, scoring.win
        return scoring.match_points(self.gp_a, self.gp_b), scoring.match_points(self.gp_b, self.gp_a)


class Colour(StrEnum):
    """A colour as the board colours and TRF-2026 record 352 write it (``W``, ``B``). ``word`` is the same
    colour as stored and shown (``white``, ``black``: the Armageddon chooser's colour, docs/rules.md §5);
    the two are mapped here only."""

    WHITE = "W"
    BLACK = "B"

    @property
    def word(self) -> str:
        return "white" if self is Colour.WHITE else "black"

    @classmethod
    def of_word(cls, word: str) -> Colour:
        """The colour whose ``word`` is ``word`` (ValueError for another word)."""
        for colour in cls:
            if colour.word == word:
                return colour
        raise ValueError(f"{word!r} is not a colour word")


def board_colours(boards: int, *, first_named: bool = True) -> tuple[str, ...]:
    """Colours of a team on each board: the first-named team has White on the odd boards (docs/rules.md
    §1)."""
    white, black = Colour.WHITE.value, Colour.BLACK.value
    odd, even = (white, black) if first_named else (black, white)
    return tuple(odd if board % 2 == 1 else even for board in range(1, boards + 1))


def match_game_points(
    results: Sequence[GameResult], *, a_is_first_named: bool = True
) -> tuple[HalfPoints, HalfPoints]:
    """Game points of the two teams from their boards' results (White's side per board).

    Board 1 is White for the first-named team (docs/rules.md §1), so on odd boards team_a is White.
    """
    a = b = 0
    for index, result in enumerate(results):
        a_white = (index % 2 == 0) == a_is_first_named
        if a_white:
            a, b = a + result.white_half, b + result.black_half
        else:
            a, b = a + result.black_half, b + result.white_half
    return a, b


def match_is_final(results: Iterable[GameResult]) -> bool:
    return all(result.is_final for result in results)


def forfeit_record(round: int, team_a: str, team_b: str, forfeit: MatchForfeit, boards: int) -> MatchRecord:
    """Whole-match forfeit record, its game points those of ``MatchForfeit.game_points``."""
    gp_a, gp_b = forfeit.game_points(boards)
    return MatchRecord(round, team_a, team_b, gp_a, gp_b, forfeit)


def no_show(*, round: int, team_a: str, team_b: str, absent: str | None, boards: int) -> MatchRecord:
    """Whole-match forfeit record: the absent team loses 0–boards; ``absent=None`` is a double forfeit."""
    if absent is None:
        forfeit = MatchForfeit.DOUBLE
    elif absent == team_b:
        forfeit = MatchForfeit.A_WINS
    elif absent == team_a:
        forfeit = MatchForfeit.B_WINS
    else:
        raise ScoreError(f"{absent!r} does not play in {team_a} – {team_b}")
    return forfeit_record(round, team_a, team_b, forfeit, boards)
