"""Reading a whole team event from a TRF-2026 file, board by board, so that it can be stored and played
on (``olympiad import-trf``, the staff upload; docs/trf.md, "Importing").

``read_team_trf`` (``swiss_read``) reads the file into a ``SwissState`` and refuses it, line by line,
when it is broken or asks for what our engines do not implement. This module adds what the state leaves
out: each player's record 001 (name, sex, title, federation, FIDE id, birth year, rating), each team's
federation (record 310, columns 42-46), and each match board by board (who sat on which board, the
colours and the result letters), and refuses, with the line, what the server cannot hold: a board whose
colours do not follow record 352 (the first-named team White on the odd boards, docs/rules.md §1),
more players in a match than boards, a bye worth other points than a drawn match and half the boards
(C.04.6 art. 3.4 as the server scores it), and an acceleration (250) or a prohibited pairing (260) of a
round still to pair, which the Swiss desk does not apply. The points of record 299 that credit a team not
paired in a round with a drawn match (what a bye is worth) are that round's bye; every other 299 (a
penalty, a bonus of another value) is kept as it is (``TrfEvent.adjustments``), stored as the stage's
bonus and penalty points. A requested full- or half-point bye (record 240 ``F``, ``H``) of a round
played or of the round to pair is kept apart from the absences (``TrfEvent.requested``).

Pure: text in, frozen values out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from orchestrator.domain.scoring import GameResult, MatchForfeit, MatchRecord, board_colours
from orchestrator.domain.swiss.model import SwissState
from orchestrator.domain.trf.records import synthesise_boards
from orchestrator.domain.trf.swiss_read import read_team_trf
from orchestrator.domain.trf.swiss_records import (
    Problem,
    RecordFile,
    TrfInvalid,
    TrfNotImplemented,
    read_records,
)

# FIDE titles as the event file takes them (docs/event-file.md); another title is left out.
TITLES = frozenset({"GM", "IM", "WGM", "FM", "WIM", "CM", "WFM", "WCM"})
# Result letters of two facing players (own first) and the board's result with the first player White.
_BOARD_RESULTS = {
    ("1", "0"): GameResult.WHITE_WINS,
    ("W", "L"): GameResult.WHITE_WINS,
    ("=", "="): GameResult.DRAW,
    ("D", "D"): GameResult.DRAW,
    ("0", "1"): GameResult.BLACK_WINS,
    ("L", "W"): GameResult.BLACK_WINS,
    ("+", "-"): GameResult.WHITE_WINS_FORFEIT,
    ("-", "+"): GameResult.BLACK_WINS_FORFEIT,
    ("-", "-"): GameResult.DOUBLE_FORFEIT,
    ("0", "0"): GameResult.DOUBLE_FORFEIT,  # both lost the board: no side scores (C.04.6 art. 1.6.1)
}


_WRONG_COLOUR = "has the other colour than the first-named team's on the odd boards (record 352) on board"
_TO_PAIR = (
    "record %d %s rounds %d to %d, and round %d is still to pair; the Swiss desk pairs without "
    "accelerations and prohibited pairings: pair the file with olympiad pair"
)


@dataclass(frozen=True, slots=True)
class TrfPlayer:
    """A player's record 001: number 5-8, sex 10 (``m``, ``w`` stored as ``f``; None when blank), title
    11-13, name 15-47, rating 49-52 (0 unrated), federation 54-56, FIDE id 58-68, birth year 70-73."""

    number: int
    line: int
    name: str
    sex: str | None
    title: str | None
    rating: int
    federation: str | None
    fide_id: int | None
    birth_year: int | None


@dataclass(frozen=True, slots=True)
class TrfTeam:
    """A team of record 310 (or 013): its number, name, federation text (columns 42-46) and players in
    board order."""

    number: int
    line: int
    name: str
    federation: str
    players: tuple[TrfPlayer, ...]


@dataclass(frozen=True, slots=True)
class TrfBoard:
    """One board of a match: the first-named team's player and the other's (None: an empty board) and
    the result from White's side; the first-named team has White on the odd boards."""

    board: int
    first: int | None
    second: int | None
    result: GameResult


@dataclass(frozen=True, slots=True)
class TrfMatch:
    """A match of a round: the first-named team's number, the other's, the whole-match forfeit and the
    boards (``boards`` of them)."""

    round: int
    first: int
    second: int
    forfeit: MatchForfeit
    boards: tuple[TrfBoard, ...]


@dataclass(frozen=True, slots=True)
class TrfAdjustment:
    """Record 299 with a blank type, as stored: ``mp`` match points and ``gp`` game half-points added to
    (negative: taken from) team ``team``'s score after round ``round`` (0: from the start); ``pairing``
    False for round 999, the standings only (``round`` then 0)."""

    line: int
    team: int
    round: int
    mp: int
    gp: int
    pairing: bool


