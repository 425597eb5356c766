"""TRF-2026 file of one pool or stage from its match scores (FIDE TRF-2026; records in docs/trf.md).

Players: when only match totals are known (no per-board results), each team gets ``boards``
synthetic players "Team, Board k" and every match gets per-board results that add up to the
recorded game points: the team's wins first from board 1, then one draw for an odd half-point,
then losses; boards missing from the total (both sides forfeited) are written as double forfeits
(``records.synthesise_boards``). A whole-match forfeit is written as board forfeits plus a record 330;
a pairing-allocated bye as record 320, the players written as not paired (``0000 -``) in their 001
lines; a requested bye as record 240 ``F`` or ``H``, the players' cells ``0000 - F`` (``H``), each
scoring a point (half a point).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from orchestrator.domain.scoring import (
    DEFAULT_SCORING,
    ByeRequest,
    GameResult,
    MatchForfeit,
    MatchRecord,
    MatchScoring,
    board_colours,
)
from orchestrator.domain.standings import Standings
from orchestrator.domain.swiss.model import ScoreAdjustment
from orchestrator.domain.tiebreaks import PoolHistory, TieBreakError, parse_chain
from orchestrator.domain.trf.records import (
    RESULT_LETTERS,
    Grid,
    bye_record,
    check_fits,
    header_records,
    match_forfeit_record,
    points_text,
    put,
    put_round,
    requested_bye_record,
    synthesise_boards,
    team_records,
)
from orchestrator.domain.trf.swiss import adjustment_record, ranked_history


@dataclass(frozen=True, slots=True)
class _Numbering:
    """Team pairing numbers in the order of the teams, and player numbers ``(team - 1) * boards + board``."""

    tpn: Mapping[str, int]
    boards: int

    def player(self, team: str, board: int) -> int:
        return (self.tpn[team] - 1) * self.boards + board


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
    adjustments: Sequence[ScoreAdjustment] = (),
) -> str:
    """TRF-2026 text for one pool or stage; team pairing numbers follow the order of ``teams``.

    ``games`` optionally gives real per-board results, keyed by (round, first-named team), from
    White's side; otherwise plausible ones are synthesised (module docstring).
    """
    check_fits(teams, boards, name)
    codes = parse_chain(chain)
    standings, event = ranked_history(
        teams, matches, chain=codes, boards=boards, scoring=scoring, lots=lots, round_robin=round_robin,
        bye_mp=bye_mp, adjustments=adjustments, standings=standings,
    )  # fmt: skip
    numbering = _Numbering({team: index + 1 for index, team in enumerate(teams)}, boards)
    rank = {row.team: row.rank for row in standings.rows}
    rounds = event.number_of_rounds
    grid = _read_matches(matches, event, numbering, games)
    out = header_records(name, teams, boards, rounds, round_robin, codes, scoring)
    out += _player_records(teams, numbering, rounds, grid, rank)
    boards_of = {team: [numbering.player(team, b) for b in range(1, boards + 1)] for team in teams}
    out += team_records(teams, numbering.tpn, event, rank, boards_of)
    if grid.byes:
        out.append(bye_record(grid, numbering.tpn, rounds))
    out.extend(grid.requested)
    out.extend(grid.forfeits)
    out += [adjustment_record(a, numbering.tpn) for a in adjustments]
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
        if match.team_b is None and match.request is not ByeRequest.NONE:
            letter = match.request.value  # F or H: every player scores the bye (record 001, column 99)
            grid.requested.append(requested_bye_record(match, tpn))
            for board in range(1, boards + 1):
                pid = player(match.team_a, board)
                grid.cells.setdefault(pid, {})[match.round] = (0, "-", letter)
                grid.points[pid] = grid.points.get(pid, 0) + (2 if match.request is ByeRequest.FULL else 1)
            continue
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
            white_letter, black_letter = RESULT_LETTERS[result]
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
            grid.forfeits.append(match_forfeit_record(match, tpn))
    return grid


def _player_records(
    teams: Sequence[str], numbering: _Numbering, rounds: int, grid: Grid, rank: Mapping[str, int]
) -> list[str]:
    """Record 001 of every board's player: points, rank and one cell a round."""
    out: list[str] = []
    for team in teams:
        for board in range(1, numbering.boards + 1):
            pid = numbering.player(team, board)
            line: list[str] = []
            put(line, 1, "001")
            put(line, 5, f"{pid:4d}")
            put(line, 15, f"{team[:24]}, Board {board}"[:33])
            put(line, 81, points_text(Fraction(grid.points.get(pid, 0), 2), 4))
            put(line, 86, f"{rank[team]:4d}")
            for rnd in range(1, rounds + 1):
                put_round(line, rnd, grid.cells.get(pid, {}).get(rnd, (0, "-", "Z")))
            out.append("".join(line))
    return out
