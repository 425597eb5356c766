"""TRF-2026 export of a Swiss stage for pairing its next round with FIDE C.04.6 (docs/swiss.md).

Record 192 names the stage's pairing system: ``FIDE_TEAM_TYPEA_MP_GP`` for ``fide-team-swiss`` (C.04.6,
Type A colours, match points primary, game points for colours), ``CUSTOM_TEAM_OLYMPIAD_2022`` and
``CUSTOM_TEAM_SCORE_GROUP_HALVES`` for the other two (our own names: no FIDE checker pairs them); 142
the scheduled rounds, 152 the initial colour drawn by lot (art. 4.3.1), 352 the board colours of the
first-named team. Each team has one player per board ("Team, Board k", rated with the team's k-th
highest rating); per-board results are synthesised from the match score as in ``trf.teams``
(``records.synthesise_boards``). A team not paired in a round (absent, withdrawn, not yet entered) is
written as ``0000 - Z`` in that round, including the round to be paired, so that it is left out of it;
a requested bye is written as such a round and its record 240, an acceleration and a prohibited pairing
as records 250 and 260 (docs/trf.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

from orchestrator.domain.scoring import (
    DEFAULT_SCORING,
    MatchForfeit,
    MatchRecord,
    MatchScoring,
    board_colours,
)
from orchestrator.domain.standings import Standings, compute_standings
from orchestrator.domain.swiss.model import ScoreAdjustment, SwissState, adjusted_totals
from orchestrator.domain.swiss.pairing import FIDE_TEAM_SWISS, OLYMPIAD_2022, SCORE_GROUP_HALVES
from orchestrator.domain.tiebreaks import PoolHistory, build_event
from orchestrator.domain.trf.records import (
    RESULT_LETTERS,
    match_forfeit_record,
    points_text,
    put,
    put_round,
    synthesise_boards,
)

PAIRING_SYSTEM_CODE = "FIDE_TEAM_TYPEA_MP_GP"
# Record 192 for each pairing system a stage can name (the last two are not FIDE codes, docs/swiss.md).
SYSTEM_CODES = {
    FIDE_TEAM_SWISS: PAIRING_SYSTEM_CODE,
    OLYMPIAD_2022: "CUSTOM_TEAM_OLYMPIAD_2022",
    SCORE_GROUP_HALVES: "CUSTOM_TEAM_SCORE_GROUP_HALVES",
}
# Record 192 of a FIDE C.04.6 stage by (primary score, colour model): C.04.6 arts. 1.2.1 and 1.7.
FIDE_TEAM_CODES = {
    ("mp", "A"): PAIRING_SYSTEM_CODE,
    ("gp", "A"): "FIDE_TEAM_TYPEA_GP_MP",
    ("mp", "none"): "FIDE_TEAM_MP_GP",
    ("gp", "none"): "FIDE_TEAM_GP_MP",
}
_NOT_PAIRED = (0, "-", "Z")
_BYE = (0, "-", " ")


def _line(*fields: tuple[int, str]) -> str:
    out: list[str] = []
    for column, text in fields:
        put(out, column, text)
    return "".join(out)


def _cells(state: SwissState, upto: int) -> dict[int, dict[int, tuple[int, str, str]]]:
    """Per player id: round -> (opponent id, colour, result letter)."""
    boards = state.boards
    tpn = {team.name: number for number, team in enumerate(state.teams, 1)}

    def player(team: str, board: int) -> int:
        return (tpn[team] - 1) * boards + board

    cells: dict[int, dict[int, tuple[int, str, str]]] = {}
    for pid in range(1, len(state.teams) * boards + 1):
        cells[pid] = dict.fromkeys(range(1, upto + 1), _NOT_PAIRED)
    for match in state.matches:
        if match.team_b is None:
            for board in range(1, boards + 1):
                cells[player(match.team_a, board)][match.round] = _BYE
            continue
        results = synthesise_boards(match, boards)
        for board, (result, colour) in enumerate(zip(results, board_colours(boards), strict=True), 1):
            pa, pb = player(match.team_a, board), player(match.team_b, board)
            white, black = RESULT_LETTERS[result]
            a_letter, b_letter = (white, black) if colour == "W" else (black, white)
            a_col, b_col = ("w", "b") if colour == "W" else ("b", "w")
            cells[pa][match.round] = (pb, a_col, a_letter)
            cells[pb][match.round] = (pa, b_col, b_letter)
    return cells


def _team_records(state: SwissState, totals: dict[str, tuple[int, int]], rank: dict[str, int]) -> list[str]:
    """Records 310 (teams, their points and players) and 320 (pairing-allocated byes)."""
    out: list[str] = []
    boards = state.boards
    for number, team in enumerate(state.teams, 1):
        mp, gp = totals[team.name]
        fields = [
            (1, "310"),
            (5, f"{number:3d}"),
            (9, team.name[:32]),
            (55, points_text(mp, 6)),
            (62, points_text(Fraction(gp, 2), 6)),
            (69, f"{rank[team.name]:3d}"),
        ]
        fields += [
            (74 + 5 * (board - 1), f"{(number - 1) * boards + board:4d}") for board in range(1, boards + 1)
        ]
        out.append(_line(*fields))
    byes = {match.round: state.tpn(match.team_a) for match in state.matches if match.team_b is None}
    if byes:
        mp, gp = state.bye_points()
        fields = [(1, "320"), (5, points_text(mp, 4)), (10, points_text(Fraction(gp, 2), 4))]
        fields += [(15 + 4 * (rnd - 1), f"{byes.get(rnd, 0):03d}") for rnd in range(1, max(byes) + 1)]
        out.append(_line(*fields))
    return out


def export_trf(state: SwissState, *, round_no: int | None = None) -> str:
    """TRF-2026 text of the stage, ready for pairing ``round_no`` (default: the next round).

    The rounds played are written in full; a ``round_no`` within the stage also marks the teams that
    are not to be paired in it.
    """
    target = state.rounds_played + 1 if round_no is None else round_no
    upto = min(max(target, state.rounds_played), state.rounds)
    boards = state.boards
    cells = _cells(state, upto)
    totals = {team.name: state.points(team.name) for team in state.teams}
    order = sorted(state.teams, key=lambda t: (-totals[t.name][0], -totals[t.name][1], state.tpn(t.name)))
    rank = {team.name: index for index, team in enumerate(order, 1)}

    out = [
        f"012 {state.name}",
        f"062 {len(state.teams) * boards}",
        f"082 {len(state.teams)}",
        "092 Team Swiss",
        f"142 {state.rounds}",
        f"152 {state.initial_colour}",
        f"192 {system_code(state)}",
        "352 " + "".join(board_colours(boards)),
        _line(
            (1, "162"),
            (5, " W" + points_text(1, 4)),
            (14, " D" + points_text(Fraction(1, 2), 4)),
            (23, " L" + points_text(0, 4)),
        ),
        _line(
            (1, "362"),
            (5, "TW" + points_text(state.scoring.win, 4)),
            (14, "TD" + points_text(state.scoring.draw, 4)),
            (23, "TL" + points_text(state.scoring.loss, 4)),
        ),
    ]
    for number, team in enumerate(state.teams, 1):
        ratings = sorted(team.ratings, reverse=True)
        for board in range(1, boards + 1):
            pid = (number - 1) * boards + board
            own = sum(
                (_half(letter) for _, _, letter in cells[pid].values()),
                start=0,
            )
            fields = [(1, "001"), (5, f"{pid:4d}"), (15, f"{team.name[:24]}, Board {board}"[:33])]
            if board <= len(ratings) and ratings[board - 1] > 0:
                fields.append((49, f"{ratings[board - 1]:4d}"))
            fields += [(81, points_text(Fraction(own, 2), 4)), (86, f"{rank[team.name]:4d}")]
            line = list(_line(*fields))
            for rnd in range(1, upto + 1):
                cell = cells[pid][rnd]
                if rnd == target and not team.available(rnd):
                    cell = _NOT_PAIRED
                elif rnd == target:
                    continue
                put_round(line, rnd, cell)
            out.append("".join(line))
    out += _team_records(state, totals, rank)
    tpn = {team.name: number for number, team in enumerate(state.teams, 1)}
    out += [match_forfeit_record(m, tpn) for m in state.matches if m.forfeit is not MatchForfeit.NONE]
    out += [adjustment_record(a, tpn) for a in state.adjustments]
    out += pairing_records(state)
    return "\n".join(out) + "\n"


def pairing_records(state: SwissState) -> list[str]:
    """Records 240 ``F``/``H`` (a requested bye: type 5, round 7-9, team 11-14), 250 (an acceleration:
    match points 5-8, game points 10-13, rounds 15-17 and 19-21, teams 23-26 and 28-31) and 260 (a
    prohibition: rounds 5-7 and 9-11, teams from column 13, five columns each) of the state."""
    out = [
        _line((1, "240"), (5, "F" if b.full else "H"), (7, f"{b.round:3d}"), (11, f"{state.tpn(b.team):4d}"))
        for b in state.requested_byes
    ]
    out += [
        _line(
            (1, "250"),
            (5, f"{a.mp:4d}"),
            (10, points_text(Fraction(a.gp, 2), 4)),
            (15, f"{a.first_round:3d}"),
            (19, f"{a.last_round:3d}"),
            (23, f"{a.first_team:4d}"),
            (28, f"{a.last_team:4d}"),
        )
        for a in state.accelerations
    ]
    for p in state.prohibitions:
        numbers = sorted(state.tpn(team) for team in p.teams)
        teams = [(13 + 5 * i, f"{n:4d}") for i, n in enumerate(numbers)]
        out.append(_line((1, "260"), (5, f"{p.first_round:3d}"), (9, f"{p.last_round:3d}"), *teams))
    return out


def system_code(state: SwissState) -> str:
    """Record 192 of the stage: its system, and for C.04.6 the primary score and colour model."""
    if state.pairing == FIDE_TEAM_SWISS:
        return FIDE_TEAM_CODES[state.primary, state.colour_model]
    return SYSTEM_CODES.get(state.pairing, PAIRING_SYSTEM_CODE)


def ranked_history(
    teams: Sequence[str],
    matches: Sequence[MatchRecord],
    *,
    chain: Sequence[str],
    boards: int,
    scoring: MatchScoring = DEFAULT_SCORING,
    lots: Mapping[str, int] | None = None,
    round_robin: bool = True,
    bye_mp: int | None = None,
    adjustments: Sequence[ScoreAdjustment] = (),
    standings: Standings | None = None,
) -> tuple[Standings, PoolHistory]:
    """The standings a TRF file writes (``standings`` when given) and the history its rounds are read
    from, both with the stage's bonus and penalty points (record 299)."""
    totals = adjusted_totals(adjustments)
    if standings is None:
        standings = compute_standings(
            teams, matches, chain=chain, boards=boards, scoring=scoring, lots=lots,
            round_robin=round_robin, bye_mp=bye_mp, adjustments=totals,
        )  # fmt: skip
    event = build_event(
        teams, matches, boards=boards, scoring=scoring, round_robin=round_robin, bye_mp=bye_mp,
        adjustments=totals,
    )  # fmt: skip
    return standings, event


