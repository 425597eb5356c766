"""A TRF-2026 team file read board by board for the import (domain/trf/event_read.py, docs/trf.md
"Importing"), and a file's rounds replayed by our engine (domain/swiss/replay.py, "Replaying")."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from orchestrator.domain.scoring import GameResult, MatchForfeit, MatchRecord
from orchestrator.domain.swiss.c046 import C046Pairer
from orchestrator.domain.swiss.model import SwissState, SwissTeam, record_round, start_state
from orchestrator.domain.swiss.olympiad2022 import Olympiad2022Pairer
from orchestrator.domain.swiss.replay import PublishedMatch, replay, replay_state, state_before
from orchestrator.domain.trf.event_read import TrfAdjustment, TrfBoard, TrfNotImplemented, read_team_event
from orchestrator.domain.trf.records import put
from orchestrator.domain.trf.swiss import export_trf
from orchestrator.domain.trf.swiss_read import TrfInvalid, read_team_trf
from tests.support.trf_files import fix_points, fixture, with_reserve

CHENNAI = Path(__file__).parents[1] / "fixtures/olympiads/chennai-2022-open"


def chennai_text() -> str:
    return (CHENNAI / "chennai-2022-open.trf").read_text(encoding="utf-8")


def edited(name: str, old: str, new: str) -> str:
    text = fixture(name)
    assert old in text
    return text.replace(old, new, 1)


def test_players_keep_their_record_001_fields_and_teams_their_board_order() -> None:
    event = read_team_event(fixture("board-forfeit.trf"))
    assert event.name == "Synthetic Cup" and event.played == 3 and event.state.rounds == 5
    armenia = event.teams[0]
    assert armenia.name == "Armenia" and [p.number for p in armenia.players] == [1, 2, 3, 4]
    assert armenia.players[0].name == "Armenia, Board 1" and armenia.players[0].rating == 2700
    assert armenia.players[0].sex is None and armenia.players[0].fide_id is None


def test_each_board_has_its_players_colours_and_result_from_whites_side() -> None:
    event = read_team_event(fixture("board-forfeit.trf"))
    first = next(m for m in event.matches if m.round == 1 and m.first == 1)
    assert first.second == 4 and first.forfeit is MatchForfeit.NONE
    # Armenia (players 1-4) against Denmark (13-16): 1 w 1, 2 b 1, 3 w =, 4 b 0.
    assert [(b.first, b.second) for b in first.boards] == [(1, 13), (2, 14), (3, 15), (4, 16)]
    assert [b.result for b in first.boards] == [
        GameResult.WHITE_WINS,
        GameResult.BLACK_WINS,
        GameResult.DRAW,
        GameResult.WHITE_WINS,
    ]


def test_a_board_won_by_forfeit_in_a_played_match_is_a_forfeit_board() -> None:
    event = read_team_event(fixture("board-forfeit.trf"))
    match = next(m for m in event.matches if m.round == 2 and 2 in (m.first, m.second))
    board = next(b for b in match.boards if 6 in (b.first, b.second))
    assert match.forfeit is MatchForfeit.NONE
    # Brazil's board 2 (player 6, Black) won by forfeit against Finland's player 22.
    assert board.board == 2 and board.result is GameResult.BLACK_WINS_FORFEIT


def test_a_chennai_round_has_every_match_and_chads_credit_is_its_round_one_bye() -> None:
    event = read_team_event(chennai_text())
    assert event.played == 11 and len(event.teams) == 188 and len(event.matches) == 1018
    chad = event.team_number("Chad")
    assert event.byes == {1: chad}
    assert chad not in event.absent[1] and len(event.absent[1]) == 3
    # Round 8, Hong Kong - Haiti: board 1 has no game in the source, lost by both.
    hong_kong = event.team_number("Hong Kong")
    match = next(m for m in event.matches if m.round == 8 and hong_kong in (m.first, m.second))
    assert match.boards[0].result is GameResult.DOUBLE_FORFEIT
    assert all(len(m.boards) == 4 for m in event.matches)


def test_a_board_with_the_colours_of_another_board_is_refused_on_the_players_line() -> None:
    text = fixture("board-forfeit.trf")
    lines = text.splitlines()
    # Armenia - Denmark, round 1: board 2 swapped to White for Armenia (and Black for Denmark).
    assert lines[11][91:99] == "  14 b 1" and lines[23][91:99] == "   2 w 0"
    lines[11] = lines[11][:96] + "w" + lines[11][97:]
    lines[23] = lines[23][:96] + "b" + lines[23][97:]
    with pytest.raises(TrfNotImplemented) as refused:
        read_team_event("\n".join(lines) + "\n")
    assert [p.line for p in refused.value.problems] == [12]
    assert refused.value.problems[0].reason == (
        "round 1: player 2 has the other colour than the first-named team's on the odd boards (record 352) "
        "on board 2"
    )


def test_points_added_or_taken_away_other_than_a_credited_draw_are_kept_with_their_line() -> None:
    event = read_team_event(fixture("penalty-299.trf"))
    assert event.adjustments == (TrfAdjustment(41, 3, 3, -2, -2, True),)
    assert event.byes == {}


def test_a_credit_for_a_team_that_played_the_round_is_kept_as_points_not_a_bye() -> None:
    text = chennai_text().replace("299     1.0   2.0    1  184", "299     1.0   2.0    1    1")
    event = read_team_event(text)
    assert 1 not in event.byes
    assert [(a.team, a.round, a.mp, a.gp, a.pairing) for a in event.adjustments] == [(1, 1, 1, 4, True)]


def test_points_for_the_standings_only_are_kept_for_round_0_outside_the_pairing() -> None:
    text = fixture("penalty-299.trf").replace("299    -2.0  -1.0    3    3", "299    -2.0  -1.0  999    3")
    event = read_team_event(text)
    assert event.adjustments == (TrfAdjustment(41, 3, 0, -2, -2, False),)


def test_a_game_points_primary_system_is_refused_on_record_192() -> None:
    with pytest.raises(TrfNotImplemented) as refused:
        read_team_event(fixture("game-points-192.trf"))
    assert [(p.line, p.reason) for p in refused.value.problems] == [
        (7, "record 192: the server pairs with match points primary and Type A colours only")
    ]


def test_a_broken_file_lists_every_problem_by_line() -> None:
    with pytest.raises(TrfInvalid) as refused:
        read_team_event(fixture("broken.trf"))
    assert [p.line for p in refused.value.problems] == [6, 13, 16, 20, 28, 41, 42, 43]


def test_fides_sample_is_read_with_its_requested_byes_apart_from_the_absences() -> None:
    """Records 240 F/H of GrandMommysCup03.trf (18 lines, 22 byes, docs/trf.md "Requested byes"): each
    round's requested byes by team, full or half, and those teams not among the round's absent."""
    event = read_team_event(fixture("GrandMommysCup03.trf"))
    assert event.played == 14
    assert event.requested[1] == {3: True, 39: False} and event.requested[12] == {15: False, 31: False}
    everyone = [(rnd, team, full) for rnd, byes in event.requested.items() for team, full in byes.items()]
    assert len(everyone) == 22 and sum(full for _r, _t, full in everyone) == 9
    assert not any(team in event.absent.get(rnd, ()) for rnd, team, _full in everyone)


# --- replaying ------------------------------------------------------------------------------------------


def test_the_state_before_a_round_keeps_the_rounds_before_it_only() -> None:
    state, _next = read_team_trf(chennai_text())
    before = state_before(state, 3)
    assert {m.round for m in before.matches} == {1, 2}
    assert before.adjustments == state.adjustments  # Chad's credit counts from round 2
    assert state_before(state, 1).adjustments == ()
    assert all(r <= 3 for team in before.teams for r in team.absent)


def test_replaying_the_chennai_file_reproduces_what_the_bench_does() -> None:
    state, next_round = read_team_trf(chennai_text())
    found = replay_state(Olympiad2022Pairer(), state, next_round - 1)
    data = json.loads((CHENNAI / "fixture.json").read_text(encoding="utf-8"))
    teams = [team["name"] for team in sorted(data["teams"], key=lambda t: t["no"])]
    rounds = {
        rnd["round"]: [PublishedMatch(m["first"], m["second"], tuple(m["boards"])) for m in rnd["matches"]]
        for rnd in data["rounds"]
    }
    bench = replay(
        Olympiad2022Pairer(),
        teams,
        rounds,
        boards=4,
        total_rounds=11,
        pairing="olympiad-2022",
        unpaired_draws=frozenset({(1, "Chad")}),
    )
    assert [(r.reproduced, r.total) for r in found] == [(r.reproduced, r.total) for r in bench]
    assert sum(r.reproduced for r in found) == 1011 and sum(r.total for r in found) == 1018


def test_each_difference_names_both_teams_and_the_article() -> None:
    state, next_round = read_team_trf(chennai_text())
    found = replay_state(Olympiad2022Pairer(), state, next_round - 1)
    differences = [d for r in found for d in r.differences]
    assert differences
    for d in differences:
        assert d.ours[0] != d.second[0]
        expected = "a float" if d.first[1] != d.second[1] else "within a score group"
        assert expected in d.article and "Olympiad Pairing Rules 2022" in d.article


def test_a_fide_team_swiss_replay_cites_c046() -> None:
    state, next_round = read_team_trf(fixture("board-forfeit.trf"))
    found = replay_state(C046Pairer(), replace(state, pairing="fide-team-swiss"), next_round - 1)
    assert [r.round for r in found] == [1, 2, 3] and all(r.total == 3 for r in found)
    assert all("C.04.6" in d.article for r in found for d in r.differences)


def test_record_300_puts_a_reserve_on_the_board_it_names() -> None:
    event = read_team_event(with_reserve(lineup=True))
    match = next(m for m in event.matches if m.round == 1 and 1 in (m.first, m.second))
    assert [(b.first, b.second) for b in match.boards] == [(1, 13), (25, 14), (3, 15), (4, 16)]
    assert match.boards[1].result is GameResult.BLACK_WINS  # the reserve, Black on board 2, won
    armenia = event.teams[0]
    assert [p.number for p in armenia.players] == [1, 2, 3, 4, 25]


def test_without_record_300_the_roster_order_gives_the_boards_and_colours_must_follow() -> None:
    with pytest.raises(TrfNotImplemented) as refused:
        read_team_event(with_reserve(lineup=False))
    assert [p.line for p in refused.value.problems] == [13, 14]


def player_line(text: str, number: int, column: int, value: str) -> str:
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("001 ") and int(line[4:8]) == number)
    line = lines[at].ljust(column + len(value))
    lines[at] = line[: column - 1] + value + line[column - 1 + len(value) :]
    return "\n".join(lines) + "\n"


def test_a_players_sex_title_federation_fide_id_and_birth_year_are_read() -> None:
    text = fixture("board-forfeit.trf")
    for column, value in ((10, "w"), (11, " GM"), (54, "ARM"), (58, "   13300474"), (70, "1990/05/01")):
        text = player_line(text, 1, column, value)
    text = player_line(player_line(text, 2, 11, " MF"), 2, 10, "m")
    event = read_team_event(text)
    first, second = event.teams[0].players[:2]
    assert (first.sex, first.title, first.federation, first.fide_id, first.birth_year) == (
        "f",
        "GM",
        "ARM",
        13300474,
        1990,
    )
    assert (second.sex, second.title, second.federation, second.fide_id, second.birth_year) == (
        "m",
        None,
        None,
        None,
        None,
    )


def test_two_players_who_both_won_one_board_are_refused() -> None:
    text = player_line(fixture("board-forfeit.trf"), 13, 99, "1")  # Denmark's board 1 also "won" round 1
    text = player_line(text, 13, 81, " 2.0")
    with pytest.raises((TrfNotImplemented, TrfInvalid)) as refused:
        read_team_event(text)
    assert refused.value.problems


def test_a_bye_worth_a_win_is_refused_on_record_320() -> None:
    text = fixture("board-forfeit.trf") + "320  2.0  4.0 000 000 000\n"
    with pytest.raises(TrfNotImplemented) as refused:
        read_team_event(text)
    assert [(p.line, p.reason[:10]) for p in refused.value.problems] == [
        (len(text.splitlines()), "record 320")
    ]


def test_a_whole_match_forfeit_has_forfeited_boards_without_players() -> None:
    lines = fixture("board-forfeit.trf").splitlines()
    # Round 3, Estonia (17-20) - Armenia (1-4): every board forfeited, Estonia the first-named team.
    forfeited = []
    for line in lines:
        number = int(line[4:8]) if line.startswith("001 ") else 0
        if number in (1, 2, 3, 4, 17, 18, 19, 20):
            won = number >= 17
            line = line[:118] + ("+" if won else "-") + line[119:]
        forfeited.append(line)
    text = "\n".join(fix_points(line) for line in forfeited) + "\n"
    event = read_team_event(text)
    match = next(m for m in event.matches if m.round == 3 and 1 in (m.first, m.second))
    assert match.forfeit in (MatchForfeit.A_WINS, MatchForfeit.B_WINS)
    assert (match.first, match.second) == (5, 1) and [b.board for b in match.boards] == [1, 2, 3, 4]
    assert all(b.first is None and b.second is None for b in match.boards)
    assert [b.result.is_forfeit for b in match.boards] == [True] * 4


def cells(text: str, changes: dict[int, tuple[int, str]]) -> str:
    """The file with round cells replaced (player -> (round, cell)), every player's points made right."""
    for number, (rnd, cell) in changes.items():
        text = player_line(text, number, 92 + 10 * (rnd - 1), cell)
    return "\n".join(fix_points(line) for line in text.splitlines()) + "\n"


