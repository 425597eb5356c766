"""Reading a team Swiss TRF-2026 file back into a ``SwissState``, so that our engines can pair its next
round (``olympiad pair``, docs/swiss.md).

Every record of the TRF-2026 team layout is either used, or read as information, or refused; the records
and what each does are listed in docs/trf.md ("What we read"). A file is refused in one of two ways, each
with every problem found, its line number and a reason:

- ``TrfInvalid``: the file is broken (a field that is not a number, players who do not name each other,
  points that do not add up, a record FIDE's layout does not have);
- ``TrfNotImplemented``: the file is sound but asks for what our engines do not implement (a system of
  record 192 we do not pair, other game scores); FIDE's engine pairs such a file instead (docs/swiss.md).

Requested byes (record 240 ``F``, ``H``), accelerated rounds (250) and prohibited pairings (260) go into
the state for the engines (docs/trf.md).

Scores are exact: game points in half-points, match points whole (record 362).
"""

from __future__ import annotations

from fractions import Fraction

from orchestrator.domain.scoring import MatchForfeit, MatchRecord, MatchScoring, format_points
from orchestrator.domain.swiss.model import (
    Acceleration,
    Prohibition,
    RequestedBye,
    ScoreAdjustment,
    SwissError,
    SwissState,
    SwissTeam,
)
from orchestrator.domain.swiss.pairing import FIDE_TEAM_SWISS
from orchestrator.domain.trf.swiss import FIDE_TEAM_CODES
from orchestrator.domain.trf.swiss_records import (
    FIDE_CODES,
    HALVES,
    OUR_CODES,
    PLAYED,
    Problem,
    RecordFile,
    TeamLine,
    TrfInvalid,
    TrfNotImplemented,
    TrfNotReadable,
    fraction,
    points_text,
    read_records,
    whole_number,
)

__all__ = ["Problem", "TrfInvalid", "TrfNotImplemented", "TrfNotReadable", "read_team_trf"]


