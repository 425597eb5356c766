"""TRF-2026 export with the real players: the file FIDE rates a team event from (docs/ratings.md, "The
rating file").

Same tournament records as ``trf.teams.write_trf`` (012, 062, 082, 092, 142, 192, 202, 352, 162, 362) and
the same team records (310 with points, rank and players; 320 pairing-allocated byes; 330 whole-match
forfeits), plus record 013 (TRF16 team record, still read by older programs). Each player of a team list
gets one record 001 (numbered team by team in team order, each team's players in team-list order):

- 5-8 number, 10 sex (``m``/``w``), 11-13 title (TRF letter codes: g, m, f, c, wg, wm, wf, wc), 15-47
  name, 49-52 FIDE rating (blank when unrated), 54-56 federation, 58-68 FIDE id, 70-79 birth date
  (``YYYY/00/00`` when only the year is known), 81-84 points, 86-89 rank (the team's), then from column
  92 ten columns a round: opponent number (92-95), colour (97), result (99).
- A player who did not play a round (on the bench, the team's bye, a round the team was not paired) is
  written ``0000 -`` with a blank result; a board whose other side had no player seated gives the seated
  player ``0000 -`` and the forfeit letter (``+`` or ``-``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
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
    MAX_TRF_PLAYERS,
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

TITLE_CODES = {"GM": "g", "IM": "m", "FM": "f", "CM": "c", "WGM": "wg", "WIM": "wm", "WFM": "wf", "WCM": "wc"}
_NOT_PLAYED = (0, "-", " ")

Seat = tuple[str | None, str | None]  # (first-named team's player key, second team's), one a board


@dataclass(frozen=True, slots=True)
class TrfPlayer:
    """A player of a team list as FIDE needs it; ``key`` is unique in the file (e.g. the player's id)."""

    key: str
    name: str
    sex: str = ""  # "m" or "f"/"w"
    title: str = ""  # GM, IM, ... (as in the FIDE list)
    rating: int = 0  # 0: unrated
    federation: str = ""
    fide_id: int | None = None
    birth_year: int | None = None


def _record_001(number: int, player: TrfPlayer) -> list[str]:
    line: list[str] = []
    put(line, 1, "001")
    put(line, 5, f"{number:4d}")
    sex = {"f": "w", "w": "w", "m": "m"}.get(player.sex.lower()[:1], "")
    if sex:
        put(line, 10, sex)
    code = TITLE_CODES.get(player.title.upper(), "") if player.title else ""
    if code:
        put(line, 11, f"{code:>3}")
    put(line, 15, player.name[:33])
    if player.rating > 0:
        put(line, 49, f"{player.rating:4d}")
    if player.federation:
        put(line, 54, player.federation[:3].upper())
    if player.fide_id:
        put(line, 58, f"{player.fide_id:11d}")
    if player.birth_year:
        put(line, 70, f"{player.birth_year:04d}/00/00")
    return line


def write_players_trf(
    teams: Sequence[str],
    matches: Sequence[MatchRecord],
    *,
    rosters: Mapping[str, Sequence[TrfPlayer]],
    seats: Mapping[tuple[int, str], Sequence[Seat]],
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
    round_dates: Sequence[date | None] = (),
) -> str:
    """TRF-2026 text with real players. ``seats`` gives, by (round, first-named team), who sat at each
    board; ``games`` the per-board results from White's side (else synthesised from the match score);
    ``round_dates`` the day of each round (records 042, 052 and 132)."""
    check_fits(teams, boards, name)
    players = [(team, p) for team in teams for p in rosters.get(team, ())]
    if len(players) > MAX_TRF_PLAYERS:
        raise TieBreakError(
            f"a TRF-2026 file holds at most {MAX_TRF_PLAYERS} players; this one has {len(players)}"
        )
    for _, player in players:
        if len(f"x{player.name}x".splitlines()) != 1:
            raise TieBreakError(f"the player name {player.name!r} contains a line break")
    number = {player.key: index for index, (_, player) in enumerate(players, 1)}
    codes = parse_chain(chain)
    standings, event = ranked_history(
        teams, matches, chain=codes, boards=boards, scoring=scoring, lots=lots, round_robin=round_robin,
        bye_mp=bye_mp, adjustments=adjustments, standings=standings,
    )  # fmt: skip
    tpn = {team: index for index, team in enumerate(teams, 1)}
    rank = {row.team: row.rank for row in standings.rows}
    rounds = event.number_of_rounds
    grid = _read_seated(matches, event, tpn, number, seats, games, boards)
    out = header_records(name, teams, boards, rounds, round_robin, codes, scoring)
    out[1] = f"062 {len(players)}"
    out.insert(2, f"072 {sum(1 for _, p in players if p.rating > 0)}")
    out[1:1] = _date_records(round_dates[:rounds])  # the rounds the file holds
    for team, player in players:
        pid = number[player.key]
        line = _record_001(pid, player)
        put(line, 81, points_text(Fraction(grid.points.get(pid, 0), 2), 4))
        put(line, 86, f"{rank[team]:4d}")
        for rnd in range(1, rounds + 1):
            put_round(line, rnd, grid.cells.get(pid, {}).get(rnd, _NOT_PLAYED))
        out.append("".join(line))
    lists = {team: [number[p.key] for p in rosters.get(team, ())] for team in teams}
    for team in teams:
        record: list[str] = []
        put(record, 1, "013")
        put(record, 5, team[:32])
        for index, pid in enumerate(lists[team]):
            put(record, 37 + 5 * index, f"{pid:4d}")
        out.append("".join(record))
    out += team_records(teams, tpn, event, rank, lists)
    if grid.byes:
        out.append(bye_record(grid, tpn, rounds))
    out.extend(grid.requested)
    out.extend(grid.forfeits)
    out += [adjustment_record(a, tpn) for a in adjustments]
    return "\n".join(out) + "\n"


def _date_records(round_dates: Sequence[date | None]) -> list[str]:
    """042 start and 052 end (YYYY/MM/DD, from column 5) and 132 the day of each round (YY/MM/DD at 92-99,
    102-109, ...), from the rounds' days."""
    known = [day for day in round_dates if day is not None]
    if not known:
        return []
    line: list[str] = []
    put(line, 1, "132")
    for index, day in enumerate(round_dates):
        if day is not None:
            put(line, 92 + 10 * index, f"{day:%y/%m/%d}")
    return [f"042 {min(known):%Y/%m/%d}", f"052 {max(known):%Y/%m/%d}", "".join(line)]


def _read_seated(
    matches: Sequence[MatchRecord],
    event: PoolHistory,
    tpn: Mapping[str, int],
    number: Mapping[str, int],
    seats: Mapping[tuple[int, str], Sequence[Seat]],
    games: Mapping[tuple[int, str], Sequence[GameResult]] | None,
    boards: int,
) -> Grid:
    """Every seated player's cell of every round and their points, the byes and the 330 records."""
    grid = Grid()
    for match in sorted(matches, key=lambda x: (x.round, tpn.get(x.team_a, 0))):
        if match.team_b is None and match.request is not ByeRequest.NONE:
            grid.requested.append(requested_bye_record(match, tpn))  # no game: nothing rated
            continue
        if match.team_b is None:
            grid.byes[match.round] = match.team_a
            entry = next(r for r in event.rounds[match.team_a] if r.round == match.round)
            grid.bye_values.add((entry.mp, entry.gp))
            continue
        results = (games or {}).get((match.round, match.team_a)) or synthesise_boards(match, boards)
        if len(results) != boards:
            raise TieBreakError(f"round {match.round}: {match.team_a} needs {boards} board results")
        seated = [*seats.get((match.round, match.team_a), ()), *[(None, None)] * boards][:boards]
        for result, colour, (key_a, key_b) in zip(results, board_colours(boards), seated, strict=True):
            pa, pb = number.get(key_a or ""), number.get(key_b or "")
            white, black = RESULT_LETTERS[result]
            halves = (result.white_half, result.black_half)
            a_side = ((white, "w", halves[0]), (black, "b", halves[1]))
            (a_letter, a_col, a_half), (b_letter, b_col, b_half) = a_side if colour == "W" else a_side[::-1]
            for own, other, letter, col, half in (
                (pa, pb, a_letter, a_col, a_half),
                (pb, pa, b_letter, b_col, b_half),
            ):
                if own is None:
                    continue
                grid.cells.setdefault(own, {})[match.round] = (
                    (other, col, letter) if other else (0, "-", letter)
                )
                grid.points[own] = grid.points.get(own, 0) + half
        if match.forfeit is not MatchForfeit.NONE:
            grid.forfeits.append(match_forfeit_record(match, tpn))
    return grid