def armenia_denmark(text: str) -> tuple[TrfBoard, ...]:
    event = read_team_event(text)
    return next(m for m in event.matches if m.round == 1 and m.first == 1).boards


def test_a_board_the_other_team_left_empty_is_won_by_forfeit_and_one_nobody_sat_at_lost_by_both() -> None:
    # Round 1, Armenia - Denmark: Armenia's board 4 player absent, Denmark's board 4 wins by forfeit.
    one_side = armenia_denmark(cells(fixture("board-forfeit.trf"), {4: (1, "0000 - -"), 16: (1, "0000 - +")}))
    assert one_side[3] == TrfBoard(4, None, 16, GameResult.WHITE_WINS_FORFEIT)  # Denmark White on board 4
    # Armenia's board 3 player (White there) wins by forfeit against an empty board.
    won = armenia_denmark(cells(fixture("board-forfeit.trf"), {3: (1, "0000 - +"), 15: (1, "0000 - -")}))
    assert won[2] == TrfBoard(3, 3, None, GameResult.WHITE_WINS_FORFEIT)
    nobody = armenia_denmark(cells(fixture("board-forfeit.trf"), {4: (1, "0000 - -"), 16: (1, "0000 - -")}))
    assert nobody[3] == TrfBoard(4, None, None, GameResult.DOUBLE_FORFEIT)
    assert [b.board for b in nobody] == [1, 2, 3, 4]


