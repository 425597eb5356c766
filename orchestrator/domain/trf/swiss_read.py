"""Reading a team Swiss TRF-2026 file back into a ``SwissState``, so that our engines can pair its next
round (``olympiad pair``, docs/swiss.md).

Every record of the TRF-2026 team layout is either used, or read as information, or refused; the records
and what each does are listed in docs/trf.md ("What we read"). A file is refused in one of two ways, each
with every problem found, its line number and a reason:

- ``TrfInvalid``: the file is broken (a field that is not a number, players who do not name each other,
  points that do not add up, a record FIDE's layout does not have);
- ``TrfNotImplemented``: the file is sound but asks for what our engines do not implement (an
  acceleration, prohibited pairings, a requested bye, a system of record 192 we do not pair); FIDE's
  engine pairs such a file instead (docs/swiss.md).

Scores are exact: game points in half-points, match points whole (record 362).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from orchestrator.domain.scoring import MatchForfeit, MatchRecord, MatchScoring, format_points
from orchestrator.domain.swiss.model import ByeValue, ScoreAdjustment, SwissError, SwissState, SwissTeam
from orchestrator.domain.swiss.pairing import FIDE_TEAM_SWISS
from orchestrator.domain.trf.swiss import FIDE_TEAM_CODES, SYSTEM_CODES

# Records that describe the event and are read as information only (TRF-2026 tournament section):
# name, city, federation, dates, counts, type, arbiters, time control, round dates, starting-rank
# method, pairing controller, tie-breaks, encoded time control.
_INFORMATION = {f"{n:03d}" for n in range(12, 133, 10)} | {"172", "182", "202", "212", "222"}
_INFORMATION |= {"801", "802"}  # the informative team records
_ONCE = ("142", "152", "162", "192", "352", "362")
# Half-points a result letter of record 001 scores its player (column 99 + 10 per round).
_HALVES = {"1": 2, "+": 2, "W": 2, "F": 2, "U": 2, "=": 1, "D": 1, "H": 1}
_HALVES |= dict.fromkeys(("0", "-", "L", "Z", " "), 0)
_PLAYED = set("1=0WDL")
# Record 192: (primary score, colour model) of C.04.6 for each FIDE code our engine pairs.
_FIDE_CODES = {code: key for key, code in FIDE_TEAM_CODES.items()}
# The Baku acceleration of these codes is given by records 250, which are refused on their own.
_FIDE_CODES |= {"FIDE_TEAM_BAKU": ("mp", "A"), "FIDE_TEAM_TYPEA_MP_GP_BAKU": ("mp", "A")}
_OUR_CODES = {code: system for system, code in SYSTEM_CODES.items() if system != FIDE_TEAM_SWISS}


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem of a file: its line (0 for the file as a whole) and the reason."""

    line: int
    reason: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.reason}" if self.line else self.reason


class TrfNotReadable(ValueError):
    """A file our engines do not pair; ``problems`` lists every problem found, by line."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = tuple(sorted(problems, key=lambda p: p.line))
        super().__init__("; ".join(str(p) for p in self.problems))


class TrfInvalid(TrfNotReadable):
    """A broken file: no engine should pair it as it stands."""


class TrfNotImplemented(TrfNotReadable):
    """A sound file that asks for what our engines do not implement; FIDE's engine pairs it."""


@dataclass
class _Player:
    line: int
    rating: int
    points: Fraction | None
    cells: list[tuple[int, str, str]]  # per round: opponent (0 none), colour (w/b/-), letter (upper)
    zero: set[int] = field(default_factory=set)  # rounds whose opponent is written 0000 (not paired)

    def cell(self, rnd: int) -> tuple[int, str, str]:
        return self.cells[rnd - 1] if len(self.cells) >= rnd else (0, "-", " ")


@dataclass
class _Team:
    line: int
    name: str
    players: list[int]
    mp: Fraction | None = None
    gp: Fraction | None = None


