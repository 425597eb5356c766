"""The rounds of a team Swiss TRF-2026 file put together from its records (``read_team_trf``, docs/trf.md
"What we read"): who met whom, which team is named first, when a match counts as played, and each problem
of a broken file listed once, on its own line. The file is the 802 fixture without its 802 records: six
teams of four boards (Armenia players 1-4, Brazil 5-8, Chile 9-12, Denmark 13-16, Estonia 17-20, Finland
21-24), three rounds; in round 1 Armenia (White on board 1) beat Denmark 2½-1½."""

from __future__ import annotations

from dataclasses import replace

import pytest

from orchestrator.domain.scoring import MatchForfeit, MatchRecord
from orchestrator.domain.swiss import SwissTeam, start_state
from orchestrator.domain.trf.swiss import export_trf
from orchestrator.domain.trf.swiss_read import TrfInvalid, TrfNotReadable, read_team_trf
from tests.support.trf_files import fix_points, fixture


def plain() -> str:
    lines = fixture("informative-802.trf").splitlines()
    return "".join(line + "\n" for line in lines if line[:3] not in ("802", "###"))


def consistent(text: str) -> str:
    """Each record 001's points made the sum of its results, record 310's totals left out."""
    return "".join(fix_points(line) + "\n" for line in text.splitlines())


def line_of(text: str, start: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if line.startswith(start))


def with_cells(text: str, rnd: int, cells: dict[int, str]) -> str:
    """Round ``rnd``'s cell (opponent, colour, result: 8 columns from column 92) of some players."""
    out = []
    for line in text.splitlines():
        pid = int(line[4:8]) if line.startswith("001 ") else 0
        if pid in cells:
            start = 91 + 10 * (rnd - 1)
            line = line.ljust(start)[:start] + cells[pid] + line[start + 8 :]
        out.append(line)
    return "".join(line + "\n" for line in out)


def replace_line(text: str, start: str, new: str) -> str:
    return "".join((new if line.startswith(start) else line) + "\n" for line in text.splitlines())


def problems(text: str) -> list[str]:
    with pytest.raises(TrfInvalid) as caught:
        read_team_trf(text)
    return [str(p) for p in caught.value.problems]


def round_one(text: str) -> list[tuple[str, str | None, int, int, MatchForfeit]]:
    state, _ = read_team_trf(text)
    return [(m.team_a, m.team_b, m.gp_a, m.gp_b, m.forfeit) for m in state.matches if m.round == 1]


def test_a_match_with_one_game_played_is_played_even_if_every_other_board_is_forfeited() -> None:
    """C.04.6 art. 1.6.1: a match is played when at least one game is; Armenia won board 1 over the board
    and boards 2-4 by forfeit, so it is not a forfeited match although Denmark scored nothing."""
    text = with_cells(plain(), 1, {2: "  14 b +", 3: "  15 w +", 4: "  16 b +"})
    text = consistent(with_cells(text, 1, {14: "   2 w -", 15: "   3 b -", 16: "   4 w -"}))
    assert ("Armenia", "Denmark", 8, 0, MatchForfeit.NONE) in round_one(text)


def test_a_file_without_record_162_scores_games_one_half_nought() -> None:
    text = plain()
    assert read_team_trf(replace_line(text, "162", "")) == read_team_trf(text)


def test_a_player_listed_by_two_teams_is_listed_on_the_second_team_s_line() -> None:
    text = plain()
    chile = line_of(text, "310   3")
    text = replace_line(text, "310   3", text.splitlines()[chile - 1] + "    1")
    assert f"line {chile}: player 1 is already in team 1" in problems(text)


def test_a_team_s_player_without_record_001_and_a_player_in_no_team_are_each_listed() -> None:
    text = plain()
    finland = line_of(text, "310   6")
    player = line_of(text, "001   24")
    text = replace_line(text, "310   6", text.splitlines()[finland - 1][:-2] + "99")
    found = problems(text)
    assert f"line {finland}: player 99 of team 6 has no record 001" in found
    assert f"line {player}: player 24 is in no team (record 310)" in found


def test_an_opponent_that_is_no_player_of_the_file_is_listed_on_the_player_s_line() -> None:
    text = with_cells(plain(), 1, {1: "  77 w 1"})
    assert f"line {line_of(text, '001    1')}: round 1: opponent 77 is no player of the file" in problems(
        text
    )


def test_a_player_meeting_a_team_mate_is_listed_and_the_team_s_other_boards_still_read() -> None:
    """Armenia's boards 1 and 2 name each other in round 1: both lines are listed, and the team's
    opponent is still read from boards 3 and 4 (Denmark), so nothing else is wrong with the round."""
    text = consistent(with_cells(plain(), 1, {1: "   2 w 1", 2: "   1 b 0", 13: "  14 b 0", 14: "  13 w 1"}))
    first, second = line_of(text, "001    1"), line_of(text, "001    2")
    found = problems(text)
    assert found[:2] == [
        f"line {first}: round 1: player 1 meets a player of their own team",
        f"line {second}: round 1: player 2 meets a player of their own team",
    ]
    assert not any("meets teams" in problem for problem in found)