def test_an_empty_board_of_a_line_up_keeps_the_boards_after_it() -> None:
    text = cells(fixture("board-forfeit.trf"), {2: (1, "0000 - -"), 14: (1, "0000 - +")})
    boards = armenia_denmark(text + "300   1   1   4    1    0    3    4\n")
    assert [(b.first, b.second) for b in boards] == [(1, 13), (None, 14), (3, 15), (4, 16)]
    assert boards[1].result is GameResult.WHITE_WINS_FORFEIT  # Denmark's board 2, White there, won


def test_a_board_whose_letters_do_not_make_a_result_is_refused() -> None:
    # Round 1, board 3: Armenia's "=" against Denmark's "1"; board 1 lost by both keeps the match total.
    text = cells(fixture("board-forfeit.trf"), {15: (1, "   3 b 1"), 1: (1, "  13 w 0"), 13: (1, "   1 b 0")})
    with pytest.raises(TrfNotImplemented) as refused:
        read_team_event(text)
    assert [(p.line, p.reason) for p in refused.value.problems] == [(13, "round 1: board 3 results = and 1")]


def test_more_players_than_boards_are_refused_on_the_teams_line() -> None:
    text = with_reserve(lineup=False)
    text = cells(text, {2: (1, "0000 - +"), 1: (1, "  13 w 0"), 13: (1, "   1 b 0")})
    with pytest.raises(TrfNotImplemented) as refused:
        read_team_event(text)
    line = next(n for n, row in enumerate(text.splitlines(), 1) if row.startswith("310   1 "))
    assert (line, "round 1: teams 1 and 4 play more than 4 boards") in [
        (p.line, p.reason) for p in refused.value.problems
    ]


