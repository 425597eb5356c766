"""Reading a TRF-2026 team file (docs/trf.md, "What we read"), without FIDE's engine: each record used,
read as information or refused with its line and a reason; the state the engines pair from (record 299
points, game points primary, board forfeits, line-ups)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from orchestrator.domain.scoring import MatchForfeit, MatchRecord
from orchestrator.domain.swiss import ScoreAdjustment, SwissTeam, start_state
from orchestrator.domain.swiss.c046 import teams_before
from orchestrator.domain.trf.records import put, put_round
from orchestrator.domain.trf.swiss import export_trf
from orchestrator.domain.trf.swiss_read import TrfInvalid, TrfNotImplemented, read_team_trf
from tests.support.trf_files import fix_points, fixture, with_reserve


def plain() -> str:
    """The 802 file without its 802 records: six teams, four boards, three rounds of five."""
    lines = fixture("informative-802.trf").splitlines()
    return "\n".join(line for line in lines if line[:3] not in ("802", "###")) + "\n"


def problems(text: str) -> list[str]:
    with pytest.raises(TrfInvalid) as caught:
        read_team_trf(text)
    return [str(problem) for problem in caught.value.problems]


def refusals(text: str) -> list[str]:
    with pytest.raises(TrfNotImplemented) as caught:
        read_team_trf(text)
    assert not isinstance(caught.value, TrfInvalid)
    return [str(problem) for problem in caught.value.problems]


def line_of(text: str, start: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if line.startswith(start))


def test_fide_sample_file_is_read_record_by_record() -> None:
    state, next_round = read_team_trf(fixture("GrandMommysCup03.trf"))
    assert next_round == 15 and state.rounds == 14 and len(state.teams) == 50
    assert len(state.requested_byes) == 22 and len(state.accelerations) == 4 and len(state.prohibitions) == 3


def test_record_299_is_written_back_as_read() -> None:
    state, _ = read_team_trf(fixture("penalty-299.trf"))
    assert [line for line in export_trf(state).splitlines() if line.startswith("299")] == [
        "299    -2.0  -1.0    3    3"
    ]
    standings_only = replace(state, adjustments=(ScoreAdjustment("Chile", 0, 1, 0, pairing=False),))
    again, _ = read_team_trf(export_trf(standings_only))
    assert again.adjustments == standings_only.adjustments
    assert again.points("Chile") == (6, 17)  # counted in the standings
    assert again.points("Chile", through=3) == (5, 17)  # not in the score pairing uses
    assert again.adjusted("Chile", 4) == (0, 0)


def test_a_float_is_read_from_the_scores_with_bonus_and_penalty_points() -> None:
    """C.04.6 art. 1.5: a floater plays an opponent with a different score, and the score that round
    was paired from includes the points of record 299; gacrux reads floats from the match scores alone
    (docs/swiss.md, "Where we follow the article rather than gacrux")."""
    teams = [SwissTeam(name, (2500 - 10 * n,)) for n, name in enumerate("ABCDEF")]
    state = start_state(teams, boards=4, rounds=7)
    matches = [MatchRecord(1, "A", "D", 4, 4), MatchRecord(1, "B", "E", 4, 4), MatchRecord(1, "C", "F", 4, 4)]
    matches += [
        MatchRecord(2, "A", "B", 5, 3),
        MatchRecord(2, "C", "D", 4, 4),
        MatchRecord(2, "E", "F", 4, 4),
    ]
    state = replace(state, matches=tuple(matches), adjustments=(ScoreAdjustment("A", 1, 1, 0),))
    teams3 = teams_before(state, 3)
    assert teams3[1].floated and teams3[2].floated  # A (1 + 1 bonus) met B (1) in round 2
    assert not teams3[3].floated
    plain = teams_before(replace(state, adjustments=()), 3)
    assert not plain[1].floated and not plain[2].floated


def test_a_match_whose_every_board_is_forfeited_is_a_forfeited_match() -> None:
    text = fixture("board-forfeit.trf")
    lines = text.splitlines()
    for index, line in enumerate(lines):  # round 2: every Brazil board wins by forfeit against Finland
        if line.startswith("001 ") and int(line[4:8]) in range(5, 9):
            lines[index] = line[:108] + "+" + line[109:]
        if line.startswith("001 ") and int(line[4:8]) in range(21, 25):
            lines[index] = line[:108] + "-" + line[109:]
    lines = [fix_points(line) for line in lines]
    state, _ = read_team_trf("\n".join(lines) + "\n")
    match = next(m for m in state.matches if m.round == 2 and m.team_a == "Brazil")
    assert match.forfeit is MatchForfeit.A_WINS and match.gp_a == 8
    assert not state.have_played("Brazil", "Finland")


def test_a_broken_file_has_every_problem_listed_with_its_line() -> None:
    with pytest.raises(TrfInvalid) as caught:
        read_team_trf(fixture("broken.trf"))
    assert [str(problem) for problem in caught.value.problems] == [
        "line 6: record 142 is already on line 5",
        "line 13: the rating (columns 49-52) '26x0' is not a number",
        "line 16: round 1: players 5 and 17 do not name each other with opposite colours",
        "line 20: player 9: the points 9.5 are not the results' sum (2.0)",
        "line 28: round 1: players 17 and 5 do not name each other with opposite colours",
        "line 41: team 6: 5.0 match points given, 0 from the rounds read",
        "line 42: the forfeit type 'x+' (columns 5-6) is not +-, -+ or --",
        "line 43: '999' is not a record of the TRF-2026 team layout",
    ]


def test_a_file_without_teams_or_rounds_is_refused_with_reasons() -> None:
    with pytest.raises(TrfInvalid) as caught:
        read_team_trf("012 Nothing\n001    1 x\n")
    reasons = [str(problem) for problem in caught.value.problems]
    assert "record 142 (the number of rounds) is missing" in reasons
    assert "the file has no team records (310)" in reasons


def test_a_line_up_naming_another_opponent_than_the_boards_is_listed() -> None:
    text = with_reserve(True).replace("300   1   1   4", "300   1   1   5")
    with pytest.raises(TrfInvalid, match="round 1: team 1 meets teams 4, 5"):
        read_team_trf(text)


def test_reserve_and_line_up_read_as_the_same_match() -> None:
    plain_state, _ = read_team_trf(fixture("informative-802.trf"))
    for lineup in (False, True):
        state, _ = read_team_trf(with_reserve(lineup))
        assert state.matches == plain_state.matches
        assert state.team("Armenia").ratings == (2700, 2690, 2680, 2670, 2660)


def test_fixtures_read_into_the_state_the_engines_pair_from() -> None:
    state, next_round = read_team_trf(fixture("penalty-299.trf"))
    assert next_round == 4 and state.rounds == 5 and state.boards == 4
    assert state.adjustments == (ScoreAdjustment("Chile", 3, -2, -2),)
    assert state.points("Chile") == (3, 15)
    assert (state.primary, state.colour_model, state.initial_colour) == ("mp", "A", "W")
    assert [team.name for team in state.teams][:2] == ["Armenia", "Brazil"]
    assert state.team("Armenia").ratings == (2700, 2690, 2680, 2670)
    assert len(state.matches) == 9 and not any(team.absent for team in state.teams)
    gp_state, _ = read_team_trf(fixture("game-points-192.trf"))
    assert (gp_state.primary, gp_state.colour_model) == ("gp", "none")
    forfeit, _ = read_team_trf(fixture("board-forfeit.trf"))
    assert MatchRecord(2, "Brazil", "Finland", 6, 2) in forfeit.matches
    assert read_team_trf(plain())[0].matches == forfeit.matches


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("FIDE_TEAM_TYPEA_MP_GP", ("fide-team-swiss", "mp", "A")),
        ("fide_team_typea_gp_mp", ("fide-team-swiss", "gp", "A")),
        ("FIDE_TEAM_MP_GP", ("fide-team-swiss", "mp", "none")),
        ("FIDE_TEAM_GP_MP", ("fide-team-swiss", "gp", "none")),
        ("FIDE_TEAM_BAKU", ("fide-team-swiss", "mp", "A")),
        ("CUSTOM_TEAM_OLYMPIAD_2022", ("olympiad-2022", "mp", "A")),
    ],
)
def test_record_192_gives_the_system_the_primary_score_and_the_colour_model(code, expected) -> None:
    state, _ = read_team_trf(plain().replace("FIDE_TEAM_TYPEA_MP_GP", code))
    assert (state.pairing, state.primary, state.colour_model) == expected


def test_a_file_without_record_192_is_c046_type_a_with_match_points() -> None:
    text = "".join(line + "\n" for line in plain().splitlines() if not line.startswith("192"))
    state, _ = read_team_trf(text)
    assert (state.pairing, state.primary, state.colour_model) == ("fide-team-swiss", "mp", "A")


def test_what_our_engines_do_not_implement_is_refused_by_line() -> None:
    text = plain()
    cases = {
        "192 FIDE_TEAM_TYPEB_MP_GP": (
            "record 192 names FIDE_TEAM_TYPEB_MP_GP, a system our engines do not implement"
        ),
        "162  W 3.0    D 0.5    L 0.0": "record 162 scores W 3.0; our engines score games 1, ½, 0",
        "362 TW 2.5   TD 1.0   TL 0.0": "record 362 gives TW fractional match points",
        "352 WWBB": "record 352 WWBB: our engines give the first-named team White on the odd boards",
    }
    for new, reason in cases.items():
        changed = "\n".join(new if line[:3] == new[:3] else line for line in text.splitlines()) + "\n"
        assert refusals(changed) == [f"line {line_of(changed, new[:3])}: {reason}"]
    extra = {
        "299 W   2.0   2.5    2    1": (
            "record 299 of type 'W' assigns a result; our engines implement only the "
            "blank type (points added or taken away)"
        ),
        "299     0.5   0.0    3    1": "record 299 gives fractional match points",
    }
    for line, reason in extra.items():
        count = len(text.splitlines()) + 1
        assert refusals(text + line + "\n") == [f"line {count}: {reason}"]


def with_cells(text: str, rnd: int, cells: dict[int, tuple[int, str, str]]) -> str:
    """The file with round ``rnd``'s cell of some players (record 001) written."""
    out = []
    for line in text.splitlines():
        pid = int(line[4:8]) if line.startswith("001 ") else 0
        if pid in cells:
            chars = list(line)
            put_round(chars, rnd, cells[pid])
            line = "".join(chars)
        out.append(line)
    return "\n".join(out) + "\n"