@dataclass
class _File:
    """What the records say, before the rounds are put together."""

    invalid: list[Problem] = field(default_factory=list)
    missing: list[Problem] = field(default_factory=list)  # not implemented by our engines
    header: dict[str, tuple[int, str]] = field(default_factory=dict)
    players: dict[int, _Player] = field(default_factory=dict)
    teams: dict[int, _Team] = field(default_factory=dict)
    old_teams: list[_Team] = field(default_factory=list)  # record 013
    forfeits: dict[tuple[int, int, int], tuple[int, MatchForfeit]] = field(default_factory=dict)
    byes: dict[int, int] = field(default_factory=dict)
    bye_value: ByeValue = field(default_factory=ByeValue)
    bye_line: int = 0
    lineups: dict[tuple[int, int], tuple[int, int, list[int]]] = field(default_factory=dict)
    absent: dict[int, set[int]] = field(default_factory=dict)  # record 240 Z: team -> rounds
    adjustments: list[tuple[int, int, int, int, int]] = field(default_factory=list)
    totals: list[tuple[int, int, Fraction | None, Fraction | None]] = field(default_factory=list)  # 802

    def bad(self, line: int, reason: str) -> None:
        self.invalid.append(Problem(line, reason))

    def unsupported(self, line: int, reason: str) -> None:
        self.missing.append(Problem(line, reason))


def _text(points: Fraction) -> str:
    """Points as the file writes them (``9.5``)."""
    return format_points(int(2 * points))


def _field(text: str, start: int, end: int) -> str:
    """Columns ``start``-``end`` (1-based, inclusive), stripped."""
    return text[start - 1 : end].strip()


def _fraction(text: str) -> Fraction | None:
    try:
        return Fraction(text)
    except ValueError:
        return None


def _number(out: _File, number: int, text: str, what: str, *, whole: bool = False) -> Fraction | None:
    """A points field: blank (None), or a number in half-points, or in whole points (``whole``)."""
    if not text:
        return None
    value = _fraction(text)
    if value is None or (2 * value).denominator != 1 or (whole and value.denominator != 1):
        out.bad(number, f"{what} {text!r} is not a number of {'whole ' if whole else 'half-'}points")
        return None
    return value


def _integer(out: _File, number: int, text: str, what: str) -> int | None:
    if not text:
        return None
    if not text.isdigit():
        out.bad(number, f"{what} {text!r} is not a number")
        return None
    return int(text)


