"""The records and columns the TRF-2026 files share (FIDE TRF-2026; the records we write and read are
listed in docs/trf.md): the tournament records (012 ... 362), record 310 of each team, 320 of the
pairing-allocated byes, 330 of each whole-match forfeit, the per-board result letters of record 001, and
the per-board results synthesised from a match score when only the score is known. ``teams``,
``players`` and ``swiss`` write whole files from them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from orchestrator.domain.scoring import GameResult, MatchForfeit, MatchRecord, MatchScoring, board_colours
from orchestrator.domain.tiebreaks import REGISTRY, PoolHistory, TieBreakError, parse_chain

# Team pairing numbers have three digits (records 310, 320, 330), player numbers four (record 001).
MAX_TRF_TEAMS = 999
MAX_TRF_PLAYERS = 9999

# Our codes in TRF / TieBreakServer syntax (record 202); None: not a FIDE code. Defined in the registry.
TRF_CODES: dict[str, str | None] = {entry.code: entry.trf for entry in REGISTRY}

# Per-board result letters (TRF16 001 record, column 99 + 10 per round), own side first.
RESULT_LETTERS: dict[GameResult, tuple[str, str]] = {
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


def points_text(value: Fraction | int, width: int) -> str:
    """Points as FIDE writes them (``11.5``), right-aligned."""
    text = f"{Fraction(value).numerator / Fraction(value).denominator:.1f}"
    return text.rjust(width)


def put(line: list[str], start: int, text: str) -> None:
    """Write ``text`` at 1-based column ``start``."""
    end = start - 1 + len(text)
    if len(line) < end:
        line.extend(" " * (end - len(line)))
    line[start - 1 : end] = list(text)


def put_round(line: list[str], rnd: int, cell: tuple[int, str, str]) -> None:
    """Write round ``rnd``'s cell (opponent, colour, result letter) of a record 001: ten columns a round
    from column 92, the opponent's number at 92-95 (``0000`` for none), the colour at 97, the letter at 99."""
    opponent, colour, letter = cell
    column = 92 + 10 * (rnd - 1)
    put(line, column, f"{opponent:4d}" if opponent else "0000")
    put(line, column + 5, colour)
    put(line, column + 7, letter)


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


def check_fits(teams: Sequence[str], boards: int, name: str) -> None:
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


@dataclass
class Grid:
    """What the player, bye and forfeit records say, read from the matches."""

    cells: dict[int, dict[int, tuple[int, str, str]]] = field(default_factory=dict)  # player -> round -> cell
    points: dict[int, int] = field(default_factory=dict)  # player -> half-points
    forfeits: list[str] = field(default_factory=list)  # the 330 records
    byes: dict[int, str] = field(default_factory=dict)  # round -> team
    bye_values: set[tuple[int, int]] = field(default_factory=set)
    requested: list[str] = field(default_factory=list)  # the 240 F/H records (requested byes)


def match_forfeit_record(match: MatchRecord, tpn: Mapping[str, int]) -> str:
    """TRF-2026 record 330: type 5-6, round 8-10, white team 12-14, black team 16-18 (the first-named
    team is the white team)."""
    assert match.team_b is not None
    line: list[str] = []
    put(line, 1, "330")
    put(line, 5, match.forfeit.value)
    put(line, 8, f"{match.round:3d}")
    put(line, 12, f"{tpn[match.team_a]:3d}")
    put(line, 16, f"{tpn[match.team_b]:3d}")
    return "".join(line)


def header_records(
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
        put(line, 1, record)
        for column, (symbol, value) in zip((5, 14, 23), symbols, strict=True):
            put(line, column, symbol + points_text(value, 4))
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
        put(line, 1, "310")
        put(line, 5, f"{tpn[team]:3d}")
        put(line, 9, team[:32])
        extra_mp, extra_gp = event.adjustments.get(team, (0, 0))  # record 299's points
        put(line, 55, points_text(event.mp(team) + extra_mp, 6))
        put(line, 62, points_text(Fraction(event.gp(team) + extra_gp, 2), 6))
        put(line, 69, f"{rank[team]:3d}")
        for index, number in enumerate(players.get(team, ())):
            put(line, 74 + 5 * index, f"{number:4d}")
        out.append("".join(line))
    return out


def requested_bye_record(match: MatchRecord, tpn: Mapping[str, int]) -> str:
    """Record 240 of a requested bye: type 5 (``F``, ``H``), round 7-9, team 11-14."""
    return f"240 {match.request.value} {match.round:3d} {tpn[match.team_a]:4d}"


def bye_record(grid: Grid, tpn: Mapping[str, int], rounds: int) -> str:
    """Record 320: what a pairing-allocated bye is worth and which team had it in each round."""
    if len(grid.bye_values) > 1:
        raise TieBreakError("record 320 needs the same value for every pairing-allocated bye")
    mp, gp = next(iter(grid.bye_values))
    line: list[str] = []
    put(line, 1, "320")
    put(line, 5, points_text(mp, 4))
    put(line, 10, points_text(Fraction(gp, 2), 4))
    for rnd in range(1, rounds + 1):
        team_tpn = tpn[grid.byes[rnd]] if rnd in grid.byes else 0
        put(line, 15 + 4 * (rnd - 1), f"{team_tpn:03d}")
    return "".join(line)