def _header(out: RecordFile) -> tuple[int, str, str, MatchScoring, str, str, str]:
    """Rounds (142), initial colour (152), board colours (352), match points (362), and the pairing
    system, primary score and colour model (192)."""
    line, code = out.header.get("192", (0, FIDE_TEAM_CODES["mp", "A"]))
    code = code.upper()
    system, primary, model = FIDE_TEAM_SWISS, "mp", "A"
    if code in FIDE_CODES:
        primary, model = FIDE_CODES[code]
    elif code in OUR_CODES:
        system = OUR_CODES[code]
    else:
        out.unsupported(line, f"record 192 names {code}, a system our engines do not implement")
    line, text = out.header.get("142", (0, ""))
    rounds = whole_number(text) or 0
    if rounds < 1:
        out.bad(
            line,
            "record 142 (the number of rounds) is missing"
            if not line
            else f"the number of rounds {text!r} is not a number",
        )
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
        points = fraction(value)
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
        points = fraction(value)
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

    def __init__(self, out: RecordFile, teams: list[TeamLine]) -> None:
        self.out = out
        self.teams = teams
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
            other, colour, letter = player.cell(rnd)
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
            elif pid < other and _kind(letter) != _kind(theirs[2]):
                out.bad(
                    player.line,
                    f"round {rnd}: players {pid} and {other} disagree on their game: {_kind(letter)} for "
                    f"{pid} ({letter!r}), {_kind(theirs[2])} for {other} ({theirs[2]!r})",
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
            total += HALVES.get(letter, 0)
            played |= letter in PLAYED
            pending |= bool(other) and letter == " "
        return total, played, pending

    def letters(self, number: int, rnd: int) -> set[str]:
        """The result letters of a team's players in ``rnd``."""
        rows = (self.out.players.get(pid) for pid in self.teams[number - 1].players)
        return {row.cell(rnd)[2] for row in rows if row is not None}

    def board_one_white(self, number: int, rnd: int) -> bool | None:
        """Whether the team's first board had White: from the first board of record 300's line-up with an
        opponent (an even board has the other colour), else from its first player in record-310 order with
        an opponent; None when no board of the team had an opponent."""
        lineup = self.out.lineups.get((rnd, number))
        order = lineup[2] if lineup else self.teams[number - 1].players
        for board, pid in enumerate(order, 1):
            player = self.out.players.get(pid)
            if player is not None and player.cell(rnd)[0]:
                # a line-up's board k (empty ones included) has the first-named team's colour of board 1
                # on the odd boards, the other on the even ones (record 352)
                return (player.cell(rnd)[1] == "w") == (board % 2 == 1 or not lineup)
        return None


def _team_list(out: RecordFile) -> list[TeamLine]:
    """The teams in pairing-number order: record 310, or record 013 in a file without 310."""
    if not out.teams:
        if not out.old_teams:
            out.bad(0, "the file has no team records (310)")
        return out.old_teams
    teams: list[TeamLine] = []
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


def _counts(out: RecordFile, teams: list[TeamLine]) -> None:
    """Records 062 and 082, when given, count the players and the teams of the file."""
    for tag, what, count in (("062", "players", len(out.players)), ("082", "teams", len(teams))):
        if tag not in out.header:
            continue
        line, text = out.header[tag]
        if text and whole_number(text) != count:
            out.bad(line, f"record {tag} says {text} {what}; the file has {count}")


def _player_points(out: RecordFile) -> None:
    """The points of each record 001 (columns 81-84) are the sum of its results."""
    for pid, player in out.players.items():
        total = sum(HALVES.get(letter, 0) for _, _, letter in player.cells)
        if player.points is not None and 2 * player.points != total:
            out.bad(
                player.line,
                f"player {pid}: the points {points_text(player.points)} are not the results' sum "
                f"({format_points(total)})",
            )


def _kind(letter: str) -> str:
    """What a result letter says of a game: played over the board, forfeited, a bye, or still to be played."""
    if letter in PLAYED:
        return "played"
    return "pending" if letter == " " else "forfeited" if letter in "+-" else "a bye"


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
    out = read_records(text)
    rounds, initial, colours, scoring, system, primary, model = _header(out)
    if out.missing and not out.invalid:
        raise TrfNotImplemented(out.missing)
    teams = _team_list(out)
    _counts(out, teams)
    _player_points(out)
    boards = len(colours) or max((len(team.players) for team in teams), default=0) or 1
    reader = _Rounds(out, teams)
    names = [team.name for team in teams]
    if len(set(names)) != len(names) or len(teams) < 2:
        out.bad(0, "a Swiss needs at least two teams, each with its own name (record 310)")
        raise TrfInvalid(out.invalid + out.missing)
    matches: list[MatchRecord] = []
    absent: dict[int, set[int]] = {n: set(out.absent.get(n, ())) for n in range(1, len(teams) + 1)}
    requested = _requested_byes(out, rounds, len(teams), absent)
    accelerations, prohibitions = _pairing_records(out, rounds, names)
    played = 0
    for rnd in range(1, rounds + 1):
        found: list[MatchRecord] = []
        unpaired: list[int] = []
        for number in range(1, len(teams) + 1):
            other = reader.opponent(number, rnd)
            if (number, rnd) in requested:  # record 240 F, H: out of the round, scoring its bye
                if other:
                    line = requested[number, rnd][0]
                    out.bad(line, f"round {rnd}: team {number} asked for a bye and meets team {other}")
                unpaired.append(number)
            elif out.byes.get(rnd) == number:
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
                if (number, rnd) in requested:
                    absent[number].add(rnd)  # its requested bye takes it out of the round to pair
                elif rows and all(rnd in row.zero for row in rows):
                    absent[number].add(rnd)  # marked as not paired in the round to pair
            break
        played = rnd
        matches += found
        for number in unpaired:
            absent[number].add(rnd)
    if out.missing:  # a round left to FIDE's engine: what follows it is not read
        raise (TrfInvalid if out.invalid else TrfNotImplemented)(out.invalid + out.missing)
    for pid, player in out.players.items():
        beyond = [r for r, cell in enumerate(player.cells, 1) if r > rounds and (cell[0] or cell[2].strip())]
        if beyond:
            out.bad(
                player.line,
                f"player {pid} has a game or result in round {beyond[0]}; record 142 says the event has "
                f"{rounds} rounds",
            )
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
            requested_byes=tuple(
                RequestedBye(names[n - 1], r, full)
                for (n, r), (_, full) in requested.items()
                if r <= played + 1
            ),
            accelerations=accelerations,
            prohibitions=prohibitions,
        )
    except SwissError as error:  # what a state cannot hold (no rounds, say), already listed by line
        raise TrfInvalid(out.invalid or [Problem(0, str(error))]) from None
    _totals(out, state, teams)
    if out.invalid:
        raise TrfInvalid(out.invalid)
    return state, played + 1