def _player(out: _File, number: int, line: str) -> None:
    """Record 001: number 5-8, rating 49-52, FIDE id 58-68, points 81-84, rank 86-89, then ten columns a
    round from column 92: opponent 92-95, colour 97, result 99."""
    pid = _integer(out, number, _field(line, 5, 8), "the player number (columns 5-8)")
    rating = _integer(out, number, _field(line, 49, 52), "the rating (columns 49-52)")
    _integer(out, number, _field(line, 58, 68), "the FIDE id (columns 58-68)")
    _integer(out, number, _field(line, 86, 89), "the rank (columns 86-89)")
    points = _number(out, number, _field(line, 81, 84), "the points (columns 81-84)")
    cells: list[tuple[int, str, str]] = []
    zero: set[int] = set()
    for rnd in range(1, max(0, (len(line) - 91 + 9) // 10) + 1):
        cell = line[91 + 10 * (rnd - 1) : 99 + 10 * (rnd - 1)].ljust(8)
        opponent = _integer(out, number, cell[:4].strip(), f"round {rnd}: the opponent (columns 92-95)")
        colour, letter = cell[5].lower(), cell[7].upper()
        if colour not in "wb- ":
            out.bad(number, f"round {rnd}: colour {cell[5]!r} is not w, b or -")
        if letter not in _HALVES and letter not in "HFUZ":
            out.bad(number, f"round {rnd}: result {cell[7]!r} is not a TRF result letter")
        cells.append((opponent or 0, colour.strip() or "-", letter))
        if cell[:4] == "0000":
            zero.add(rnd)
    if pid is None:
        if not _field(line, 5, 8):
            out.bad(number, "record 001 has no player number (columns 5-8)")
        return
    if pid in out.players:
        out.bad(number, f"player {pid} is already on line {out.players[pid].line}")
        return
    out.players[pid] = _Player(number, rating or 0, points, cells, zero)


def _team(out: _File, number: int, line: str) -> None:
    """Record 310: number 5-7, name 9-40, match points 55-60, game points 62-67, rank 69-71, the players
    from column 74, five columns each."""
    tpn = _integer(out, number, _field(line, 5, 7), "the team number (columns 5-7)")
    mp = _number(out, number, _field(line, 55, 60), "the match points (columns 55-60)")
    gp = _number(out, number, _field(line, 62, 67), "the game points (columns 62-67)")
    _integer(out, number, _field(line, 69, 71), "the rank (columns 69-71)")
    players = _roster(out, number, line, 74)
    if tpn is None:
        if not _field(line, 5, 7):
            out.bad(number, "record 310 has no team number (columns 5-7)")
        return
    if tpn in out.teams:
        out.bad(number, f"team {tpn} is already on line {out.teams[tpn].line}")
        return
    out.teams[tpn] = _Team(number, _field(line, 9, 40), players, mp, gp)


def _roster(out: _File, number: int, line: str, start: int) -> list[int]:
    """Player numbers from column ``start``, five columns each (records 310 and 013)."""
    players: list[int] = []
    for column in range(start, len(line.rstrip()) + 1, 5):
        pid = _integer(out, number, _field(line, column, column + 3), f"the player at column {column}")
        if pid:
            players.append(pid)
    return players


def _fields(out: _File, number: int, line: str, spec: Sequence[tuple[int, int, str]]) -> list[int] | None:
    """Required whole-number fields; None (each problem noted) when one is missing or not a number."""
    values: list[int] = []
    for start, end, what in spec:
        text = _field(line, start, end)
        value = _integer(out, number, text, what)
        if value is None:
            if not text:
                out.bad(number, f"{what} is missing")
            return None
        values.append(value)
    return values


def _forfeit(out: _File, number: int, line: str) -> None:
    """Record 330: type 5-6 (``+-``, ``-+``, ``--``), round 8-10, white team 12-14, black team 16-18."""
    kinds = {f.value: f for f in MatchForfeit if f is not MatchForfeit.NONE}
    kind = kinds.get(line[4:6])
    if kind is None:
        out.bad(number, f"the forfeit type {line[4:6]!r} (columns 5-6) is not +-, -+ or --")
    spec = (
        (8, 10, "the round (columns 8-10)"),
        (12, 14, "the white team (12-14)"),
        (16, 18, "the black team (16-18)"),
    )
    values = _fields(out, number, line, spec)
    if kind is not None and values is not None:
        out.forfeits[values[0], values[1], values[2]] = (number, kind)


def _bye(out: _File, number: int, line: str) -> None:
    """Record 320: match points 5-8 and game points 10-13 of a pairing-allocated bye, then the team that
    had it in each round from column 15, four columns a round (blank or ``000``: none)."""
    if out.bye_line:
        out.bad(number, f"record 320 is already on line {out.bye_line}")
        return
    out.bye_line = number
    mp = _number(out, number, _field(line, 5, 8), "the match points of a bye (columns 5-8)", whole=True)
    gp = _number(out, number, _field(line, 10, 13), "the game points of a bye (columns 10-13)")
    out.bye_value = ByeValue(None if mp is None else int(mp), None if gp is None else int(2 * gp))
    for rnd, column in enumerate(range(15, len(line.rstrip()) + 1, 4), 1):
        team = _integer(
            out, number, _field(line, column, column + 2), f"round {rnd}: the team (column {column})"
        )
        if team:
            out.byes[rnd] = team


def _lineup(out: _File, number: int, line: str) -> None:
    """Record 300: round 5-7, team 9-11, opponent 13-15, then the players board by board from column 17,
    five columns each (``0`` for an empty board)."""
    spec = ((5, 7, "the round (columns 5-7)"), (9, 11, "the team (columns 9-11)"))
    values = _fields(out, number, line, spec)
    opponent = _integer(out, number, _field(line, 13, 15), "the opponent (columns 13-15)") or 0
    players: list[int] = []
    for column in range(17, len(line.rstrip()) + 1, 5):
        pid = _integer(out, number, _field(line, column, column + 3), f"the player at column {column}")
        players.append(pid or 0)
    if values is not None:
        out.lineups[values[0], values[1]] = (number, opponent, players)


def _requested_bye(out: _File, number: int, line: str) -> None:
    """Record 240: type 5 (``F``, ``H``, ``Z``), round 7-9, then teams from column 11, five columns each.
    A zero-point bye is an absence; our engines do not implement half- and full-point byes."""
    kind = line[4:5].upper()
    values = _fields(out, number, line, ((7, 9, "the round (columns 7-9)"),))
    teams = [int(t) for t in line[10:].split() if t.isdigit()]  # split at spaces and tabs alike
    if kind not in ("F", "H", "Z"):
        out.bad(number, f"the bye type {line[4:5]!r} (column 5) is not F, H or Z")
    elif kind != "Z":
        out.unsupported(
            number,
            f"record 240 gives a {'full' if kind == 'F' else 'half'}-point bye, not implemented by us",
        )
    elif values is not None:
        for team in teams:
            out.absent.setdefault(team, set()).add(values[0])


def _adjustment(out: _File, number: int, line: str) -> None:
    """Record 299: type 5 (blank: points added or taken away), match points 8-11, game points 14-17,
    round 20-22 (blank or ``0``: from the start; ``999``: the standings only), teams from column 24."""
    kind = line[4:5].strip()
    mp = _number(out, number, _field(line, 8, 11), "the match points (columns 8-11)")
    gp = _number(out, number, _field(line, 14, 17), "the game points (columns 14-17)")
    rnd = _integer(out, number, _field(line, 20, 22), "the round (columns 20-22)") or 0
    teams: list[int] = []
    for column in range(24, len(line.rstrip()) + 1, 5):
        team = _integer(out, number, _field(line, column, column + 3), f"the team at column {column}")
        if team:
            teams.append(team)
    if kind:
        out.unsupported(
            number,
            f"record 299 of type {kind!r} assigns a result; our engines implement only the blank type "
            "(points added or taken away)",
        )
        return
    if not teams:
        out.bad(number, "record 299 names no team (from column 24)")
    if mp is not None and mp.denominator != 1:
        out.unsupported(number, "record 299 gives fractional match points")
        return
    for team in teams:
        out.adjustments.append((number, team, rnd, int(mp or 0), int(2 * (gp or 0))))


def _informative_totals(out: _File, number: int, line: str) -> None:
    """Record 802: team 5-7, match points 15-20 and game points 22-27 (checked against the rounds)."""
    team = _integer(out, number, _field(line, 5, 7), "the team (columns 5-7)")
    mp = _number(out, number, _field(line, 15, 20), "the match points (columns 15-20)")
    gp = _number(out, number, _field(line, 22, 27), "the game points (columns 22-27)")
    if team is not None:
        out.totals.append((number, team, mp, gp))


def _old_team(out: _File, number: int, line: str) -> None:
    """Record 013 (TRF16): name 5-36, players from column 37, five columns each; the teams of a file
    without record 310, numbered in the order of their records."""
    out.old_teams.append(_Team(number, _field(line, 5, 36), _roster(out, number, line, 37)))


_READERS = {
    "001": _player,
    "013": _old_team,
    "240": _requested_bye,
    "299": _adjustment,
    "300": _lineup,
    "310": _team,
    "320": _bye,
    "330": _forfeit,
    "802": _informative_totals,
}
_REFUSED = {
    "250": "record 250 accelerates rounds, which our engines do not implement",
    "260": "record 260 prohibits pairings, which our engines do not implement",
}


def _records(text: str) -> _File:
    """Every line of the file read by its record number (columns 1-3)."""
    out = _File()
    for number, line in enumerate(text.splitlines(), 1):  # without its line ending
        tag = line[:3]
        if not line.strip() or tag == "###":
            continue  # TRF-2026 comment lines start with ###
        if tag in _READERS:
            _READERS[tag](out, number, line)
        elif tag in _REFUSED:
            out.unsupported(number, _REFUSED[tag])
        elif tag in _ONCE:
            if tag in out.header:
                out.bad(number, f"record {tag} is already on line {out.header[tag][0]}")
            else:
                out.header[tag] = (number, line[4:].strip())
        elif tag in _INFORMATION:
            out.header.setdefault(tag, (number, line[4:].strip()))
        elif len(tag) == 3 and tag.isalpha() and tag.isupper():
            continue  # a national rating record (federation code, same columns as 001): information
        else:
            out.bad(number, f"{tag!r} is not a record of the TRF-2026 team layout")
    return out


def _header(out: _File) -> tuple[int, str, str, MatchScoring, str, str, str]:
    """Rounds (142), initial colour (152), board colours (352), match points (362), and the pairing
    system, primary score and colour model (192)."""
    line, code = out.header.get("192", (0, FIDE_TEAM_CODES["mp", "A"]))
    code = code.upper()
    system, primary, model = FIDE_TEAM_SWISS, "mp", "A"
    if code in _FIDE_CODES:
        primary, model = _FIDE_CODES[code]
    elif code in _OUR_CODES:
        system = _OUR_CODES[code]
    else:
        out.unsupported(line, f"record 192 names {code}, a system our engines do not implement")
    line, text = out.header.get("142", (0, ""))
    if not text.isdigit() or int(text) < 1:
        out.bad(
            line,
            "record 142 (the number of rounds) is missing"
            if not line
            else f"the number of rounds {text!r} is not a number",
        )
    rounds = int(text) if text.isdigit() else 0
    line, text = out.header.get("162", (0, ""))
    tokens = text.split()
    standard = {
        "W": Fraction(1),
        "D": Fraction(1, 2),
        "L": Fraction(0),
        "A": Fraction(0),
        "P": Fraction(1),
        "X": Fraction(1, 2),
    }
    for letter, value in zip(tokens[::2], tokens[1::2], strict=False):
        points = _fraction(value)
        if letter.upper() not in standard or points is None:
            out.bad(line, f"record 162: {letter} {value} is not a game result and its points")
        elif points != standard[letter.upper()]:
            out.unsupported(line, f"record 162 scores {letter} {value}; our engines score games 1, ½, 0")
    if len(tokens) % 2:
        out.bad(line, f"record 162: {tokens[-1]!r} has no points")
    line, text = out.header.get("362", (0, "TW 2 TD 1 TL 0"))
    tokens = text.split()
    given = dict(zip((t.upper() for t in tokens[::2]), tokens[1::2], strict=False))
    scores = {"TW": Fraction(2), "TD": Fraction(1), "TL": Fraction(0)}
    for key, value in given.items():
        points = _fraction(value)
        if key not in scores or points is None:
            out.bad(line, f"record 362: {key} {value} is not a match result (TW, TD, TL) and its points")
        elif points.denominator != 1:
            out.unsupported(line, f"record 362 gives {key} fractional match points")
        else:
            scores[key] = points
    if not scores["TW"] >= scores["TD"] >= scores["TL"]:
        out.bad(line, "record 362 scores a loss above a draw or a draw above a win")
    line, initial = out.header.get("152", (0, "W"))
    initial = initial.upper()
    if initial not in ("W", "B"):
        out.bad(line, f"the initial colour {initial!r} (record 152) is neither W nor B")
    line, colours = out.header.get("352", (0, ""))
    colours = colours.upper()
    if colours.strip("WB"):
        out.bad(line, f"record 352 {colours!r} is not a sequence of W and B")
    elif colours and colours != "".join("WB"[i % 2] for i in range(len(colours))):
        out.unsupported(
            line, f"record 352 {colours}: our engines give the first-named team White on the odd boards"
        )
    scoring = MatchScoring(*(int(scores[k]) for k in ("TW", "TD", "TL")))
    initial = "B" if initial == "B" else "W"  # a wrong one is listed above; the state needs one
    return rounds, initial, colours, scoring, system, primary, model


class _Rounds:
    """The matches of each round, put together from the players' cells (record 001), the line-ups (300),
    the pairing-allocated byes (320) and the whole-match forfeits (330)."""

    def __init__(self, out: _File, teams: list[_Team], rounds: int) -> None:
        self.out = out
        self.teams = teams
        self.rounds = rounds
        self.team_of: dict[int, int] = {}
        for number, team in enumerate(teams, 1):
            for pid in team.players:
                if pid in self.team_of:
                    out.bad(team.line, f"player {pid} is already in team {self.team_of[pid]}")
                elif pid not in out.players:
                    out.bad(team.line, f"player {pid} of team {number} has no record 001")
                else:
                    self.team_of[pid] = number
        for pid, player in out.players.items():
            if pid not in self.team_of:
                out.bad(player.line, f"player {pid} is in no team (record 310)")

    def opponent(self, number: int, rnd: int) -> int:
        """The team that ``number`` met in ``rnd`` (0 for none), every player's cell checked."""
        found: set[int] = set()
        out = self.out
        for pid in self.teams[number - 1].players:
            player = out.players.get(pid)
            if player is None:
                continue
            other, colour, _ = player.cell(rnd)
            if not other:
                continue
            if other not in self.team_of:
                out.bad(player.line, f"round {rnd}: opponent {other} is no player of the file")
                continue
            theirs = out.players[other].cell(rnd)
            if theirs[0] != pid or {colour, theirs[1]} != {"w", "b"}:
                out.bad(
                    player.line,
                    f"round {rnd}: players {pid} and {other} do not name each other with opposite colours",
                )
            if self.team_of[other] == number:
                out.bad(player.line, f"round {rnd}: player {pid} meets a player of their own team")
                continue
            found.add(self.team_of[other])
        lineup = out.lineups.get((rnd, number))
        if lineup is not None and lineup[1]:
            found.add(lineup[1])
        for white, black in ((w, b) for (r, w, b) in out.forfeits if r == rnd):
            if number in (white, black):
                found.add(black if number == white else white)
        if len(found) > 1:
            line = self.teams[number - 1].line
            out.bad(line, f"round {rnd}: team {number} meets teams {', '.join(map(str, sorted(found)))}")
            return 0
        return found.pop() if found else 0

    def half_points(self, number: int, rnd: int) -> tuple[int, bool, bool]:
        """(game half-points, any game played, any result pending) of a team in ``rnd``."""
        total, played, pending = 0, False, False
        for pid in self.teams[number - 1].players:
            player = self.out.players.get(pid)
            if player is None:
                continue
            other, _, letter = player.cell(rnd)
            total += _HALVES.get(letter, 0)
            played |= letter in _PLAYED
            pending |= bool(other) and letter == " "
        return total, played, pending

    def letters(self, number: int, rnd: int) -> set[str]:
        """The result letters of a team's players in ``rnd``."""
        rows = (self.out.players.get(pid) for pid in self.teams[number - 1].players)
        return {row.cell(rnd)[2] for row in rows if row is not None}

    def board_one_white(self, number: int, rnd: int) -> bool | None:
        """Whether the team's first board had White (record 300's line-up, else its first player in
        record-310 order with an opponent); None when no board of the team had an opponent."""
        lineup = self.out.lineups.get((rnd, number))
        order = [pid for pid in lineup[2] if pid] if lineup else self.teams[number - 1].players
        for pid in order:
            player = self.out.players.get(pid)
            if player is not None and player.cell(rnd)[0]:
                return player.cell(rnd)[1] == "w"
        return None


def _team_list(out: _File) -> list[_Team]:
    """The teams in pairing-number order: record 310, or record 013 in a file without 310."""
    if not out.teams:
        if not out.old_teams:
            out.bad(0, "the file has no team records (310)")
        return out.old_teams
    teams: list[_Team] = []
    for expected, number in enumerate(sorted(out.teams), 1):
        if number != expected:
            out.bad(out.teams[number].line, f"team {number}: the team numbers of record 310 skip {expected}")
        teams.append(out.teams[number])
    for number, old in enumerate(out.old_teams, 1):
        if number in out.teams and out.teams[number].players != old.players:
            line = out.teams[number].line
            out.bad(
                old.line, f"record 013 lists other players than record 310 of team {number} (line {line})"
            )
    return teams


def _counts(out: _File, teams: list[_Team]) -> None:
    """Records 062 and 082, when given, count the players and the teams of the file."""
    for tag, what, count in (("062", "players", len(out.players)), ("082", "teams", len(teams))):
        if tag not in out.header:
            continue
        line, text = out.header[tag]
        if text and (not text.isdigit() or int(text) != count):
            out.bad(line, f"record {tag} says {text} {what}; the file has {count}")


def _player_points(out: _File) -> None:
    """The points of each record 001 (columns 81-84) are the sum of its results."""
    for pid, player in out.players.items():
        total = sum(_HALVES.get(letter, 0) for _, _, letter in player.cells)
        if player.points is not None and 2 * player.points != total:
            out.bad(
                player.line,
                f"player {pid}: the points {_text(player.points)} are not the results' sum "
                f"({format_points(total)})",
            )


def _match(reader: _Rounds, rnd: int, a: int, b: int, boards: int) -> MatchRecord:
    """The match of teams ``a`` < ``b`` in ``rnd``: first-named team, game points, forfeit."""
    out = reader.out
    gp_a, played_a, _ = reader.half_points(a, rnd)
    gp_b, played_b, _ = reader.half_points(b, rnd)
    record = out.forfeits.get((rnd, a, b)) or out.forfeits.get((rnd, b, a))
    played = played_a or played_b
    if record is not None:
        line, kind = record
        if played:
            out.bad(
                line,
                f"round {rnd}: record 330 forfeits the match of teams {a} and {b}, whose boards were played",
            )
        first = a if (rnd, a, b) in out.forfeits else b
    else:
        white = reader.board_one_white(a, rnd)
        first = a if white is not False and (white or reader.board_one_white(b, rnd) is not True) else b
        kind = MatchForfeit.NONE
        if not played and not (gp_a and gp_b):  # every board forfeited: the match was not played
            ahead = {a: gp_a - gp_b, b: gp_b - gp_a}[first]
            kind = (
                MatchForfeit.A_WINS
                if ahead > 0
                else MatchForfeit.B_WINS
                if ahead < 0
                else MatchForfeit.DOUBLE
            )
    if gp_a + gp_b > 2 * boards:
        out.bad(reader.teams[a - 1].line, f"round {rnd}: teams {a} and {b} score more than {boards} boards")
    second = b if first == a else a
    gp = (gp_a, gp_b) if first == a else (gp_b, gp_a)
    return MatchRecord(rnd, reader.teams[first - 1].name, reader.teams[second - 1].name, *gp, kind)


def read_team_trf(text: str) -> tuple[SwissState, int]:
    """The state of a team Swiss TRF-2026 file and the round to pair next.

    Raises ``TrfInvalid`` or ``TrfNotImplemented`` with every problem found, by line (docs/trf.md).
    """
    out = _records(text)
    rounds, initial, colours, scoring, system, primary, model = _header(out)
    if out.missing and not out.invalid:
        raise TrfNotImplemented(out.missing)
    teams = _team_list(out)
    _counts(out, teams)
    _player_points(out)
    boards = len(colours) or max((len(team.players) for team in teams), default=0) or 1
    reader = _Rounds(out, teams, rounds)
    names = [team.name for team in teams]
    if len(set(names)) != len(names) or len(teams) < 2:
        out.bad(0, "a Swiss needs at least two teams, each with its own name (record 310)")
        raise TrfInvalid(out.invalid + out.missing)
    matches: list[MatchRecord] = []
    absent: dict[int, set[int]] = {n: set(out.absent.get(n, ())) for n in range(1, len(teams) + 1)}
    played = 0
    for rnd in range(1, rounds + 1):
        found: list[MatchRecord] = []
        unpaired: list[int] = []
        for number in range(1, len(teams) + 1):
            other = reader.opponent(number, rnd)
            if out.byes.get(rnd) == number:
                if other:
                    out.bad(out.bye_line, f"round {rnd}: team {number} has the bye and meets team {other}")
                gp = boards if out.bye_value.gp is None else out.bye_value.gp
                found.append(MatchRecord(rnd, teams[number - 1].name, None, gp, 0))
            elif not other:
                unpaired.append(number)
                byes = "".join(sorted(reader.letters(number, rnd) & set("HFU")))
                if byes:
                    out.unsupported(
                        teams[number - 1].line,
                        f"round {rnd}: team {number} has byes in its players' results ({byes}) without "
                        "record 320; not implemented by us",
                    )
                elif reader.half_points(number, rnd)[0]:
                    out.bad(
                        teams[number - 1].line,
                        f"round {rnd}: team {number} scores without an opponent or a bye (records 320, 330)",
                    )
            elif number < other:
                if any(reader.half_points(n, rnd)[2] for n in (number, other)):
                    out.missing.append(Problem(0, f"round {rnd} is paired but not all its results are in"))
                    continue
                found.append(_match(reader, rnd, number, other, boards))
        if out.missing:
            break
        if not found:
            for number in unpaired:
                rows = [out.players[p] for p in teams[number - 1].players if p in out.players]
                if rows and all(rnd in row.zero for row in rows):
                    absent[number].add(rnd)  # marked as not paired in the round to pair
            break
        played = rnd
        matches += found
        for number in unpaired:
            absent[number].add(rnd)
    if out.missing:  # a round left to FIDE's engine: what follows it is not read
        raise (TrfInvalid if out.invalid else TrfNotImplemented)(out.invalid + out.missing)
    for pid, player in out.players.items():
        late = [
            r for r, cell in enumerate(player.cells, 1) if r > played + 1 and (cell[0] or cell[2] in "1=0+")
        ]
        if late:
            out.bad(
                player.line,
                f"player {pid} has results in round {late[0]}, after round {played + 1} that has none",
            )
    adjustments: list[ScoreAdjustment] = []
    for line, number, rnd, mp, gp in out.adjustments:
        if not 1 <= number <= len(teams):
            out.bad(line, f"record 299 names team {number}, which the file does not have")
            continue
        pairing = rnd != 999
        adjustments.append(ScoreAdjustment(names[number - 1], rnd if pairing else 0, mp, gp, pairing))
    for number in out.byes.values():
        if not 1 <= number <= len(teams):
            out.bad(out.bye_line, f"record 320 names team {number}, which the file does not have")
    swiss_teams = tuple(
        SwissTeam(
            team.name,
            tuple(out.players[p].rating for p in team.players if p in out.players),
            absent=frozenset(r for r in absent[n] if r <= played + 1),
        )
        for n, team in enumerate(teams, 1)
    )
    try:
        state = SwissState(
            swiss_teams,
            boards,
            rounds,
            tuple(matches),
            scoring,
            out.bye_value,
            initial,
            system,
            primary=primary,
            colour_model=model,
            adjustments=tuple(adjustments),
        )
    except SwissError as error:  # what a state cannot hold (no rounds, say), already listed by line
        raise TrfInvalid(out.invalid or [Problem(0, str(error))]) from None
    _totals(out, state, teams)
    if out.invalid:
        raise TrfInvalid(out.invalid)
    return state, played + 1


def _totals(out: _File, state: SwissState, teams: list[_Team]) -> None:
    """The informative scores (record 310 columns 55-67, record 802) agree with the rounds read."""
    given = [(team.line, number, team.mp, team.gp) for number, team in enumerate(teams, 1)]
    for line, number, mp, gp in [*given, *out.totals]:
        if not 1 <= number <= len(teams):
            out.bad(line, f"team {number} is not a team of the file")
            continue
        own_mp, own_gp = state.points(teams[number - 1].name)
        if mp is not None and mp != own_mp:
            out.bad(line, f"team {number}: {_text(mp)} match points given, {own_mp} from the rounds read")
        if gp is not None and gp != Fraction(own_gp, 2):
            out.bad(
                line,
                f"team {number}: {_text(gp)} game points given, {format_points(own_gp)} from the rounds read",
            )