def record(*fields: tuple[int, str]) -> str:
    line: list[str] = []
    for column, text in fields:
        put(line, column, text)
    return "".join(line) + "\n"


def test_a_round_paired_without_results_is_left_to_fides_engine() -> None:
    text = with_cells(plain(), 4, {1: (5, "w", " "), 5: (1, "b", " ")})
    assert refusals(text) == ["round 4 is paired but not all its results are in"]


def test_record_299_columns_round_and_standings_only() -> None:
    # the teams' totals (record 310) left blank: they would have to include the points
    base = "".join(
        (line[:54] + " " * 13 + line[67:] if line.startswith("310") else line) + "\n"
        for line in plain().splitlines()
    )
    state, _ = read_team_trf(base + record((1, "299"), (8, " 1.0"), (14, " 0.5"), (24, "   1"), (29, "   2")))
    assert state.adjustments == (
        ScoreAdjustment("Armenia", 0, 1, 1),
        ScoreAdjustment("Brazil", 0, 1, 1),
    )
    assert state.adjusted("Armenia", 1) == (1, 1)
    state, _ = read_team_trf(base + record((1, "299"), (8, "-1.0"), (14, "-2.0"), (20, "999"), (24, "   6")))
    assert state.adjustments == (ScoreAdjustment("Finland", 0, -1, -4, pairing=False),)
    assert state.adjusted("Finland", 4) == (0, 0)
    state, _ = read_team_trf(base + record((1, "299"), (14, "-1.5"), (20, "  2"), (24, "   4")))
    assert state.adjustments == (ScoreAdjustment("Denmark", 2, 0, -3),)
    count = len(base.splitlines()) + 1
    assert problems(base + "299    -1.0  -2.0    3\n") == [
        f"line {count}: record 299 names no team (from column 24)"
    ]
    assert problems(base + "299    -1.0  -2.0    3    9\n") == [
        f"line {count}: record 299 names team 9, which the file does not have"
    ]
    assert problems(base + "299    -1.x  -2.0    3    2\n") == [
        f"line {count}: the match points (columns 8-11) '-1.x' is not a number of half-points"
    ]