@dataclass(frozen=True, slots=True)
class TrfEvent:
    """What a file holds: its name, the Swiss state (``read_team_trf``), the rounds played, the teams,
    every match board by board, each round's bye, the teams not paired (absent) in each round and the
    requested byes of each round (record 240 ``F``, ``H``; those teams are not in ``absent``) and the bonus
    and penalty points (record 299) not stored as a bye."""

    name: str
    state: SwissState
    played: int
    teams: tuple[TrfTeam, ...]
    matches: tuple[TrfMatch, ...]
    byes: dict[int, int]  # round -> team number
    absent: dict[int, frozenset[int]]  # round -> team numbers
    requested: dict[int, dict[int, bool]]  # round -> team number -> a full-point bye (else half-point)
    adjustments: tuple[TrfAdjustment, ...] = ()

    def team_number(self, name: str) -> int:
        return next(team.number for team in self.teams if team.name == name)


def _int(text: str) -> int | None:
    text = text.strip()
    return int(text) if text.isascii() and text.isdigit() and int(text) else None


def _player(number: int, line: int, raw: str, rating: int) -> TrfPlayer:
    sex = {"m": "m", "w": "f", "f": "f"}.get(raw[9:10].lower())
    title = raw[10:13].strip().upper()
    federation = raw[53:56].strip().upper()
    return TrfPlayer(
        number=number,
        line=line,
        name=" ".join(raw[14:47].split()) or f"Player {number}",
        sex=sex,
        title=title if title in TITLES else None,
        rating=rating,
        federation=federation if len(federation) == 3 and federation.isalpha() else None,
        fide_id=_int(raw[57:68]),
        birth_year=_int(raw[69:73]),
    )


def _teams(out: RecordFile, lines: Sequence[str], state: SwissState) -> tuple[TrfTeam, ...]:
    """The teams in pairing-number order (``read_team_trf`` checked records 310 and 013)."""
    rows = [out.teams[n] for n in sorted(out.teams)] if out.teams else list(out.old_teams)
    teams: list[TrfTeam] = []
    for number, row in enumerate(rows, 1):
        raw = lines[row.line - 1]
        federation = raw[41:46].strip() if out.teams else ""
        players = tuple(
            _player(pid, out.players[pid].line, lines[out.players[pid].line - 1], out.players[pid].rating)
            for pid in row.players
        )
        teams.append(TrfTeam(number, row.line, state.teams[number - 1].name, federation, players))
    return tuple(teams)


class _Boards:
    """Puts each match's boards together from the players' cells (record 001) and line-ups (300)."""

    def __init__(self, out: RecordFile, teams: Sequence[TrfTeam], boards: int) -> None:
        self.out = out
        self.teams = teams
        self.boards = boards
        self.problems: list[Problem] = []

    def seated(self, number: int, rnd: int, opponent: int) -> dict[int, int]:
        """The team's players of the match by board: record 300's line-up (its boards, ``0`` an empty
        one), else the roster's order; a player sits when facing a player of ``opponent`` or winning a
        board left empty (``+``)."""
        lineup = self.out.lineups.get((rnd, number))
        order = list(lineup[2]) if lineup else [p.number for p in self.teams[number - 1].players]
        theirs = {p.number for p in self.teams[opponent - 1].players}
        seated: dict[int, int] = {}
        for position, pid in enumerate(order, 1):
            player = self.out.players.get(pid)
            if player is None:
                continue
            other, _, letter = player.cell(rnd)
            if other in theirs or (not other and letter == "+"):
                seated[position if lineup else len(seated) + 1] = pid
        return seated

    def match(self, record: MatchRecord, first: int, second: int) -> TrfMatch:
        rnd, out = record.round, self.out
        if record.forfeit is not MatchForfeit.NONE:
            results = synthesise_boards(record, self.boards)
            forfeited = tuple(TrfBoard(k, None, None, r) for k, r in enumerate(results, 1))
            return TrfMatch(rnd, first, second, record.forfeit, forfeited)
        slots: dict[int, tuple[int | None, int | None]] = {}
        for k, pid in self.seated(first, rnd, second).items():
            slots[k] = (pid, out.players[pid].cell(rnd)[0] or None)
        placed = {pid for pair in slots.values() for pid in pair if pid}
        for pid in self.seated(second, rnd, first).values():
            if pid not in placed:  # facing a board the first-named team left empty: the first one
                slots[min(set(range(1, len(slots) + 2)) - set(slots))] = (None, pid)
        if slots and max(slots) > self.boards:
            line = self.teams[first - 1].line
            self.problems.append(
                Problem(line, f"round {rnd}: teams {first} and {second} play more than {self.boards} boards")
            )
        colours = board_colours(self.boards)
        boards: list[TrfBoard] = []
        for k in range(1, self.boards + 1):
            if k in slots:
                boards.append(self._board(rnd, k, colours[k - 1], *slots[k]))
            else:  # a board nobody sat at: lost by both
                boards.append(TrfBoard(k, None, None, GameResult.DOUBLE_FORFEIT))
        return TrfMatch(rnd, first, second, MatchForfeit.NONE, tuple(boards))

    def _board(self, rnd: int, k: int, colour: str, first: int | None, second: int | None) -> TrfBoard:
        """Board ``k``: the first-named team's player is White on the odd boards; a player facing an empty
        board won it by forfeit (``seated``)."""
        if first is None or second is None:
            won = GameResult.WHITE_WINS_FORFEIT if first else GameResult.BLACK_WINS_FORFEIT
            return TrfBoard(k, first, second, won if colour == "W" else won.reversed())
        cell_a, cell_b = self.out.players[first].cell(rnd), self.out.players[second].cell(rnd)
        line = self.out.players[first].line
        if cell_a[1] != colour.lower():
            self.problems.append(Problem(line, f"round {rnd}: player {first} {_WRONG_COLOUR} {k}"))
        found = _BOARD_RESULTS.get((cell_a[2], cell_b[2]))
        if found is None:
            self.problems.append(Problem(line, f"round {rnd}: board {k} results {cell_a[2]} and {cell_b[2]}"))
            found = GameResult.DOUBLE_FORFEIT
        return TrfBoard(k, first, second, found if colour == "W" else found.reversed())