def test_players_and_teams_keep_their_lines_and_the_federation_of_record_310() -> None:
    lines = fixture("board-forfeit.trf").splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("310   2 "))
    lines[at] = lines[at][:41] + "BRA  " + lines[at][46:]
    event = read_team_event("\n".join(lines) + "\n")
    assert (event.teams[1].line, event.teams[1].federation, event.teams[0].federation) == (at + 1, "BRA", "")
    assert [p.line for p in event.teams[1].players] == [15, 16, 17, 18]


def test_a_file_with_record_013_only_has_its_teams_without_federation() -> None:
    lines = [line for line in fixture("board-forfeit.trf").splitlines() if not line.startswith("310 ")]
    names = ("Armenia", "Brazil", "Chile", "Denmark", "Estonia", "Finland")
    for index, name in enumerate(names):
        row: list[str] = []
        put(row, 1, "013")
        put(row, 5, name)
        for board in range(4):
            put(row, 37 + 5 * board, f"{4 * index + board + 1:4d}")
        lines.append("".join(row))
    event = read_team_event("\n".join(lines) + "\n")
    assert [t.name for t in event.teams] == list(names) and {t.federation for t in event.teams} == {""}
    assert event.teams[2].line == len(lines) - 3


def test_an_eleven_digit_fide_id_a_three_letter_title_and_a_federation_with_a_digit() -> None:
    text = fixture("board-forfeit.trf")
    for column, value in ((10, "f"), (11, "WGM"), (54, "A1B"), (58, "70123454321")):
        text = player_line(text, 3, column, value)
    player = read_team_event(text).teams[0].players[2]
    assert (player.sex, player.title, player.federation, player.fide_id) == ("f", "WGM", None, 70123454321)