def test_a_whole_team_marked_0000_is_not_paired_in_the_round_to_pair() -> None:
    lines = plain().splitlines()
    lines = [
        line + "  0000 - Z" if line[:8] in ("001    1", "001    2", "001    3", "001    4") else line
        for line in lines
    ]
    state, next_round = read_team_trf("\n".join(lines) + "\n")
    assert next_round == 4
    assert state.team("Armenia").absent == frozenset({4})
    assert not state.team("Brazil").absent
    lines = [line + "  0000 - -" if line.startswith("001    5 ") else line for line in lines]
    state, _ = read_team_trf("\n".join(lines) + "\n")
    assert not state.team("Brazil").absent  # one player of four resting is no absence


def test_record_240_zero_point_bye_is_an_absence() -> None:
    state, _ = read_team_trf(plain() + "240 Z   4    3    5\n")
    assert state.team("Chile").absent == frozenset({4})
    assert state.team("Estonia").absent == frozenset({4})
    count = len(plain().splitlines()) + 1
    assert problems(plain() + "240 Q   4    3\n") == [
        f"line {count}: the bye type 'Q' (column 5) is not F, H or Z"
    ]


def test_the_pairing_allocated_bye_of_record_320() -> None:
    teams = [SwissTeam(name, (2500 - n,)) for n, name in enumerate("ABCDE")]
    state = start_state(teams, boards=2, rounds=4)
    matches = (
        MatchRecord(1, "A", "D", 3, 1),
        MatchRecord(1, "B", "E", 2, 2),
        MatchRecord(1, "C", None, 2, 0),
    )
    state = replace(state, matches=matches)
    text = export_trf(state)
    read, next_round = read_team_trf(text)
    assert next_round == 2 and read.matches == matches
    assert problems(text + "320  1    1.0  002\n")[0].endswith(
        "record 320 is already on line " + str(line_of(text, "320"))
    )
    wrong = text.replace("320  1.0  1.0 003", "320  1.0  1.0 009")
    assert f"line {line_of(wrong, '320')}: record 320 names team 9, which the file does not have" in problems(
        wrong
    )