def read_team_event(text: str) -> TrfEvent:
    """The event of a team Swiss TRF-2026 file (module docstring); ``TrfInvalid`` or ``TrfNotImplemented``
    with every problem found, by line (docs/trf.md)."""
    state, next_round = read_team_trf(text)
    out = read_records(text)
    lines = text.splitlines()
    teams = _teams(out, lines, state)
    missing: list[Problem] = []
    mp, gp = out.bye_value.mp, out.bye_value.gp
    if (mp is not None and mp != state.scoring.draw) or (gp is not None and gp != state.boards):
        missing.append(
            Problem(
                out.bye_line,
                "record 320: the server scores a pairing-allocated bye as a drawn match and half the boards",
            )
        )
    if (state.primary, state.colour_model) != ("mp", "A"):
        missing.append(
            Problem(
                out.header["192"][0],
                "record 192: the server pairs with match points primary and Type A colours only",
            )
        )
    played = next_round - 1
    boards = _Boards(out, teams, state.boards)
    number = {team.name: team.number for team in teams}
    matches: list[TrfMatch] = []
    byes: dict[int, int] = {}
    for record in state.matches:
        if record.team_b is None:
            byes[record.round] = number[record.team_a]
        else:
            matches.append(boards.match(record, number[record.team_a], number[record.team_b]))
    missing += boards.problems
    requested: dict[int, dict[int, bool]] = {}
    for bye in state.requested_byes:
        requested.setdefault(bye.round, {})[number[bye.team]] = bye.full
    absent = {
        rnd: {n for n, team in enumerate(state.teams, 1) if rnd in team.absent} - set(requested.get(rnd, ()))
        for rnd in range(1, played + 2)
    }
    adjustments: list[TrfAdjustment] = []
    for line, team, rnd, adjusted_mp, adjusted_gp in out.adjustments:
        credit = (adjusted_mp, adjusted_gp) == (state.scoring.draw, state.boards)
        if credit and 1 <= rnd <= played and team in absent[rnd] and rnd not in byes:
            byes[rnd] = team  # a team not paired, credited a drawn match: stored as the round's bye
            absent[rnd].discard(team)
        else:  # read_team_trf refused a 299 naming a team the file does not have
            pairing = rnd != 999
            adjustments.append(
                TrfAdjustment(line, team, rnd if pairing else 0, adjusted_mp, adjusted_gp, pairing)
            )
    missing += _pairing_requests(out, played)
    if missing:
        raise TrfNotImplemented(missing)
    name = out.header.get("012", (0, ""))[1] or "Imported event"
    frozen = {rnd: frozenset(teams) for rnd, teams in absent.items()}
    return TrfEvent(name, state, played, teams, tuple(matches), byes, frozen, requested, tuple(adjustments))


def _pairing_requests(out: RecordFile, played: int) -> list[Problem]:
    """Records 250 and 260 the server cannot hold: an acceleration or a prohibition of a round still to
    pair (the Swiss desk pairs without them). Those of rounds already played need nothing."""
    problems = [
        Problem(
            line, _TO_PAIR % (250, "accelerates", a.first_round, a.last_round, max(a.first_round, played + 1))
        )
        for line, a in out.accelerations
        if a.last_round > played
    ]
    problems += [
        Problem(line, _TO_PAIR % (260, "prohibits pairings in", first, last, max(first, played + 1)))
        for line, first, last, _teams in out.prohibitions
        if last > played
    ]
    return problems


__all__ = [
    "TrfAdjustment",
    "TrfEvent",
    "TrfInvalid",
    "TrfMatch",
    "TrfNotImplemented",
    "TrfPlayer",
    "TrfTeam",
    "read_team_event",
]
