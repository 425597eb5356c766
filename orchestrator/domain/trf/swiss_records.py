"""The records of a team Swiss TRF-2026 file, line by line: each record read into ``RecordFile`` by its
number (columns 1-3), or kept as information, or refused with its line and a reason (docs/trf.md,
"What we read"). ``swiss_read`` puts the rounds together from what this module reads.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from orchestrator.domain.scoring import MatchForfeit, format_points
from orchestrator.domain.swiss.model import Acceleration, ByeValue
from orchestrator.domain.swiss.pairing import FIDE_TEAM_SWISS
from orchestrator.domain.trf.swiss import FIDE_TEAM_CODES, SYSTEM_CODES

# Records that describe the event and are read as information only (TRF-2026 tournament section):
# name, city, federation, dates, counts, type, arbiters, time control, round dates, starting-rank
# method, pairing controller, tie-breaks, encoded time control.
_INFORMATION = {f"{n:03d}" for n in range(12, 133, 10)} | {"172", "182", "202", "212", "222"}
_INFORMATION |= {"801", "802"}  # the informative team records
_ONCE = ("142", "152", "162", "192", "352", "362")
# Half-points a result letter of record 001 scores its player (column 99 + 10 per round).
HALVES = {"1": 2, "+": 2, "W": 2, "F": 2, "U": 2, "=": 1, "D": 1, "H": 1}
HALVES |= dict.fromkeys(("0", "-", "L", "Z", " "), 0)
PLAYED = set("1=0WDL")
# Record 192: (primary score, colour model) of C.04.6 for each FIDE code our engine pairs.
FIDE_CODES = {code: key for key, code in FIDE_TEAM_CODES.items()}
# The Baku acceleration of these codes is given by records 250.
FIDE_CODES |= {"FIDE_TEAM_BAKU": ("mp", "A"), "FIDE_TEAM_TYPEA_MP_GP_BAKU": ("mp", "A")}
OUR_CODES = {code: system for system, code in SYSTEM_CODES.items() if system != FIDE_TEAM_SWISS}


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
class TeamLine:
    line: int
    name: str
    players: list[int]
    mp: Fraction | None = None
    gp: Fraction | None = None


@dataclass
class RecordFile:
    """What the records say, before the rounds are put together."""

    invalid: list[Problem] = field(default_factory=list)
    missing: list[Problem] = field(default_factory=list)  # not implemented by our engines
    header: dict[str, tuple[int, str]] = field(default_factory=dict)
    players: dict[int, _Player] = field(default_factory=dict)
    teams: dict[int, TeamLine] = field(default_factory=dict)
    old_teams: list[TeamLine] = field(default_factory=list)  # record 013
    forfeits: dict[tuple[int, int, int], tuple[int, MatchForfeit]] = field(default_factory=dict)
    byes: dict[int, int] = field(default_factory=dict)
    bye_value: ByeValue = field(default_factory=ByeValue)
    bye_line: int = 0
    lineups: dict[tuple[int, int], tuple[int, int, list[int]]] = field(default_factory=dict)
    absent: dict[int, set[int]] = field(default_factory=dict)  # record 240 Z: team -> rounds
    requested: list[tuple[int, bool, int, list[int]]] = field(
        default_factory=list
    )  # 240 F, H: line, full, round, teams
    accelerations: list[tuple[int, Acceleration]] = field(default_factory=list)  # 250: line, acceleration
    prohibitions: list[tuple[int, int, int, list[int]]] = field(
        default_factory=list
    )  # 260: line, rounds, teams
    adjustments: list[tuple[int, int, int, int, int]] = field(default_factory=list)
    totals: list[tuple[int, int, Fraction | None, Fraction | None]] = field(default_factory=list)  # 802

    def bad(self, line: int, reason: str) -> None:
        self.invalid.append(Problem(line, reason))

    def unsupported(self, line: int, reason: str) -> None:
        self.missing.append(Problem(line, reason))


def points_text(points: Fraction) -> str:
    """Points as the file writes them (``9.5``)."""
    return format_points(int(2 * points))


def _field(text: str, start: int, end: int) -> str:
    """Columns ``start``-``end`` (1-based, inclusive), stripped."""
    return text[start - 1 : end].strip()


# Points as a TRF file writes them: plain decimals (``9.5``, ``-2.0``). ``Fraction`` reads more: ``3e9``
# (past the database's INTEGER in a four-column field) and ``1e99999999`` (minutes of work for one line).
_POINTS = re.compile(r"[+-]?(?:[0-9]{1,9}(?:\.[0-9]{0,9})?|\.[0-9]{1,9})")
MAX_DIGITS = 11  # the widest number field of a record (the FIDE id, columns 58-68)


def fraction(text: str) -> Fraction | None:
    """The points ``text`` writes in plain decimals, else None."""
    return Fraction(text) if _POINTS.fullmatch(text) else None


def whole_number(text: str) -> int | None:
    """The number ``text`` writes in at most ``MAX_DIGITS`` ASCII digits, else None (``"²".isdigit()`` holds,
    but ``int`` refuses it; a header record such as 142 may hold thousands of digits)."""
    return int(text) if text.isascii() and text.isdigit() and len(text) <= MAX_DIGITS else None


def _number(out: RecordFile, number: int, text: str, what: str, *, whole: bool = False) -> Fraction | None:
    """A points field: blank (None), or a number in half-points, or in whole points (``whole``)."""
    if not text:
        return None
    value = fraction(text)
    if value is None or (2 * value).denominator != 1 or (whole and value.denominator != 1):
        out.bad(number, f"{what} {text!r} is not a number of {'whole ' if whole else 'half-'}points")
        return None
    return value


def _integer(out: RecordFile, number: int, text: str, what: str) -> int | None:
    if not text:
        return None
    value = whole_number(text)
    if value is None:
        out.bad(number, f"{what} {text!r} is not a number")
    return value


def _player(out: RecordFile, number: int, line: str) -> None:
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
        if letter not in HALVES and letter not in "HFUZ":
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


def _team(out: RecordFile, number: int, line: str) -> None:
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
    out.teams[tpn] = TeamLine(number, _field(line, 9, 40), players, mp, gp)


def _roster(out: RecordFile, number: int, line: str, start: int) -> list[int]:
    """Player numbers from column ``start``, five columns each (records 310 and 013)."""
    players: list[int] = []
    for column in range(start, len(line.rstrip()) + 1, 5):
        pid = _integer(out, number, _field(line, column, column + 3), f"the player at column {column}")
        if pid:
            players.append(pid)
    return players


def _fields(
    out: RecordFile, number: int, line: str, spec: Sequence[tuple[int, int, str]]
) -> list[int] | None:
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


def _forfeit(out: RecordFile, number: int, line: str) -> None:
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


def _bye(out: RecordFile, number: int, line: str) -> None:
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


def _lineup(out: RecordFile, number: int, line: str) -> None:
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


def _team_numbers(line: str, start: int) -> list[int]:
    """Team numbers from column ``start`` (records 240 and 260), five columns each as the layout writes
    them, read whatever the spacing: split at spaces and tabs alike (FIDE's sample pads some records 240
    with a tab); what is not a number is no team."""
    return [value for token in line[start - 1 :].split() if (value := whole_number(token))]


def _requested_bye(out: RecordFile, number: int, line: str) -> None:
    """Record 240: type 5 (``F``, ``H``, ``Z``), round 7-9, then teams from column 11, five columns each.
    A zero-point bye is an absence; a full- or half-point bye leaves the
    team out of the round with its points (docs/trf.md, "Requested byes")."""
    kind = line[4:5].upper()
    values = _fields(out, number, line, ((7, 9, "the round (columns 7-9)"),))
    teams = _team_numbers(line, 11)
    if kind not in ("F", "H", "Z"):
        out.bad(number, f"the bye type {line[4:5]!r} (column 5) is not F, H or Z")
    elif not teams:
        out.bad(number, "record 240 names no team (from column 11)")
    elif values is None:
        return
    elif kind != "Z":
        out.requested.append((number, kind == "F", values[0], teams))
    else:
        for team in teams:
            out.absent.setdefault(team, set()).add(values[0])


def _acceleration(out: RecordFile, number: int, line: str) -> None:
    """Record 250: match points 5-8 and game points 10-13 added for pairing only (blank: none) in rounds
    15-17 to 19-21, to the teams with pairing numbers 23-26 to 28-31 (the Baku acceleration)."""
    mp = _number(out, number, _field(line, 5, 8), "the match points (columns 5-8)", whole=True)
    gp = _number(out, number, _field(line, 10, 13), "the game points (columns 10-13)")
    spec = (
        (15, 17, "the first round (columns 15-17)"),
        (19, 21, "the last round (columns 19-21)"),
        (23, 26, "the first team (columns 23-26)"),
        (28, 31, "the last team (columns 28-31)"),
    )
    values = _fields(out, number, line, spec)
    if not _field(line, 5, 8) and not _field(line, 10, 13):
        out.bad(number, "record 250 adds neither match points (columns 5-8) nor game points (10-13)")
        return
    if values is None or (mp is None and _field(line, 5, 8)) or (gp is None and _field(line, 10, 13)):
        return
    first_round, last_round, first_team, last_team = values
    if first_round > last_round or not first_round:
        out.bad(number, f"record 250: rounds {first_round} to {last_round} are not a range of rounds")
    elif first_team > last_team or not first_team:
        out.bad(number, f"record 250: teams {first_team} to {last_team} are not a range of teams")
    else:
        points = Acceleration(
            int(mp or 0), int(2 * (gp or 0)), first_round, last_round, first_team, last_team
        )
        out.accelerations.append((number, points))


def _prohibition(out: RecordFile, number: int, line: str) -> None:
    """Record 260: first round 5-7, last round 9-11, then the teams that may not be paired with each other
    in those rounds from column 13, five columns each."""
    spec = ((5, 7, "the first round (columns 5-7)"), (9, 11, "the last round (columns 9-11)"))
    values = _fields(out, number, line, spec)
    teams = _team_numbers(line, 13)
    if len(set(teams)) < 2:
        out.bad(number, "record 260 names fewer than two teams (from column 13)")
    elif values is not None and (values[0] > values[1] or not values[0]):
        out.bad(number, f"record 260: rounds {values[0]} to {values[1]} are not a range of rounds")
    elif values is not None:
        out.prohibitions.append((number, values[0], values[1], teams))


def _adjustment(out: RecordFile, number: int, line: str) -> None:
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


def _informative_totals(out: RecordFile, number: int, line: str) -> None:
    """Record 802: team 5-7, match points 15-20 and game points 22-27 (checked against the rounds)."""
    team = _integer(out, number, _field(line, 5, 7), "the team (columns 5-7)")
    mp = _number(out, number, _field(line, 15, 20), "the match points (columns 15-20)")
    gp = _number(out, number, _field(line, 22, 27), "the game points (columns 22-27)")
    if team is not None:
        out.totals.append((number, team, mp, gp))


def _old_team(out: RecordFile, number: int, line: str) -> None:
    """Record 013 (TRF16): name 5-36, players from column 37, five columns each; the teams of a file
    without record 310, numbered in the order of their records."""
    out.old_teams.append(TeamLine(number, _field(line, 5, 36), _roster(out, number, line, 37)))


_READERS = {
    "001": _player,
    "013": _old_team,
    "240": _requested_bye,
    "250": _acceleration,
    "260": _prohibition,
    "299": _adjustment,
    "300": _lineup,
    "310": _team,
    "320": _bye,
    "330": _forfeit,
    "802": _informative_totals,
}


def read_records(text: str) -> RecordFile:
    """Every line of the file read by its record number (columns 1-3)."""
    out = RecordFile()
    for number, line in enumerate(text.splitlines(), 1):  # without its line ending
        tag = line[:3]
        if not line.strip() or tag == "###":
            continue  # TRF-2026 comment lines start with ###
        if tag in _READERS:
            _READERS[tag](out, number, line)
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