def test_counts_and_informative_totals_are_checked() -> None:
    text = plain().replace("062 24", "062 23").replace("082 6", "082 six")
    assert problems(text) == [
        "line 2: record 062 says 23 players; the file has 24",
        "line 3: record 082 says six teams; the file has 6",
    ]
    team = line_of(plain(), "310   2")
    wrong = "\n".join(
        line[:54] + "   4.0    7.5" + line[67:] if line.startswith("310   2") else line
        for line in plain().splitlines()
    )
    assert problems(wrong + "\n") == [f"line {team}: team 2: 7.5 game points given, 7.0 from the rounds read"]


def test_header_problems_are_each_listed() -> None:
    text = plain()
    swaps = {
        "142 5": ("142 five", "line 5: the number of rounds 'five' is not a number"),
        "152 W": ("152 X", "line 6: the initial colour 'X' (record 152) is neither W nor B"),
        "352 WBWB": ("352 WBXB", "line 8: record 352 'WBXB' is not a sequence of W and B"),
        "162  W 1.0    D 0.5    L 0.0": (
            "162  W 1.0    Q 0.5    L",
            "line 9: record 162: Q 0.5 is not a game result and its points",
        ),
        "362 TW 2.0   TD 1.0   TL 0.0": (
            "362 TW 2.0   TD 3.0   TL 0.0",
            "line 10: record 362 scores a loss above a draw or a draw above a win",
        ),
    }
    for old, (new, reason) in swaps.items():
        assert reason in problems(text.replace(old, new)), new
    assert "line 9: record 162: 'L' has no points" in problems(text.replace("L 0.0", "L"))
    assert "line 10: record 362: TX 1.0 is not a match result (TW, TD, TL) and its points" in problems(
        text.replace("TD 1.0", "TX 1.0")
    )


def test_player_and_team_fields_are_checked() -> None:
    text = plain()
    player = line_of(text, "001    7")
    row = text.splitlines()[player - 1]
    cases = {
        row[:4] + "  x7" + row[8:]: "the player number (columns 5-8) 'x7' is not a number",
        row[:91] + "  1x" + row[95:]: "round 1: the opponent (columns 92-95) '1x' is not a number",
        row[:96] + "q" + row[97:]: "round 1: colour 'q' is not w, b or -",
        row[:98] + "?" + row[99:]: "round 1: result '?' is not a TRF result letter",
    }
    for changed, reason in cases.items():
        assert f"line {player}: {reason}" in problems(text.replace(row, changed)), reason
    team = line_of(text, "310   2")
    row = text.splitlines()[team - 1]
    assert (
        problems(text + row + "\n")[0]
        == f"line {len(text.splitlines()) + 1}: team 2 is already on line {team}"
    )
    skipped = text.replace("310   6 Finland", "310   7 Finland")
    assert f"line {line_of(skipped, '310   7')}: team 7: the team numbers of record 310 skip 6" in problems(
        skipped
    )


