"""Event definitions: the 2020 file validates, the seed's errors are refused with their lines, and every
kind of mistake in docs/rules.md §3 is reported (all of them at once)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from orchestrator.domain.bracket import PoolPlace, WinnerOf
from orchestrator.domain.event import (
    EventDefinition,
    Qualifiers,
    SeedRange,
    TimeControl,
    pool_letters,
    stage_entrants,
    summary,
)
from orchestrator.domain.knockout import ArmageddonClock
from orchestrator.domain.teams import Category
from orchestrator.eventfile import EventDefinitionError, Problem, parse_event

EVENTS = Path(__file__).resolve().parents[2] / "events"
CORRECT_TEXT = (EVENTS / "online-olympiad-2020.yaml").read_text()
ERRORS_TEXT = (EVENTS / "seed-errors-2020.yaml").read_text()


@pytest.fixture(scope="module")
def event() -> EventDefinition:
    return parse_event(CORRECT_TEXT, source="online-olympiad-2020.yaml")


def problems_of(text: str) -> tuple[Problem, ...]:
    with pytest.raises(EventDefinitionError) as caught:
        parse_event(text)
    return caught.value.problems


def line_of(text: str, fragment: str, *, after: str | None = None) -> int:
    """1-based number of the first line containing ``fragment`` (after the line containing ``after``)."""
    lines = text.splitlines()
    start = 0
    if after is not None:
        start = next(i for i, line in enumerate(lines) if after in line) + 1
    return next(i for i in range(start, len(lines)) if fragment in lines[i]) + 1


def edit(old: str, new: str, *, count: int = 1) -> str:
    assert old in CORRECT_TEXT, old
    return CORRECT_TEXT.replace(old, new, count)


def messages(problems: tuple[Problem, ...]) -> str:
    return "\n".join(str(p) for p in problems)


# --- the 2020 event -------------------------------------------------------------------------------------


def test_the_2020_event_has_five_pool_stages_and_a_knockout(event: EventDefinition) -> None:
    assert [s.key for s in event.stages] == ["base", "div4", "div3", "div2", "top", "playoff"]
    assert [(s.pool_count, s.pool_size, s.advance) for s in event.stages[:5]] == [
        (3, 10, 4),
        (5, 10, 3),
        (5, 10, 3),
        (5, 10, 3),
        (4, 10, 3),
    ]
    assert event.stage("top").entrants == (Qualifiers("div2", 3), SeedRange(1, 25))
    assert event.stage("playoff").kind == "knockout"


def test_the_2020_event_has_the_real_duel_iv_and_eleven_duels(event: EventDefinition) -> None:
    duels = {duel.key: duel for duel in event.bracket}
    assert len(duels) == 11
    assert (duels["IV"].first, duels["IV"].second) == (PoolPlace("top", "D", 2), PoolPlace("top", "C", 3))
    assert (duels["V"].first, duels["V"].second) == (PoolPlace("top", "A", 1), WinnerOf("IV"))
    assert duels["XI"].round_name == "Final"


def test_the_2020_event_keeps_rules_settings(event: EventDefinition) -> None:
    assert (event.time_control.minutes, event.time_control.increment_seconds) == (15, 5)
    assert event.appeal_window_minutes == 15
    assert event.armageddon == ArmageddonClock(white_seconds=300, black_seconds=240, increment_seconds=0)
    assert event.team_format.board_categories == (
        Category.OPEN,
        Category.OPEN,
        Category.WOMEN,
        Category.WOMEN,
        Category.JUNIOR,
        Category.GIRL,
    )
    assert all(stage.tiebreaks == ("online-2020",) for stage in event.stages if stage.is_pools)


def test_the_2020_schedule_matches_the_real_dates_three_rounds_a_day(event: EventDefinition) -> None:
    days = {s.key: sorted({moment.date().isoformat() for moment in s.schedule}) for s in event.stages}
    assert days["base"] == ["2020-07-25", "2020-07-26", "2020-07-27"]
    assert days["div4"] == ["2020-07-31", "2020-08-01", "2020-08-02"]
    assert days["top"] == ["2020-08-21", "2020-08-22", "2020-08-23"]
    assert days["playoff"] == ["2020-08-27", "2020-08-28", "2020-08-29", "2020-08-30"]
    assert all(len(s.schedule) == 9 for s in event.stages[:5])


def test_the_demo_field_has_163_teams_with_strength_falling_with_seed(event: EventDefinition) -> None:
    teams = sorted(event.teams, key=lambda t: t.seed)
    assert [t.seed for t in teams] == list(range(1, 164))
    assert 2450 <= teams[0].strength <= 2650
    assert 1250 <= teams[-1].strength <= 1550
    assert teams[0].strength > teams[80].strength > teams[-1].strength
    accounts = [entry.player.account.lower() for t in teams for entry in t.roster]
    assert len(accounts) == len(set(accounts))


def test_summary_lists_stages_entrants_and_bracket(event: EventDefinition) -> None:
    result = summary(event)
    top = next(s for s in result.stages if s.key == "top")
    assert top.entrant_count == 40
    assert top.pools == "4 × 10"
    assert "15 qualifiers" in top.entrants and "seeds 1–25 (25)" in top.entrants
    assert result.bracket[3] == "IV (First round): Top Division D 2nd – Top Division C 3rd"
    assert "Play-off" in str(result)


# --- the seed's errors ----------------------------------------------------------------------------------


def test_seed_errors_report_the_thirteen_qualifiers_and_duel_iv_on_their_lines() -> None:
    problems = problems_of(ERRORS_TEXT)
    count_line = line_of(ERRORS_TEXT, "count: 13")
    duel_iv_line = line_of(ERRORS_TEXT, "duel: IV,")
    fill = [p for p in problems if "38 entrants" in p.message]
    assert [p.message for p in fill] == [
        "Top Division: 13 qualifiers + 25 seeds = 38 entrants, but 4 pools of 10 need 40"
    ]
    stated = [p for p in problems if p.line == count_line]
    assert stated and "15" in stated[0].message
    same_pool = [p for p in problems if "same pool" in p.message]
    assert [(p.line, p.message) for p in same_pool] == [
        (duel_iv_line, "duel IV: Top D 2nd vs Top D 3rd are from the same pool")
    ]
    assert any("Top Division C 3rd qualifies but is never placed" in p.message for p in problems)
    assert any("already placed in duel III" in p.message for p in problems)


def test_problem_text_names_file_line_path_and_subject() -> None:
    problems = problems_of(ERRORS_TEXT)
    fill = next(p for p in problems if "38 entrants" in p.message)
    assert str(fill).startswith(f"event.yaml:{fill.line}: stages[4].entrants (top): Top Division: 13")


def test_error_report_lists_every_problem_in_line_order() -> None:
    problems = problems_of(ERRORS_TEXT)
    lines = [p.line or 0 for p in problems]
    assert lines == sorted(lines)
    assert len(problems) >= 4


# --- each kind of mistake -------------------------------------------------------------------------------


# Each one-place edit of the correct file, and what the report must then say.
ONE_EDIT_MISTAKES = [
    pytest.param(
        "first: Top A 1st",
        "first: Top A 11th",
        ["place 11 does not exist in a pool of 10"],
        id="place-eleven-of-a-ten-team-pool",
    ),
    pytest.param(
        "first: Top D 1st",
        "first: Top E 1st",
        ["there is no pool E; Top Division has 4 pools (A–D)"],
        id="pool-e-with-four-pools",
    ),
    pytest.param(
        "second: Top B 3rd",
        "second: Top B 4th",
        ["only the top 3 of each Top Division pool advance"],
        id="a-place-that-does-not-qualify",
    ),
    pytest.param(
        "{from: div3, top: 3}",
        "{from: top, top: 3}",
        ["qualifiers must come from an earlier stage"],
        id="qualifiers-from-a-later-stage",
    ),
    pytest.param(
        "{seeds: 96-133}",
        "{seeds: 90-133}",
        [
            "seeds 61–95 overlaps seeds already placed in Division 4 (90–95)",
            "12 qualifiers + 44 seeds = 56 entrants, but 5 pools of 10 need 50",
        ],
        id="overlapping-seed-ranges",
    ),
    pytest.param("{seeds: 61-95}", "{seeds: 62-95}", ["seeds 61 enter no stage"], id="a-gap-in-the-seeds"),
    pytest.param(
        "first: winner IX",
        "first: winner XII",
        ["winner XII: there is no duel XII"],
        id="winner-of-an-unknown-duel",
    ),
    pytest.param(
        "second: winner IV}",
        "second: winner IX}",
        ["winner IX: duel IX is not played before duel V"],
        id="winner-of-a-later-duel",
    ),
    pytest.param(
        "first: winner IX, second: winner X}",
        "first: winner IX, second: winner IX}",
        ["the winner of duel X is never placed in a later duel", "winner IX is already placed in duel XI"],
        id="a-duel-whose-winner-goes-nowhere",
    ),
    pytest.param(
        "    advance: 3\n    tiebreaks: online-2020\n    # 5 Division 2",
        "    advance: 2\n    tiebreaks: online-2020\n    # 5 Division 2",
        [
            "takes the top 3 of each Top Division pool, but only the top 2 advance",
            "Top D 3rd does not qualify",
        ],
        id="the-bracket-must-seat-what-the-top-stage-advances",
    ),
    pytest.param(
        "    seed: 5\n",
        "    seed: 4\n",
        ["seed 4 is also given to teams[3]", "missing: 5"],
        id="duplicate-and-missing-seeds",
    ),
    pytest.param("tiebreaks: online-2020", "tiebreaks: [MP, GP, XYZ]", ["XYZ"], id="unknown-tie-break-code"),
    pytest.param(
        '"2020-08-30 10:00", "2020-08-30 12:00"]',
        '"2020-08-30 10:00"]',
        ["7 start times, but Play-off has 8 matches"],
        id="wrong-number-of-play-off-start-times",
    ),
    pytest.param(
        'start: "2020-07-31 10:00"',
        'start: "2020-07-27 12:00"',
        ["Division 4 starts at 2020-07-27 12:00, before Base ends"],
        id="a-stage-that-starts-before-the-previous-one-ends",
    ),
    pytest.param(
        "    winners_apart: false\n",
        "",
        ["the 5 Division 2 pool winners cannot be kept apart in 4 pools"],
        id="more-previous-pool-winners-than-pools",
    ),
]


@pytest.mark.parametrize(("old", "new", "expected"), ONE_EDIT_MISTAKES)
def test_each_kind_of_mistake_is_reported(old: str, new: str, expected: list[str]) -> None:
    found = messages(problems_of(edit(old, new)))
    for fragment in expected:
        assert fragment in found


def test_qualifiers_from_an_unknown_stage() -> None:
    text = edit("{from: base, top: 4}", "{from: basis, top: 4}")
    problems = problems_of(text)
    assert any("no stage 'basis'" in p.message and p.path == "stages[1].entrants[0].from" for p in problems)


def test_an_account_in_two_teams() -> None:
    text = edit('account: "gzuveson_chn"', 'account: "ODORZAR_UKR"')
    problems = problems_of(text)
    assert [(p.line, p.subject, p.message) for p in problems] == [
        (
            line_of(text, 'account: "odorzar_ukr"'),
            "Ukraine",
            "account 'odorzar_ukr' is already used by teams[1].players[1]: a player belongs to one team",
        )
    ]


def test_a_man_on_the_girl_board_is_not_eligible() -> None:
    first_girl = CORRECT_TEXT.index("{board: 6,")
    line_end = CORRECT_TEXT.index("\n", first_girl)
    bad_line = CORRECT_TEXT[first_girl:line_end].replace("sex: f", "sex: m")
    text = CORRECT_TEXT[:first_girl] + bad_line + CORRECT_TEXT[line_end:]
    problems = problems_of(text)
    assert len(problems) == 1
    assert "is not female: not eligible for a girl board" in problems[0].message
    assert problems[0].line == CORRECT_TEXT.count("\n", 0, first_girl) + 1


def test_a_junior_born_before_the_cutoff_is_not_eligible() -> None:
    first = CORRECT_TEXT.index("{board: 5,")
    line_end = CORRECT_TEXT.index("\n", first)
    line = CORRECT_TEXT[first:line_end]
    born = line.split("born: ")[1].split(",")[0]
    text = CORRECT_TEXT[:first] + line.replace(f"born: {born}", "born: 1999") + CORRECT_TEXT[line_end:]
    assert "born in 1999: not eligible for a junior board, born 2000 or later" in messages(problems_of(text))


def test_too_many_reserves_are_refused() -> None:
    reserve = CORRECT_TEXT.index("{reserve: open,")
    line_end = CORRECT_TEXT.index("\n", reserve) + 1
    line = CORRECT_TEXT[reserve - 8 : line_end]
    extra = [line.replace('account: "', f'account: "extra{n}_') for n in range(2)]
    text = CORRECT_TEXT[:line_end] + "".join(extra) + CORRECT_TEXT[line_end:]
    assert "open reserves, at most 2 allowed" in messages(problems_of(text))


def test_unknown_keys_get_a_suggestion_and_bad_types_are_named() -> None:
    text = edit("    pool_size: 10\n", "    pool_sise: 10\n").replace("pool_count: 4", "pool_count: four", 1)
    found = messages(problems_of(text))
    assert "unknown key 'pool_sise' (did you mean 'pool_size'?)" in found
    assert "expected a whole number, found 'four'" in found


def test_many_mistakes_are_all_reported_together() -> None:
    text = CORRECT_TEXT
    for old, new in [
        ("first: Top A 1st", "first: Top A 11th"),
        ("{from: base, top: 4}", "{from: basis, top: 4}"),
        ("first: winner IX", "first: winner XII"),
        ("    seed: 5\n", "    seed: 4\n"),
    ]:
        text = text.replace(old, new, 1)
    found = messages(problems_of(text))
    for fragment in ("place 11", "no stage 'basis'", "no duel XII", "seed 4 is also"):
        assert fragment in found


def test_invalid_yaml_reports_its_line() -> None:
    problems = problems_of("name: x\nstages: [\n  - a\n")
    assert len(problems) == 1
    assert problems[0].line is not None and "not valid YAML" in problems[0].message


@pytest.mark.parametrize(
    ("text", "fragment"),
    [("", "empty"), ("- 1\n", "expected a mapping"), ("name: x\n", "missing 'slug'")],
)
def test_an_empty_or_shapeless_file_is_refused(text: str, fragment: str) -> None:
    assert fragment in messages(problems_of(text))


# --- helpers --------------------------------------------------------------------------------------------


def test_pool_letters_run_a_to_z_then_aa() -> None:
    assert pool_letters(4) == ("A", "B", "C", "D")
    assert pool_letters(28)[25:] == ("Z", "AA", "AB")


def standings_for(event: EventDefinition, key: str, teams: list[str]) -> list[list[str]]:
    stage = event.stage(key)
    return [teams[i * stage.pool_size : (i + 1) * stage.pool_size] for i in range(stage.pool_count)]


def test_stage_entrants_takes_pool_places_then_seeds(event: EventDefinition) -> None:
    base_teams = stage_entrants(event, "base", {})
    assert base_teams[0] == event.team_by_seed(134).name and len(base_teams) == 30
    pools = standings_for(event, "base", base_teams)
    div4 = stage_entrants(event, "div4", {"base": pools})
    assert div4[:3] == [pools[0][0], pools[1][0], pools[2][0]]
    assert div4[3:6] == [pools[0][1], pools[1][1], pools[2][1]]
    assert div4[12:] == [event.team_by_seed(s).name for s in range(96, 134)]
    assert len(set(div4)) == 50


def test_stage_entrants_needs_the_previous_standings(event: EventDefinition) -> None:
    with pytest.raises(KeyError, match="Base"):
        stage_entrants(event, "div4", {})


def test_playoff_entrants_are_the_top_three_of_each_top_pool(event: EventDefinition) -> None:
    names: Callable[[int], list[str]] = lambda p: [f"T{p}{i}" for i in range(10)]  # noqa: E731
    entrants = stage_entrants(event, "playoff", {"top": [names(p) for p in range(4)]})
    assert entrants == [f"T{p}{i}" for i in range(3) for p in range(4)]


def test_committed_event_files_are_what_the_generator_writes() -> None:
    import importlib.util

    script = EVENTS.parent / "scripts" / "make_demo_field.py"
    spec = importlib.util.spec_from_file_location("make_demo_field", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for path, text in module.render().items():
        assert path.read_text() == text, f"{path.name} is stale: run scripts/make_demo_field.py"


def test_any_one_line_damage_is_reported_as_problems_never_a_crash() -> None:
    head = CORRECT_TEXT[: CORRECT_TEXT.index("  - name: Georgia")]  # header and the first seven teams
    lines = head.splitlines(keepends=True)
    damaged: list[str] = []
    for i, line in enumerate(lines):
        damaged.append("".join(lines[:i] + lines[i + 1 :]))
        for old, new in [(":", " "), ("1", "x"), ("top", "nope"), ("A", "Q"), ("pools", "knockout")]:
            if old in line:
                damaged.append("".join([*lines[:i], line.replace(old, new, 1), *lines[i + 1 :]]))
    for text in damaged:
        with pytest.raises(EventDefinitionError) as caught:
            parse_event(text)
        assert caught.value.problems


def test_lineups_close_at_the_round_start_unless_the_file_sets_a_deadline(event: EventDefinition) -> None:
    start = datetime(2020, 8, 1, 10, 0, tzinfo=UTC)
    assert event.lineup_deadline_minutes == 0 and event.lineup_deadline(start) is None
    earlier = parse_event(
        edit("appeal_window_minutes: 15\n", "appeal_window_minutes: 15\nlineup_deadline_minutes: 30\n")
    )
    assert earlier.lineup_deadline(start) == datetime(2020, 8, 1, 9, 30, tzinfo=UTC)
    assert earlier.lineup_deadline(None) is None  # a round without a time yet


def test_a_negative_or_over_a_week_lineup_deadline_is_a_problem_with_its_line() -> None:
    for value, expected in (
        ("-5", "must be at least 0, found -5"),
        ("20000", "must be at most 10080, found 20000"),
    ):
        text = edit(
            "appeal_window_minutes: 15\n", f"appeal_window_minutes: 15\nlineup_deadline_minutes: {value}\n"
        )
        found = problems_of(text)
        assert [(p.path, p.line) for p in found] == [
            ("lineup_deadline_minutes", line_of(text, "lineup_deadline"))
        ]
        assert expected in messages(found)


SMALL_TEXT = (Path(__file__).resolve().parents[1] / "fixtures" / "events" / "small.yaml").read_text()
GROUP_SCHEDULE = 'schedule: {start: "2024-03-02 10:00", rounds_per_day: 3, minutes_between_rounds: 90}'


def small_with(schedule: str) -> str:
    text = SMALL_TEXT.replace(GROUP_SCHEDULE, schedule, 1)
    assert text != SMALL_TEXT
    return text


def test_every_round_plays_the_events_time_control_unless_its_stage_or_the_round_gives_its_own() -> None:
    plain = parse_event(SMALL_TEXT)
    assert plain.time_control_of("group", 1) == TimeControl(15, 5)
    assert plain.time_controls() == (TimeControl(15, 5),)
    rounds = '["2024-03-02 10:00", {start: "2024-03-02 11:30", time_control: 5+2}, "2024-03-02 13:00"]'
    event = parse_event(small_with(f"schedule:\n      rounds: {rounds}\n    time_control: 10+3"))
    assert event.time_control_of("group", 1) == TimeControl(10, 3)  # the stage's
    assert event.time_control_of("group", 2) == TimeControl(5, 2)  # the round's own
    assert event.time_control_of("group", 3) == TimeControl(10, 3)
    assert event.time_control_of("final", 1) == TimeControl(15, 5)  # the event's
    assert event.stage("group").schedule[1] == datetime(2024, 3, 2, 11, 30)
    assert set(event.time_controls()) == {TimeControl(15, 5), TimeControl(10, 3), TimeControl(5, 2)}


def test_a_bad_stage_or_round_time_control_is_reported_with_its_path_and_line() -> None:
    rounds = '["2024-03-02 10:00", {start: "2024-03-02 11:30", time_control: fast}, {time_control: 5+2}]'
    text = small_with(
        f"schedule:\n      rounds: {rounds}\n    time_control: {{minutes: 0, increment_seconds: 3}}"
    )
    found = problems_of(text)
    schedule_line, stage_clock_line = line_of(text, "rounds: ["), line_of(text, "time_control: {minutes: 0")
    assert [(p.path, p.line) for p in found] == [
        ("stages[0].schedule.rounds[1].time_control", schedule_line),
        ("stages[0].schedule.rounds[2]", schedule_line),
        ("stages[0].time_control.minutes", stage_clock_line),
    ]
    assert "expected minutes+increment such as 15+5, found 'fast'" in messages(found)
    assert "missing 'start'" in messages(found)
    assert "must be at least 1, found 0" in messages(found)


def test_fide_data_of_a_player_is_read_and_each_bad_field_reported_at_its_key() -> None:
    first = CORRECT_TEXT.index("{board: 1,")
    line_end = CORRECT_TEXT.index("}", first)
    good = CORRECT_TEXT[:line_end] + ", fide_id: 1503014, title: gm, k: 10" + CORRECT_TEXT[line_end:]
    event = parse_event(good, source="good.yaml")
    player = event.teams[0].roster[0].player
    assert (player.fide_id, player.title, player.federation, player.k_factor) == (1503014, "GM", None, 10)
    bad = (
        CORRECT_TEXT[:line_end]
        + ", fide_id: 0, title: XM, federation: Norway, k: 15"
        + CORRECT_TEXT[line_end:]
    )
    found = messages(problems_of(bad))
    assert "fide_id must be a FIDE number between 1 and 99999999999, found 0" in found
    assert "title must be one of GM, IM, WGM, FM, WIM, CM, WFM, WCM, found 'XM'" in found
    assert "federation must be a three-letter code such as NOR, found 'NORWAY'" in found
    assert "k must be one of 10, 20, 40 (FIDE B.02 8.3.3), found 15" in found
    line = CORRECT_TEXT.count("\n", 0, first) + 1
    at_player = [p for p in problems_of(bad) if p.path.startswith("teams[0].players[0].")]
    assert [(p.path.rsplit(".", 1)[1], p.line) for p in at_player] == [
        ("fide_id", line),
        ("title", line),
        ("federation", line),
        ("k", line),
    ]