def test_a_team_meeting_two_teams_in_a_round_is_listed_on_its_own_line() -> None:
    """Armenia's board 4 names Brazil's board 4 in round 1 (and back): Armenia meets Brazil and Denmark."""
    text = consistent(with_cells(plain(), 1, {4: "   8 b 0", 8: "   4 w 1"}))
    found = problems(text)
    assert f"line {line_of(text, '310   1')}: round 1: team 1 meets teams 2, 4" in found
    assert f"line {line_of(text, '310   2')}: round 1: team 2 meets teams 1, 5" in found


def test_a_line_up_tells_which_team_had_white_on_board_one() -> None:
    """Armenia's board-1 player rests in round 1 and a reserve (25) plays board 1 with White against
    Denmark: with record 300 (the line-up: 25, 2, 3, 4) Armenia is named first; without it the first
    player of record 310 with an opponent (2, Black on board 2) is taken, and Denmark is named first."""
    lines = plain().splitlines()
    reserve = "001   25      Armenia, Reserve".ljust(48) + "2660".ljust(32) + " 1.0"
    reserve = reserve.ljust(91) + "  13 w 1"
    at = line_of(plain(), "310")
    text = "".join(line + "\n" for line in [*lines[: at - 1], reserve, *lines[at - 1 :]])
    text = with_cells(text, 1, {1: "0000 - -", 13: "  25 b 0"})
    text = consistent(replace_line(text, "310   1", text.splitlines()[at] + "   25"))
    text = replace_line(text, "062", "062 25")
    assert ("Denmark", "Armenia", 3, 5, MatchForfeit.NONE) in round_one(text)
    with_lineup = text + "300   1   1   4   25    2    3    4\n"
    assert ("Armenia", "Denmark", 5, 3, MatchForfeit.NONE) in round_one(with_lineup)


def test_informative_totals_of_a_team_the_file_does_not_have_do_not_stop_the_others_being_checked() -> None:
    text = plain() + "802   9 Nobod    1.0    1.0\n802   1 Armen    9.0    5.5\n"
    assert problems(text) == [
        f"line {len(text.splitlines()) - 1}: team 9 is not a team of the file",
        f"line {len(text.splitlines())}: team 1: 9.0 match points given, 2 from the rounds read",
    ]


def test_a_whole_match_forfeit_with_the_lower_numbered_team_white_names_it_first() -> None:
    """Record 330 ``+-``, Armenia (team 1) White against Denmark: Armenia won by forfeit and is named first,
    whatever Denmark's players' cells say (no opponent, no result)."""
    cells = {pid: "0000 -  " for pid in (1, 2, 3, 4, 13, 14, 15, 16)}
    text = consistent(with_cells(plain(), 1, cells)) + "330 +-   1   1   4\n"
    assert ("Armenia", "Denmark", 0, 0, MatchForfeit.A_WINS) in round_one(text)
    assert MatchRecord(1, "Armenia", "Denmark", 0, 0, MatchForfeit.A_WINS).mp() == (2, 0)


def refused(text: str) -> tuple[str, list[str]]:
    with pytest.raises(TrfNotReadable) as caught:
        read_team_trf(text)
    return type(caught.value).__name__, [str(p) for p in caught.value.problems]


def test_results_after_a_round_without_any_are_listed_player_by_player() -> None:
    """Round 2 has no pairing at all, so round 2 is the round to pair: a player with an opponent or a
    result in round 3 is listed (player 1's round 3 is paired, its result not in), a blank cell is not
    (player 24's round 3)."""
    text = with_cells(plain(), 2, dict.fromkeys(range(1, 25), " " * 8))
    text = consistent(with_cells(text, 3, {1: "  17 w  ", 24: " " * 8}))
    assert refused(text) == (
        "TrfInvalid",
        [
            f"line {line_of(text, f'001 {pid:4d}')}: player {pid} has results in round 3, after round 2 "
            "that has none"
            for pid in range(1, 24)
        ],
    )


def test_a_broken_file_that_also_asks_for_what_we_do_not_implement_is_broken_with_both_listed() -> None:
    text = replace_line(plain(), "192", "192 NO_SUCH_SYSTEM") + "001 x\n"
    assert refused(text) == (
        "TrfInvalid",
        [
            f"line {line_of(text, '192')}: record 192 names NO_SUCH_SYSTEM, a system our engines do not "
            "implement",
            f"line {len(text.splitlines())}: the player number (columns 5-8) 'x' is not a number",
        ],
    )


def test_two_teams_of_the_same_name_are_refused_for_the_whole_file() -> None:
    text = replace_line(
        plain(),
        "310   2 Brazil",
        plain().splitlines()[line_of(plain(), "310   2") - 1].replace("Brazil", "Chile "),
    )
    assert refused(text) == (
        "TrfInvalid",
        ["a Swiss needs at least two teams, each with its own name (record 310)"],
    )