def test_byes_in_the_players_results_only_are_left_to_fides_engine() -> None:
    text = with_cells(plain(), 4, {n: (0, "-", "H") for n in range(1, 5)})
    text = with_cells(text, 4, {5: (13, "w", "1"), 13: (5, "b", "0")})
    text = "".join(fix_points(line) + "\n" for line in text.splitlines())
    assert refusals(text) == [
        f"line {line_of(text, '310   1')}: round 4: team 1 has byes in its players' results (H) without "
        "record 320; not implemented by us"
    ]
    scored = with_cells(plain(), 4, {1: (0, "-", "+"), 5: (13, "w", "1"), 13: (5, "b", "0")})
    scored = "".join(fix_points(line) + "\n" for line in scored.splitlines())
    reason = "round 4: team 1 scores without an opponent or a bye (records 320, 330)"
    assert f"line {line_of(scored, '310   1')}: {reason}" in problems(scored)


def bye_file() -> str:
    """Five teams, two boards, round 1 played with team 3 on the pairing-allocated bye."""
    teams = [SwissTeam(name, (2500 - n,)) for n, name in enumerate("ABCDE")]
    state = start_state(teams, boards=2, rounds=4)
    matches = (
        MatchRecord(1, "A", "D", 3, 1),
        MatchRecord(1, "B", "E", 2, 2),
        MatchRecord(1, "C", None, 2, 0),
    )
    text = export_trf(replace(state, matches=matches))
    return "".join(fix_points(line) + "\n" for line in text.splitlines())  # 310 totals left blank


def test_record_320_columns_and_values() -> None:
    text = bye_file()
    bye = line_of(text, "320")
    state, _ = read_team_trf(text.replace("320  1.0  1.0 003", "320  2    1.5 003"))
    assert (state.bye.mp, state.bye.gp) == (2, 3)
    assert state.points("C") == (2, 3)
    state, _ = read_team_trf(text.replace("320  1.0  1.0 003", "320" + " " * 11 + "003"))
    assert (state.bye.mp, state.bye.gp) == (None, None)
    assert MatchRecord(1, "C", None, 2, 0) in state.matches  # half the boards' game points
    assert problems(text.replace("320  1.0  1.0 003", "320  1.5  1.0 003"))[0] == (
        f"line {bye}: the match points of a bye (columns 5-8) '1.5' is not a number of whole points"
    )
    assert problems(text.replace("320  1.0  1.0 003", "320  1.0  1.2 003"))[0] == (
        f"line {bye}: the game points of a bye (columns 10-13) '1.2' is not a number of half-points"
    )
    assert f"line {bye}: round 2: the team (column 19) 'x' is not a number" in problems(
        text.replace("320  1.0  1.0 003", "320  1.0  1.0 003   x")
    )
    later, _ = read_team_trf(text.replace("320  1.0  1.0 003", "320  1.0  1.0 003 000"))
    assert later.matches == read_team_trf(text)[0].matches
    clash = text.replace("320  1.0  1.0 003", "320  1.0  1.0 001")
    assert f"line {bye}: round 1: team 1 has the bye and meets team 4" in problems(clash)


def test_record_013_gives_the_teams_of_a_file_without_310() -> None:
    text = plain()
    old = []
    for line in text.splitlines():
        if line.startswith("310 "):
            chars: list[str] = []
            put(chars, 1, "013")
            put(chars, 5, line[8:40].strip())
            for index, pid in enumerate(line[73:].split()):
                put(chars, 37 + 5 * index, f"{int(pid):4d}")
            old.append("".join(chars))
    without = "".join(line + "\n" for line in text.splitlines() if not line.startswith("310 "))
    state, _ = read_team_trf(without + "\n".join(old) + "\n")
    assert state.matches == read_team_trf(text)[0].matches
    assert [team.name for team in state.teams] == [team.name for team in read_team_trf(text)[0].teams]
    both, _ = read_team_trf(text + "\n".join(old) + "\n")  # with 310: the same players, read as a check
    assert both.matches == state.matches
    swapped = old[0].replace("   1    2", "   2    1")
    count = len(text.splitlines()) + 1
    reason = f"record 013 lists other players than record 310 of team 1 (line {line_of(text, '310   1')})"
    assert problems(text + swapped + "\n") == [f"line {count}: {reason}"]