def adjustment_record(adjustment: ScoreAdjustment, tpn: Mapping[str, int]) -> str:
    """TRF-2026 record 299 with a blank type: match points at 8-11, game points at 14-17, the round at
    20-22 (``999``: the standings only), the team at 24-27."""
    rnd = adjustment.round if adjustment.pairing else 999
    return _line(
        (1, "299"),
        (8, points_text(adjustment.mp, 4)),
        (14, points_text(Fraction(adjustment.gp, 2), 4)),
        (20, f"{rnd:3d}"),
        (24, f"{tpn[adjustment.team]:4d}"),
    )


def _half(letter: str) -> int:
    """Half-points a result letter scores for its player."""
    return {"1": 2, "+": 2, "=": 1}.get(letter, 0)


def add_round(trf: str, *, round_no: int, pairs: Sequence[tuple[int, int]]) -> str:
    """The TRF text with the pairing of ``round_no`` written into it, results still blank.

    ``pairs`` are (first-named, second) team pairing numbers, second ``0`` for the pairing-allocated
    bye. Each team's players are those of its record 310 in board order, the first-named team taking
    the record-352 colours (White on the odd boards without one); the bye goes into record 320
    (1 MP and half the boards' game points when the file has none).
    """
    lines = trf.splitlines()
    colours = next((line[4:].strip().upper() for line in lines if line.startswith("352 ")), "")
    rosters: dict[int, list[int]] = {}
    for line in lines:
        if line.startswith("310 "):
            ids = (line[i : i + 4].strip() for i in range(73, len(line), 5))
            rosters[int(line[4:7])] = [int(pid) for pid in ids if pid.isdigit()]
    boards = max([len(colours), *(len(r) for r in rosters.values())])
    colours = colours or "".join(board_colours(boards))
    cells: dict[int, tuple[int, str]] = {}
    bye = 0
    for first, second in pairs:
        if second == 0:
            bye = first
            cells.update({player: (0, "-") for player in rosters.get(first, [])})
            continue
        for player, opponent, own in zip(
            rosters.get(first, []), rosters.get(second, []), colours, strict=False
        ):
            cells[player] = (opponent, own.lower())
            cells[opponent] = (player, "b" if own == "W" else "w")
    column = 92 + 10 * (round_no - 1)
    out = []
    for line in lines:
        pid = line[4:8].strip()
        if line.startswith("001 ") and pid.isdigit() and int(pid) in cells:
            opponent, colour = cells[int(pid)]
            line = (
                line[: column - 1].ljust(column - 1)
                + (f"{opponent:4d}" if opponent else "0000")
                + f" {colour}"
            )
        elif line.startswith("320 ") and bye:
            line = line[: 14 + 4 * (round_no - 1)].ljust(14 + 4 * (round_no - 1)) + f"{bye:03d}"
            bye = 0
        out.append(line)
    if bye:
        record = _line((1, "320"), (5, points_text(1, 4)), (10, points_text(Fraction(boards, 2), 4)))
        out.append(record.ljust(14 + 4 * (round_no - 1)) + f"{bye:03d}")
    return "\n".join(out) + "\n"


def unfinished_boards(trf: str, *, before: int) -> list[tuple[int, str, str]]:
    """Boards of rounds before ``before`` that are paired but have no result yet, as (round, white
    player, black player) names from the player records."""
    names: dict[int, str] = {}
    open_cells: list[tuple[int, int, int]] = []
    for line in trf.splitlines():
        pid = line[4:8].strip()
        if not line.startswith("001 ") or not pid.isdigit():
            continue
        names[int(pid)] = line[14:47].strip()
        for rnd in range(1, before):
            cell = line[91 + 10 * (rnd - 1) : 99 + 10 * (rnd - 1)].ljust(8)
            if cell[:4].strip().isdigit() and int(cell[:4]) > 0 and cell[7] == " " and cell[5] == "w":
                open_cells.append((rnd, int(pid), int(cell[:4])))
    return [
        (rnd, names.get(white, str(white)), names.get(black, str(black))) for rnd, white, black in open_cells
    ]