def test_byes_of_several_kinds_in_a_team_s_results_are_named_together() -> None:
    text = with_cells(plain(), 4, {1: "0000 - H", 2: "0000 - F", 3: "0000 - U", 4: "0000 - H"})
    text = consistent(with_cells(text, 4, {5: "  13 w 1", 13: "   5 b 0"}))
    assert refused(text) == (
        "TrfNotImplemented",
        [
            f"line {line_of(text, '310   1')}: round 4: team 1 has byes in its players' results (FHU) "
            "without record 320; not implemented by us"
        ],
    )


def test_a_round_with_several_matches_without_results_is_left_to_fide_s_engine() -> None:
    text = with_cells(plain(), 4, {1: "   5 w  ", 5: "   1 b  ", 9: "  13 w  ", 13: "   9 b  "})
    kind, found = refused(text)
    assert kind == "TrfNotImplemented"
    assert set(found) == {"round 4 is paired but not all its results are in"}


def test_teams_without_players_are_read_as_one_board() -> None:
    text = "142 3\n310   1 Armenia\n310   2 Brazil\n"
    state, next_round = read_team_trf(text)
    assert (state.boards, state.rounds, next_round) == (1, 3, 1)


@pytest.mark.parametrize("bye", ["A", "E"])
def test_the_first_or_the_last_team_may_have_the_pairing_allocated_bye(bye: str) -> None:
    """Record 320 may name any team of the file, team 1 (A) and the last (E) included."""
    others = [name for name in "ABCDE" if name != bye]
    matches = (
        MatchRecord(1, others[0], others[2], 3, 1),
        MatchRecord(1, others[1], others[3], 2, 2),
        MatchRecord(1, bye, None, 2, 0),
    )
    state = start_state([SwissTeam(name, (2500 - n,)) for n, name in enumerate("ABCDE")], boards=2, rounds=4)
    read, next_round = read_team_trf(consistent(export_trf(replace(state, matches=matches))))
    assert (set(read.matches), next_round) == (set(matches), 2)


def test_a_board_played_on_one_side_and_forfeited_on_the_other_is_refused_naming_both_players() -> None:
    """A game is either played (1, =, 0, W, D, L) or forfeited (+, -) for both players of the board (TRF-2026
    record 001, result codes); Armenia's board 1 says played, Denmark's says forfeited."""
    text = consistent(with_cells(plain(), 1, {13: "   1 b -"}))
    line = line_of(text, "001    1")
    assert problems(text) == [
        f"line {line}: round 1: players 1 and 13 disagree on their game: played for 1 ('1'), "
        "forfeited for 13 ('-')"
    ]


def test_a_board_pending_on_one_side_only_is_refused() -> None:
    text = consistent(with_cells(plain(), 1, {13: "   1 b  "}))
    assert any(
        "players 1 and 13 disagree on their game" in p and "pending for 13" in p for p in problems(text)
    )


def test_a_result_after_the_last_round_of_record_142_is_refused() -> None:
    """Record 142 says how many rounds the event has; a game in a round after it is an error of the file,
    not a round to ignore."""
    text = replace_line(plain(), "142", "142 3")
    text = consistent(with_cells(text, 4, {1: "  21 w 1", 21: "   1 b 0"}))
    assert (
        f"line {line_of(text, '001    1')}: player 1 has a game or result in round 4; record 142 says the "
        "event has 3 rounds" in problems(text)
    )


def test_records_240_and_250_may_name_the_last_round_and_the_last_team() -> None:
    """Record 240 (a requested bye) and record 250 (an acceleration) may name any round from 1 to record
    142's count, and an acceleration any team of the file: the last ones included (5 rounds, 6 teams)."""
    text = plain() + "240 H   5    6\n" + "250    1  2.0   1   5    1    6\n"
    state, next_round = read_team_trf(text)
    assert next_round == 4
    assert [
        (a.mp, a.gp, a.first_round, a.last_round, a.first_team, a.last_team) for a in state.accelerations
    ] == [(1, 4, 1, 5, 1, 6)]


@pytest.mark.parametrize(
    ("record", "reason"),
    [
        ("240 H   6    1", "record 240: round 6 is not a round of the file (1 to 5, record 142)"),
        ("250    1  2.0   1   6    1    6", "record 250: round 6 is after the last round (5)"),
        ("250    1  2.0   1   5    1    7", "record 250: team 7 is not a team of the file"),
    ],
)
def test_records_240_and_250_after_the_last_round_or_team_are_refused(record: str, reason: str) -> None:
    text = plain() + record + "\n"
    assert problems(text) == [f"line {line_of(text, record[:3])}: {reason}"]


def test_a_board_played_on_one_side_and_a_bye_on_the_other_is_refused_naming_both() -> None:
    text = consistent(with_cells(plain(), 1, {13: "   1 b H"}))
    assert problems(text)[0] == (
        f"line {line_of(text, '001    1')}: round 1: players 1 and 13 disagree on their game: played for 1 "
        "('1'), a bye for 13 ('H')"
    )
