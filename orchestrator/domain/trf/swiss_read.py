"""Reading a team Swiss TRF-2026 file back into a ``SwissState``, so that our C.04.6 engine can pair its
next round (``olympiad pair``, docs/swiss.md).

Only what our engines implement is read: record 192 ``FIDE_TEAM_TYPEA_MP_GP`` (or none, which C.04.6
art. 1.7 and 1.2.2 default to the same) or one of our own systems (``trf.swiss.SYSTEM_CODES``), whole match
points in record 362, the standard game points of record 162, and no record the engine would have to
obey but does not know (prohibited pairings, accelerations, ...). Any other file raises
``TrfNotReadable``; FIDE's engine pairs it instead.
"""

from __future__ import annotations

from fractions import Fraction

from orchestrator.domain.scoring import MatchForfeit, MatchRecord, MatchScoring
from orchestrator.domain.swiss.model import ByeValue, SwissState, SwissTeam
from orchestrator.domain.trf.swiss import SYSTEM_CODES

# Records that only describe the event (names, dates, officials, counts) or that this reader reads.
_KNOWN = {f"{n:03d}" for n in range(12, 133, 10)} | {"142", "152", "162", "192", "352", "362"}
_KNOWN |= {"001", "310", "320", "330"}
_HALVES = {"1": 2, "+": 2, "W": 2, "=": 1, "D": 1, "H": 1, "0": 0, "-": 0, "L": 0, "Z": 0}


Cells = dict[int, tuple[str, list[str]]]  # player id -> (rating, round cells)


class TrfNotReadable(ValueError):
    """A file our engine does not pair (another system, an unusual record, an inconsistent pairing)."""


def _number(text: str, what: str) -> Fraction:
    try:
        return Fraction(text.strip())
    except ValueError:
        raise TrfNotReadable(f"{what}: {text.strip()!r} is not a number") from None


def _header(lines: list[str]) -> tuple[int, str, str, MatchScoring, str]:
    """Rounds (142), initial colour (152), board colours (352), match points (362) and the pairing system
    (192)."""
    values = {line[:3]: line[4:].strip() for line in lines}
    code = values.get("192", "FIDE_TEAM_TYPEA_MP_GP").upper()
    systems = {code: system for system, code in SYSTEM_CODES.items()}
    if code not in systems:
        raise TrfNotReadable(f"record 192 names {code}")
    if "142" not in values or not values["142"].isdigit():
        raise TrfNotReadable("record 142 (the number of rounds) is missing")
    if values.get("162", "W 1.0 D 0.5 L 0.0").split() not in (["W", "1.0", "D", "0.5", "L", "0.0"],):
        raise TrfNotReadable("record 162 scores games other than 1, ½, 0")
    tokens = values.get("362", "TW 2 TD 1 TL 0").split()
    points = dict(zip(tokens[::2], tokens[1::2], strict=False))
    scores = [_number(points.get(key, "?"), f"record 362 {key}") for key in ("TW", "TD", "TL")]
    if any(s.denominator != 1 for s in scores) or not scores[0] >= scores[1] >= scores[2]:
        raise TrfNotReadable("record 362 gives fractional match points, or a loss more than a win")
    initial = values.get("152", "W").upper()[:1]
    if initial not in ("W", "B"):
        raise TrfNotReadable("record 152 (the initial colour) is neither W nor B")
    scoring = MatchScoring(*(int(s) for s in scores))
    return int(values["142"]), initial, values.get("352", "").upper(), scoring, systems[code]


def _numeric(line: str, columns: tuple[tuple[int, int], ...]) -> None:
    """The numeric fields (1-based columns) of a record: blank or a number, as FIDE's reader requires."""
    for start, end in columns:
        text = line[start - 1 : end].strip()
        if text:
            _number(text, f"record {line[:3]} columns {start}-{end}")


def _teams(lines: list[str]) -> tuple[list[tuple[str, list[int]]], dict[int, tuple[int, int]]]:
    """Record 310 in team-number order: (name, player ids); and each player's (team number, board)."""
    found: dict[int, tuple[str, list[int]]] = {}
    for line in lines:
        if line.startswith("310 "):
            _numeric(line, ((55, 60), (62, 67), (69, 71)))
            number = line[4:7].strip()
            ids = [line[i : i + 4].strip() for i in range(73, len(line), 5)]
            gaps = line[71:73] + "".join(line[i - 1] for i in range(73, len(line), 5))
            if not number.isdigit() or gaps.strip() or not all(pid.isdigit() for pid in ids if pid):
                raise TrfNotReadable(f"record 310 {line[:40].rstrip()!r} cannot be read")
            found[int(number)] = (line[8:40].strip(), [int(pid) for pid in ids if pid])
    if sorted(found) != list(range(1, len(found) + 1)) or len(found) < 2:
        raise TrfNotReadable("record 310 does not number the teams 1, 2, 3, ...")
    players = {pid: (number, board) for number, (_, ids) in found.items() for board, pid in enumerate(ids, 1)}
    return [found[n] for n in sorted(found)], players