def _requested_byes(
    out: RecordFile, rounds: int, count: int, absent: dict[int, set[int]]
) -> dict[tuple[int, int], tuple[int, bool]]:
    """Record 240 ``F`` and ``H``: (team, round) -> (line, full), each round and team checked, a team
    given one bye a round (``absent`` holds record 240 ``Z``)."""
    requested: dict[tuple[int, int], tuple[int, bool]] = {}
    for line, full, rnd, numbers in out.requested:
        if not 1 <= rnd <= rounds:
            out.bad(line, f"record 240: round {rnd} is not a round of the file (1 to {rounds}, record 142)")
            continue
        for number in numbers:
            if number > count:
                out.bad(line, f"record 240 names team {number}, which the file does not have")
            elif (number, rnd) in requested or rnd in absent[number]:
                out.bad(line, f"record 240: team {number} already has a bye in round {rnd}")
            else:
                requested[number, rnd] = (line, full)
    return requested


def _pairing_records(
    out: RecordFile, rounds: int, names: list[str]
) -> tuple[tuple[Acceleration, ...], tuple[Prohibition, ...]]:
    """Records 250 (accelerated rounds) and 260 (prohibited pairings), their rounds and teams checked."""
    accelerations: list[Acceleration] = []
    for line, acceleration in out.accelerations:
        if acceleration.last_round > rounds:
            out.bad(line, f"record 250: round {acceleration.last_round} is after the last round ({rounds})")
        elif acceleration.last_team > len(names):
            out.bad(line, f"record 250: team {acceleration.last_team} is not a team of the file")
        else:
            accelerations.append(acceleration)
    prohibitions: list[Prohibition] = []
    for line, first, last, numbers in out.prohibitions:
        unknown = [n for n in numbers if n > len(names)]
        if last > rounds:
            out.bad(line, f"record 260: round {last} is after the last round ({rounds})")
        elif unknown:
            out.bad(line, f"record 260 names team {unknown[0]}, which the file does not have")
        else:
            prohibitions.append(Prohibition(first, last, frozenset(names[n - 1] for n in numbers)))
    return tuple(accelerations), tuple(prohibitions)


def _totals(out: RecordFile, state: SwissState, teams: list[TeamLine]) -> None:
    """The informative scores (record 310 columns 55-67, record 802) agree with the rounds read."""
    given = [(team.line, number, team.mp, team.gp) for number, team in enumerate(teams, 1)]
    for line, number, mp, gp in [*given, *out.totals]:
        if not 1 <= number <= len(teams):
            out.bad(line, f"team {number} is not a team of the file")
            continue
        own_mp, own_gp = state.points(teams[number - 1].name)
        if mp is not None and mp != own_mp:
            out.bad(
                line, f"team {number}: {points_text(mp)} match points given, {own_mp} from the rounds read"
            )
        if gp is not None and gp != Fraction(own_gp, 2):
            out.bad(
                line,
                f"team {number}: {points_text(gp)} game points given, "
                f"{format_points(own_gp)} from the rounds read",
            )