def test_a_file_without_a_name_and_the_rounds_of_its_absences() -> None:
    text = "\n".join(line for line in fixture("board-forfeit.trf").splitlines() if not line.startswith("012"))
    event = read_team_event(text + "\n")
    assert event.name == "Imported event" and sorted(event.absent) == [1, 2, 3, 4]


def test_a_bye_worth_a_draw_is_read_and_others_are_refused() -> None:
    state = domain_start_five()
    text = export_trf(state)
    event = read_team_event(text)
    assert event.byes == {1: event.team_number(state.matches[-1].team_a)}
    for value in ("320  1.0  3.0", "320  2.0  2.5"):
        with pytest.raises(TrfNotImplemented):
            changed = re.sub(r"^320 .{9}", value, text, flags=re.M)
            read_team_event("\n".join(fix_points(line) for line in changed.splitlines()) + "\n")


def test_a_credit_in_the_last_round_played_is_that_rounds_bye() -> None:
    event = read_team_event(chennai_text())
    pakistan = event.team_number("Pakistan")
    assert pakistan in event.absent[11]
    row: list[str] = []
    for column, value in ((1, "299"), (8, " 1.0"), (14, " 2.0"), (20, " 11"), (24, f"{pakistan:4d}")):
        put(row, column, value)
    credited = read_team_event(chennai_text() + "".join(row) + "\n")
    assert (
        credited.byes == {1: event.team_number("Chad"), 11: pakistan} and pakistan not in credited.absent[11]
    )


def domain_start_five() -> SwissState:
    """Five teams after round 1, paired by our C.04.6 engine: one team had the bye."""
    names = ("Alpha", "Bravo", "Charlie", "Delta", "Echo")
    state = start_state([SwissTeam(n, (2500 - 10 * i,) * 4) for i, n in enumerate(names)], boards=4, rounds=4)
    pairing = C046Pairer().pair_round(state, 1)
    bye = pairing.bye_record(state)
    assert bye is not None
    return record_round(state, [*(MatchRecord(1, p.first, p.second, 6, 2) for p in pairing.pairings), bye])
