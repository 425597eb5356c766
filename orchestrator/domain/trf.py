"""TRF-2026 export of one pool or stage (FIDE TRF-2026; columns as in docs/trf.md).

Players: when only match totals are known (no per-board results), each team gets ``boards``
synthetic players "Team, Board k" and every match gets per-board results that add up to the
recorded game points: the team's wins first from board 1, then one draw for an odd half-point,
then losses; boards missing from the total (both sides forfeited) are written as double forfeits.
A whole-match forfeit is written as board forfeits plus a record 330; a pairing-allocated bye as
record 320, the players written as not paired (``0000 -``) in' lines.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from orchestrator.domain.scoring import (
    DEFAULT_SCORING,
    GameResult,
    MatchForfeit,
    MatchRecord,
    MatchScoring,
    board_colours,
)
from orchestrator.domain.standings import Standings, compute_standings
from orchestrator.domain.tiebreaks import REGISTRY, PoolHistory, TieBreakError, build_event, parse_chain

# Team pairing numbers have three digits (records 310, 320, 330), player numbers four (record 001).
MAX_TRF_TEAMS = 999
MAX_TRF_PLAYERS = 9999

# Our codes in TRF / TieBreakServer syntax (record 202); None: not a FIDE code. Defined in the registry.
TRF_CODES: dict[str, str | None] = {entry.code: entry.trf for entry in REGISTRY}

# Per-board result letters (TRF16 001 record, column 99 + 10 per round), own side first.
_LETTERS: dict[GameResult, tuple[str, str]] = {
    GameResult.WHITE_WINS: ("1", "0"),
    GameResult.DRAW: ("=", "="),
    GameResult.BLACK_WINS: ("0", "1"),
    GameResult.WHITE_WINS_FORFEIT: ("+", "-"),
    GameResult.BLACK_WINS_FORFEIT: ("-", "+"),
    GameResult.DOUBLE_FORFEIT: ("-", "-"),
    GameResult.PENDING: (" ", " "),
}


def trf_tiebreaks(chain: Sequence[str]) -> tuple[list[str], list[str]]:
    """Record-202 codes for a chain, and the codes left out (written as ### comments)."""
    codes = parse_chain(chain)
    written: list[str] = []
    left_out: list[str] = []
    for index, code in enumerate(codes):
        if index == 0 and code == "MP":
            continue  # the standings score itself (record 212 PTS), not a tie-break
        trf = TRF_CODES.get(code)
        if trf is None:
            left_out.append(code)
        elif trf not in written:
            written.append(trf)
    return written, left_out


def _points(value: Fraction | int, width: int) -> str:
    """Points as FIDE writes them (``11.5``), right-aligned."""
    text = f"{Fraction(value).numerator / Fraction(value).denominator:.1f}"
    return text.rjust(width)


def _put(line: list[str], start: int, text: str) -> None:
    """Write ``text`` at 1-based column ``start``."""
    end = start - 1 + len(text)
    if len(line) < end:
        line.extend(" " * (end - len(line)))
    line[start - 1 : end] = list(text)


def synthesise_boards(match: MatchRecord, boards: int) -> tuple[GameResult, ...]:
    """Per-board results (White's side, first-named team White on odd boards) that add up to
    the match's game points; a whole-match forfeit gives board forfeits."""
    if match.forfeit is MatchForfeit.DOUBLE:
        return (GameResult.DOUBLE_FORFEIT,) * boards
    if match.forfeit in (MatchForfeit.A_WINS, MatchForfeit.B_WINS):
        a_wins = match.forfeit is MatchForfeit.A_WINS
        out = []
        for colour in board_colours(boards):
            a_white = colour == "W"
            out.append(GameResult.WHITE_WINS_FORFEIT if a_wins == a_white else GameResult.BLACK_WINS_FORFEIT)
        return tuple(out)
    total = match.gp_a + match.gp_b
    if total % 2 or total > 2 * boards:
        raise TieBreakError(
            f"round {match.round}: {match.team_a} – {match.team_b} game points do not fit {boards} boards"
        )
    doubles = boards - total // 2
    wins, draw = divmod(match.gp_a, 2)
    a_side: list[str] = ["W"] * wins + ["D"] * draw
    a_side += ["L"] * (boards - doubles - len(a_side)) + ["X"] * doubles
    out = []
    for outcome, colour in zip(a_side, board_colours(boards), strict=True):
        a_white = colour == "W"
        if outcome == "X":
            out.append(GameResult.DOUBLE_FORFEIT)
        elif outcome == "D":
            out.append(GameResult.DRAW)
        elif (outcome == "W") == a_white:
            out.append(GameResult.WHITE_WINS)
        else:
            out.append(GameResult.BLACK_WINS)
    return tuple(out)


def _check_fits(teams: Sequence[str], boards: int, name: str) -> None:
    """Refuse what a TRF-2026 file cannot hold: a record per line, three-digit teams, four-digit players."""
    if len(teams) > MAX_TRF_TEAMS:
        raise TieBreakError(
            f"a TRF-2026 file holds at most {MAX_TRF_TEAMS} teams (three-digit team numbers); "
            f"this table has {len(teams)}"
        )
    if len(teams) * boards > MAX_TRF_PLAYERS:
        raise TieBreakError(
            f"a TRF-2026 file holds at most {MAX_TRF_PLAYERS} players (four-digit numbers); "
            f"{len(teams)} teams of {boards} boards make {len(teams) * boards}"
        )
    for what, text in (("tournament name", name), *(("team name", team) for team in teams)):
        # Each record is one line: a line break in a name would start a forged record.
        if len(f"x{text}x".splitlines()) != 1:
            raise TieBreakError(f"the {what} {text!r} contains a line break; a TRF-2026 record is one line")


@dataclass(frozen=True, slots=True)
class _Numbering:
    """Team pairing numbers in the order of the teams, and player numbers ``(team - 1) * boards + board``."""

    tpn: Mapping[str, int]
    boards: int

    def player(self, team: str, board: int) -> int:
        return (self.tpn[team] - 1) * self.boards + board


@dataclass
class Grid:
    """What the player, bye and forfeit records say, read from the matches."""

    cells: dict[int, dict[int, tuple[int, str, str]]] = field(default_factory=dict)  # player -> round -> cell
    points: dict[int, int] = field(default_factory=dict)  # player -> half-points
    forfeits: list[str] = field(default_factory=list)  # the 330 records
    byes: dict[int, str] = field(default_factory=dict)  # round -> team
    bye_values: set[tuple[int, int]] = field(default_factory=set)


def write_trf(
    teams: Sequence[str],
    matches: Sequence[MatchRecord],
    *,
    chain: Sequence[str],
    name: str = "Pool",
    boards: int = 6,
    scoring: MatchScoring = DEFAULT_SCORING,
    round_robin: bool = True,
    lots: Mapping[str, int] | None = None,
    bye_mp: int | None = None,
    games: Mapping[tuple[int, str], Sequence[GameResult]] | None = None,
    standings: Standings | None = None,
) -> str:
    """TRF-2026 text for one pool or stage; team pairing numbers follow the order of ``teams``.

    ``games`` optionally gives real per-board results, keyed by (round, first-named team), from
    White's side; otherwise plausible ones are synthesised (module docstring).
    """
    _check_fits(teams, boards, name)
    codes = parse_chain(chain)
    if standings is None:
        standings = compute_standings(
            teams,
            matches,
            chain=codes,
            boards=boards,
            scoring=scoring,
            lots=lots,
            round_robin=round_robin,
            bye_mp=bye_mp,
        )
    event = build_event(
        teams, matches, boards=boards, scoring=scoring, round_robin=round_robin, bye_mp=bye_mp
    )
    numbering = _Numbering({team: index + 1 for index, team in enumerate(teams)}, boards)
    rank = {row.team: row.rank for row in standings.rows}
    rounds = event.number_of_rounds
    grid = _read_matches(matches, event, numbering, games)
    out = _header_records(name, teams, boards, rounds, round_robin, codes, scoring)
    out += _player_records(teams, numbering, rounds, grid, rank)
    boards_of = {team: [numbering.player(team, b) for b in range(1, boards + 1)] for team in teams}
    out += team_records(teams, numbering.tpn, event, rank, boards_of)
    if grid.byes:
        out.append(bye_record(grid, numbering.tpn, rounds))
    out.extend(grid.forfeits)
    return "\n".join(out) + "\n"


def _read_matches(
    matches: Sequence[MatchRecord],
    event: PoolHistory,
    numbering: _Numbering,
    games: Mapping[tuple[int, str], Sequence[GameResult]] | None,
) -> Grid:
    """Every player's cell of every round, their points, the byes and the 330 forfeit records."""
    boards, player, tpn = numbering.boards, numbering.player, numbering.tpn
    grid = Grid()
    for match in sorted(matches, key=lambda x: (x.round, tpn.get(x.team_a, 0))):
        if match.team_b is None:
            grid.byes[match.round] = match.team_a
            entry = next(r for r in event.rounds[match.team_a] if r.round == match.round)
            grid.bye_values.add((entry.mp, entry.gp))
            for board in range(1, boards + 1):
                grid.cells.setdefault(player(match.team_a, board), {})[match.round] = (0, "-", " ")
            continue
        results = (games or {}).get((match.round, match.team_a)) or synthesise_boards(match, boards)
        if len(results) != boards:
            raise TieBreakError(f"round {match.round}: {match.team_a} needs {boards} board results")
        for board, (result, colour) in enumerate(zip(results, board_colours(boards), strict=True), 1):
            pa, pb = player(match.team_a, board), player(match.team_b, board)
            white_letter, black_letter = _LETTERS[result]
            a_letter, b_letter = (
                (white_letter, black_letter) if colour == "W" else (black_letter, white_letter)
            )
            a_col, b_col = ("w", "b") if colour == "W" else ("b", "w")
            grid.cells.setdefault(pa, {})[match.round] = (pb, a_col, a_letter)
            grid.cells.setdefault(pb, {})[match.round] = (pa, b_col, b_letter)
            a_half, b_half = (
                (result.white_half, result.black_half)
                if colour == "W"
                else (result.black_half, result.white_half)
            )
            grid.points[pa] = grid.points.get(pa, 0) + a_half
            grid.points[pb] = grid.points.get(pb, 0) + b_half
        if match.forfeit is not MatchForfeit.NONE:
            grid.forfeits.append(forfeit_record(match, tpn))
    return grid


def forfeit_record(match: MatchRecord, tpn: Mapping[str, int]) -> str:
    """TRF-2026 record 330: type 5-6, round 8-10, white team 12-14, black team 16-18."""
    assert match.team_b is not None
    line: list[str] = []
    _put(line, 1, "330")
    _put(line, 5, match.forfeit.value)
    _put(line, 8, f"{match.round:3d}")
    _put(line, 12, f"{tpn[match.team_a]:3d}")
    _put(line, 16, f"{tpn[match.team_b]:3d}")
    return "".join(line)


def _header_records(
    name: str,
    teams: Sequence[str],
    boards: int,
    rounds: int,
    round_robin: bool,
    codes: Sequence[str],
    scoring: MatchScoring,
) -> list[str]:
    """The tournament records: name, counts, type, tie-breaks, colours and scoring."""
    out: list[str] = []
    out.append(f"012 {name}")
    out.append(f"062 {len(teams) * boards}")
    out.append(f"082 {len(teams)}")
    out.append(f"092 {'Team round robin' if round_robin else 'Team Swiss'}")
    out.append(f"142 {rounds}")
    out.append(f"192 {'FIDE_TEAM_ROUNDROBIN' if round_robin else 'CUSTOM_TEAM_SWISS_MP'}")
    written, left_out = trf_tiebreaks(codes)
    if written:
        out.append("202 " + ",".join(written))
    for code in left_out:
        out.append(f"### tie-break {code} is not a FIDE TRF code; applied by the orchestrator only")
    out.append("352 " + "".join(board_colours(boards)))
    # 162 game scoring and 362 match scoring, written always so that no reader has to guess them
    # from the results (a pool without a drawn game would leave the draw value unknown).
    scoring_records: tuple[tuple[str, tuple[tuple[str, Fraction], ...]], ...] = (
        ("162", ((" W", Fraction(1)), (" D", Fraction(1, 2)), (" L", Fraction(0)))),
        (
            "362",
            (("TW", Fraction(scoring.win)), ("TD", Fraction(scoring.draw)), ("TL", Fraction(scoring.loss))),
        ),
    )
    for record, symbols in scoring_records:
        line: list[str] = []
        _put(line, 1, record)
        for column, (symbol, value) in zip((5, 14, 23), symbols, strict=True):
            _put(line, column, symbol + _points(value, 4))
        out.append("".join(line))
    return out


def _player_records(
    teams: Sequence[str], numbering: _Numbering, rounds: int, grid: Grid, rank: Mapping[str, int]
) -> list[str]:
    """Record 001 of every board's player: points, rank and one cell a round."""
    out: list[str] = []
    for team in teams:
        for board in range(1, numbering.boards + 1):
            pid = numbering.player(team, board)
            line: list[str] = []
            _put(line, 1, "001")
            _put(line, 5, f"{pid:4d}")
            _put(line, 15, f"{team[:24]}, Board {board}"[:33])
            _put(line, 81, _points(Fraction(grid.points.get(pid, 0), 2), 4))
            _put(line, 86, f"{rank[team]:4d}")
            for rnd in range(1, rounds + 1):
                opponent, colour, letter = grid.cells.get(pid, {}).get(rnd, (0, "-", "Z"))
                column = 92 + 10 * (rnd - 1)
                _put(line, column, f"{opponent:4d}" if opponent else "0000")
                _put(line, column + 5, colour)
                _put(line, column + 7, letter)
            out.append("".join(line))
    return out


def team_records(
    teams: Sequence[str],
    tpn: Mapping[str, int],
    event: PoolHistory,
    rank: Mapping[str, int],
    players: Mapping[str, Sequence[int]],
) -> list[str]:
    """Record 310 of every team: match and game points, rank and its players (by number, in order)."""
    out: list[str] = []
    for team in teams:
        line: list[str] = []
        _put(line, 1, "310")
        _put(line, 5, f"{tpn[team]:3d}")
        _put(line, 9, team[:32])
        _put(line, 55, _points(event.mp(team), 6))
        _put(line, 62, _points(Fraction(event.gp(team), 2), 6))
        _put(line, 69, f"{rank[team]:3d}")
        for index, number in enumerate(players.get(team, ())):
            _put(line, 74 + 5 * index, f"{number:4d}")
        out.append("".join(line))
    return out


def bye_record(grid: Grid, tpn: Mapping[str, int], rounds: int) -> str:
    """Record 320: what a pairing-allocated bye is worth and which team had it in each round."""
    if len(grid.bye_values) > 1:
        raise TieBreakError("record 320 needs the same value for every pairing-allocated bye")
    mp, gp = next(iter(grid.bye_values))
    line: list[str] = []
    _put(line, 1, "320")
    _put(line, 5, _points(mp, 4))
    _put(line, 10, _points(Fraction(gp, 2), 4))
    for rnd in range(1, rounds + 1):
        team_tpn = tpn[grid.byes[rnd]] if rnd in grid.byes else 0
        _put(line, 15 + 4 * (rnd - 1), f"{team_tpn:03d}")
    return "".join(line)