def test_records_802_are_checked_against_the_rounds() -> None:
    text = fixture("informative-802.trf")
    assert read_team_trf(text)[1] == 4
    wrong = text.replace("802   3 Chile    5.0    8.5", "802   3 Chile    6.0    8.0")
    line = line_of(wrong, "802   3")
    assert problems(wrong) == [
        f"line {line}: team 3: 6.0 match points given, 5 from the rounds read",
        f"line {line}: team 3: 8.0 game points given, 8.5 from the rounds read",
    ]
    assert problems(text + "802   9 Nines    0.0    0.0\n") == [
        f"line {len(text.splitlines()) + 1}: team 9 is not a team of the file"
    ]
    blank, _ = read_team_trf(text + "802   2 Brazi\n")  # totals left out: nothing to check
    assert blank.matches == read_team_trf(text)[0].matches


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        (((1, "802"), (5, "  x")), "the team (columns 5-7) 'x' is not a number"),
        (
            ((1, "802"), (5, "  1"), (15, "  x2.0")),
            "the match points (columns 15-20) 'x2.0' is not a number of half-points",
        ),
        (
            ((1, "802"), (5, "  1"), (22, "  x5.5")),
            "the game points (columns 22-27) 'x5.5' is not a number of half-points",
        ),
        (((1, "300"), (5, "  x"), (9, "  1")), "the round (columns 5-7) 'x' is not a number"),
        (((1, "300"), (5, "  1"), (9, "  x")), "the team (columns 9-11) 'x' is not a number"),
        (
            ((1, "300"), (5, "  1"), (9, "  1"), (13, "  x")),
            "the opponent (columns 13-15) 'x' is not a number",
        ),
        (
            ((1, "300"), (5, "  1"), (9, "  1"), (13, "  4"), (17, "   x")),
            "the player at column 17 'x' is not a number",
        ),
        (((1, "300"), (9, "  1")), "the round (columns 5-7) is missing"),
        (((1, "330"), (5, "+-"), (12, "  1"), (16, "  4")), "the round (columns 8-10) is missing"),
        (
            ((1, "330"), (5, "+-"), (8, "  1"), (12, "  x"), (16, "  4")),
            "the white team (12-14) 'x' is not a number",
        ),
        (
            ((1, "330"), (5, "+-"), (8, "  1"), (12, "  1"), (16, "  x")),
            "the black team (16-18) 'x' is not a number",
        ),
        (((1, "240"), (5, "Z"), (11, "   1")), "the round (columns 7-9) is missing"),
        (
            ((1, "299"), (8, " 1.0"), (14, " x.0"), (24, "   1")),
            "the game points (columns 14-17) 'x.0' is not a number of half-points",
        ),
        (
            ((1, "299"), (8, " 1.0"), (20, "  x"), (24, "   1")),
            "the round (columns 20-22) 'x' is not a number",
        ),
        (((1, "299"), (8, " 1.0"), (24, "   1"), (29, "   x")), "the team at column 29 'x' is not a number"),
        (((1, "310"), (5, "  x"), (9, "Nines")), "the team number (columns 5-7) 'x' is not a number"),
        (((1, "310"), (9, "Nines")), "record 310 has no team number (columns 5-7)"),
        (
            ((1, "310"), (5, "  9"), (55, "  x2.0")),
            "the match points (columns 55-60) 'x2.0' is not a number of half-points",
        ),
        (
            ((1, "310"), (5, "  9"), (62, "  x2.0")),
            "the game points (columns 62-67) 'x2.0' is not a number of half-points",
        ),
        (((1, "310"), (5, "  9"), (69, "  x")), "the rank (columns 69-71) 'x' is not a number"),
        (((1, "310"), (5, "  9"), (74, "   x")), "the player at column 74 'x' is not a number"),
        (((1, "001"), (15, "Nobody")), "record 001 has no player number (columns 5-8)"),
        (((1, "001"), (5, "  99"), (58, "7x")), "the FIDE id (columns 58-68) '7x' is not a number"),
        (
            ((1, "001"), (5, "  99"), (81, " x.5")),
            "the points (columns 81-84) 'x.5' is not a number of half-points",
        ),
        (((1, "001"), (5, "  99"), (86, "  x")), "the rank (columns 86-89) 'x' is not a number"),
        (((1, "013"), (5, "Nines"), (37, "   x")), "the player at column 37 'x' is not a number"),
    ],
)
def test_each_field_that_is_not_a_number_is_named_with_its_columns(fields, reason) -> None:
    text = plain()
    assert f"line {len(text.splitlines()) + 1}: {reason}" in problems(text + record(*fields))
