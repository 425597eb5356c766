"""TRF-2026 export with the real players: the file FIDE rates a team event from (docs/ratings.md, "The
rating file").

Same tournament records as ``domain.trf.write_trf`` (012, 062, 082, 092, 142, 192, 202, 352, 162, 362) and
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
from orchestrator.domain.tiebreaks import TieBreakError, build_event, parse_chain
from orchestrator.domain.trf import (
    _LETTERS,
    MAX_TRF_PLAYERS,
    _check_fits,
    _header_records,
    _points,
    _put,
    synthesise_boards,
)

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
    _put(line, 1, "001")
    _put(line, 5, f"{number:4d}")
    sex = {"f": "w", "w": "w", "m": "m"}.get(player.sex.lower()[:1], "")
    if sex:
        _put(line, 10, sex)
    code = TITLE_CODES.get(player.title.upper(), "") if player.title else ""
    if code:
        _put(line, 11, f"{code:>3}")
    _put(line, 15, player.name[:33])
    if player.rating > 0:
        _put(line, 49, f"{player.rating:4d}")
    if player.federation:
        _put(line, 54, player.federation[:3].upper())
    if player.fide_id:
        _put(line, 58, f"{player.fide_id:11d}")
    if player.birth_year:
        _put(line, 70, f"{player.birth_year:04d}/00/00")
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
) -> str:
    """TRF-2026 text with real players. ``seats`` gives, by (round, first-named team), who sat at each
    board; ``games`` the per-board results from White's side (else synthesised from the match score)."""
    _check_fits(teams, boards, name)
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
    if standings is None:
        standings = compute_standings(
            teams, matches, chain=codes, boards=boards, scoring=scoring, lots=lots,
            round_robin=round_robin, bye_mp=bye_mp,
        )  # fmt: skip
    event = build_event(
        teams, matches, boards=boards, scoring=scoring, round_robin=round_robin, bye_mp=bye_mp
    )
    tpn = {team: index for index, team in enumerate(teams, 1)}
    rank = {row.team: row.rank for row in standings.rows}
    rounds = event.number_of_rounds
    cells: dict[int, dict[int, tuple[int, str, str]]] = {n: {} for n in number.values()}
    points: dict[int, int] = dict.fromkeys(number.values(), 0)
    forfeits: list[str] = []
    byes: dict[int, str] = {}
    bye_values: set[tuple[int, int]] = set()
    for match in sorted(matches, key=lambda x: (x.round, tpn.get(x.team_a, 0))):
        if match.team_b is None:
            byes[match.round] = match.team_a
            entry = next(r for r in event.rounds[match.team_a] if r.round == match.round)
            bye_values.add((entry.mp, entry.gp))
            continue
        results = (games or {}).get((match.round, match.team_a)) or synthesise_boards(match, boards)
        seated = list(seats.get((match.round, match.team_a), ()))
        if len(results) != boards:
            raise TieBreakError(f"round {match.round}: {match.team_a} needs {boards} board results")
        seated += [(None, None)] * (boards - len(seated))
        for (result, colour), (key_a, key_b) in zip(
            zip(results, board_colours(boards), strict=True), seated[:boards], strict=True
        ):
            pa, pb = number.get(key_a or ""), number.get(key_b or "")
            white, black = _LETTERS[result]
            a_letter, b_letter = (white, black) if colour == "W" else (black, white)
            a_half, b_half = (
                (result.white_half, result.black_half)
                if colour == "W"
                else (result.black_half, result.white_half)
            )
            a_col, b_col = ("w", "b") if colour == "W" else ("b", "w")
            if pa is not None:
                cells[pa][match.round] = (pb, a_col, a_letter) if pb is not None else (0, "-", a_letter)
                points[pa] += a_half
            if pb is not None:
                cells[pb][match.round] = (pa, b_col, b_letter) if pa is not None else (0, "-", b_letter)
                points[pb] += b_half
        if match.forfeit is not MatchForfeit.NONE:
            line: list[str] = []
            _put(line, 1, f"330 {match.forfeit.value} {match.round:3d} {tpn[match.team_a]:3d}")
            _put(line, 16, f"{tpn[match.team_b]:3d}")
            forfeits.append("".join(line))
    out = _header_records(name, teams, boards, rounds, round_robin, codes, scoring)
    out[1] = f"062 {len(players)}"
    out.insert(2, f"072 {sum(1 for _, p in players if p.rating > 0)}")
    for team, player in players:
        pid = number[player.key]
        line = _record_001(pid, player)
        _put(line, 81, _points(Fraction(points[pid], 2), 4))
        _put(line, 86, f"{rank[team]:4d}")
        for rnd in range(1, rounds + 1):
            opponent, colour, letter = cells[pid].get(rnd, _NOT_PLAYED)
            column = 92 + 10 * (rnd - 1)
            _put(line, column, f"{opponent:4d}" if opponent else "0000")
            _put(line, column + 5, colour)
            _put(line, column + 7, letter)
        out.append("".join(line))
    for team in teams:
        own = [number[p.key] for p in rosters.get(team, ())]
        record: list[str] = []
        _put(record, 1, "013")
        _put(record, 5, team[:32])
        for index, pid in enumerate(own):
            _put(record, 37 + 5 * index, f"{pid:4d}")
        out.append("".join(record))
    for team in teams:
        record = []
        _put(record, 1, "310")
        _put(record, 5, f"{tpn[team]:3d}")
        _put(record, 9, team[:32])
        _put(record, 55, _points(event.mp(team), 6))
        _put(record, 62, _points(Fraction(event.gp(team), 2), 6))
        _put(record, 69, f"{rank[team]:3d}")
        for index, p in enumerate(rosters.get(team, ())):
            _put(record, 74 + 5 * index, f"{number[p.key]:4d}")
        out.append("".join(record))
    if byes:
        if len(bye_values) > 1:
            raise TieBreakError("record 320 needs the same value for every pairing-allocated bye")
        mp, gp = next(iter(bye_values))
        record = []
        _put(record, 1, "320")
        _put(record, 5, _points(mp, 4))
        _put(record, 10, _points(Fraction(gp, 2), 4))
        for rnd in range(1, rounds + 1):
            _put(record, 15 + 4 * (rnd - 1), f"{tpn[byes[rnd]] if rnd in byes else 0:03d}")
        out.append("".join(record))
    out.extend(forfeits)
    return "\n".join(out) + "\n"