def _cells(lines: list[str]) -> dict[int, tuple[str, list[str]]]:
    """Record 001 by player id: its rating and its round cells (8 characters each)."""
    out: dict[int, tuple[str, list[str]]] = {}
    for line in lines:
        if line.startswith("001 "):
            _numeric(line, ((5, 8), (49, 52), (58, 68), (81, 84), (86, 89)))
            cells = [
                line[91 + 10 * r : 99 + 10 * r].ljust(8) for r in range(max(0, (len(line) - 91 + 9) // 10))
            ]
            if any(cell.strip() and not cell[:4].strip().isdigit() for cell in cells):
                raise TrfNotReadable(f"player {line[4:8].strip()}: an opponent is not a number")
            letters = [cell[7].upper() for cell in cells if cell[7] != " "]
            points = line[80:84].strip()
            if points and (
                any(letter not in _HALVES for letter in letters)
                or 2 * _number(points, "record 001 points") != sum(_HALVES[letter] for letter in letters)
            ):
                raise TrfNotReadable(f"player {line[4:8].strip()}: the points do not add up")
            out[int(line[4:8])] = (line[48:52].strip(), cells)
    return out


def _forfeits(lines: list[str]) -> dict[tuple[int, int, int], MatchForfeit]:
    """Record 330 by (round, first-named team, other team)."""
    out: dict[tuple[int, int, int], MatchForfeit] = {}
    for line in lines:
        if line.startswith("330 "):
            kinds = {f.value: f for f in MatchForfeit if f is not MatchForfeit.NONE}
            fields = (line[7:10].strip(), line[11:14].strip(), line[15:18].strip())
            if line[4:6] not in kinds or not all(f.isdigit() for f in fields):
                raise TrfNotReadable(f"record 330 {line.rstrip()!r} cannot be read")
            rnd, first, second = (int(f) for f in fields)
            out[rnd, first, second] = kinds[line[4:6]]
    return out


def _byes(lines: list[str]) -> tuple[dict[int, int], ByeValue]:
    """Record 320: the team with the pairing-allocated bye by round, and what a bye scores."""
    byes: dict[int, int] = {}
    value = ByeValue()
    for line in lines:
        if line.startswith("320 "):
            mp, gp = _number(line[4:8], "record 320"), _number(line[9:13], "record 320")
            if mp.denominator != 1 or (2 * gp).denominator != 1:
                raise TrfNotReadable("record 320 gives fractional match points")
            value = ByeValue(mp=int(mp), gp=int(2 * gp))
            for rnd, start in enumerate(range(14, len(line), 4), 1):
                team = line[start : start + 3].strip()
                if team.isdigit() and int(team):
                    byes[rnd] = int(team)
    return byes, value


def _check_boards(cells: Cells, ids: list[int], others: list[int], rnd: int) -> None:
    """Board k of one team meets board k of the other, with opposite colours, White on board 1 for the
    first-named team and alternating (record 352); otherwise the file is not one our state can hold."""
    if len(ids) != len(others):
        raise TrfNotReadable(f"round {rnd}: teams with different numbers of boards meet")
    first = None
    for board, (mine, theirs) in enumerate(zip(ids, others, strict=True)):
        rows = cells.get(mine, ("", []))[1], cells.get(theirs, ("", []))[1]
        if len(rows[0]) < rnd or len(rows[1]) < rnd:
            raise TrfNotReadable(f"round {rnd}: player {mine} or {theirs} has no entry")
        a, b = rows[0][rnd - 1], rows[1][rnd - 1]
        colours = a[5].lower() + b[5].lower()
        if a[:4].strip() != str(theirs) or b[:4].strip() != str(mine) or colours not in ("wb", "bw"):
            raise TrfNotReadable(f"round {rnd}: players {mine} and {theirs} do not name each other")
        first = colours[0] if board == 0 else first
        if (colours[0] == first) != (board % 2 == 0):
            raise TrfNotReadable(f"round {rnd}: the colours of player {mine} do not alternate by board")


def _forfeited_boards(cells: dict[int, tuple[str, list[str]]], ids: list[int], rnd: int) -> bool:
    """Whether a team has a board won or lost by forfeit in ``rnd`` (how a checker counts such a match
    is not what our state records)."""
    rows = (cells[pid][1] for pid in ids if pid in cells)
    return any(len(row) >= rnd and row[rnd - 1][7] in "+-" for row in rows)


def _half_points(cells: dict[int, tuple[str, list[str]]], ids: list[int], rnd: int) -> int:
    total = 0
    for pid in ids:
        letter = cells[pid][1][rnd - 1][7] if pid in cells and len(cells[pid][1]) >= rnd else " "
        if letter.upper() not in _HALVES:
            raise TrfNotReadable(f"round {rnd}: result {letter!r} of player {pid} cannot be read")
        total += _HALVES[letter.upper()]
    return total


def read_team_trf(text: str) -> tuple[SwissState, int]:
    """The state of a team Swiss TRF-2026 file and the round to pair next (raises TrfNotReadable)."""
    lines = [line for line in text.splitlines() if line.strip()]
    unknown = sorted({line[:3] for line in lines} - _KNOWN)
    if unknown:
        raise TrfNotReadable(f"records {', '.join(unknown)} are not read by our engine")
    rounds, initial, colours, scoring, system = _header(lines)
    teams, players = _teams(lines)
    cells = _cells(lines)
    forfeits = _forfeits(lines)
    byes, bye_value = _byes(lines)
    if colours.strip("WB") or colours[:1] not in ("", "W"):
        raise TrfNotReadable("record 352 is not W and B, White on board 1 for the first-named team")
    matches: list[MatchRecord] = []
    absent: dict[int, set[int]] = {n: set() for n in range(1, len(teams) + 1)}

    def found_any(rnd: int) -> bool:
        """Whether any team of the file has a result in ``rnd``."""
        if rnd not in seen:
            seen[rnd] = rnd in byes or any(
                len(row) >= rnd and row[rnd - 1][:4].strip().isdigit() and int(row[rnd - 1][:4]) > 0
                for _, row in cells.values()
            )
        return seen[rnd]

    seen: dict[int, bool] = {}
    rnd = 0
    while rnd < rounds:
        rnd += 1
        found: list[MatchRecord] = []
        for number, (name, ids) in enumerate(teams, 1):
            row = cells.get(ids[0], ("", []))[1] if ids else []
            cell = row[rnd - 1] if len(row) >= rnd else " " * 8
            opponent = int(cell[:4]) if cell[:4].strip().isdigit() else 0
            if byes.get(rnd) == number:
                found.append(MatchRecord(rnd, name, None, bye_value.gp or 0, 0))
            elif opponent and cell[7] == " ":
                raise TrfNotReadable(f"round {rnd} is paired without results")
            elif opponent:
                other = players.get(opponent, (0, 0))[0]
                if not other or other == number:
                    raise TrfNotReadable(f"round {rnd}: the opponent of team {number} cannot be read")
                _check_boards(cells, ids, teams[other - 1][1], rnd)
                if cell[5].lower() != "w":
                    continue  # the match is read from its first-named team
                kind = forfeits.get((rnd, number, other), MatchForfeit.NONE)
                if kind is MatchForfeit.NONE and _forfeited_boards(cells, ids, rnd):
                    raise TrfNotReadable(f"round {rnd}: team {number} forfeits boards of a match played")
                gp = (_half_points(cells, ids, rnd), _half_points(cells, teams[other - 1][1], rnd))
                found.append(MatchRecord(rnd, name, teams[other - 1][0], *gp, kind))
            elif cell[:4] == "0000" or found_any(rnd):
                absent[number].add(rnd)  # not paired in a round played, or marked so in the next one
        if not found:
            break
        matches += found
    played = max((m.round for m in matches), default=0)
    swiss_teams = tuple(
        SwissTeam(
            name,
            tuple(_rating(cells, pid) for pid in ids),
            absent=frozenset(r for r in absent[n] if r <= played + 1),
        )
        for n, (name, ids) in enumerate(teams, 1)
    )
    boards = max(len(colours), *(len(ids) for _, ids in teams))
    state = SwissState(swiss_teams, boards, rounds, tuple(matches), scoring, bye_value, initial, system)
    return state, played + 1


def _rating(cells: dict[int, tuple[str, list[str]]], pid: int) -> int:
    text = cells.get(pid, ("", []))[0]
    return int(text) if text.isdigit() else 0
