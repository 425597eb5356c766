"""Swiss stages in the event file: the 2026 Olympiad files validate, a Swiss stage takes seeds or pool
qualifiers and feeds a knockout, and every mistake is named (docs/event-file.md, docs/swiss.md)."""

from __future__ import annotations

import pytest

from orchestrator.domain.bracket import PoolPlace
from orchestrator.domain.event import Qualifiers, SeedRange, TimeControl, stage_entrants, summary
from orchestrator.eventfile import EventDefinitionError, Problem, parse_event
from tests.support.swiss_event_files import EVENTS, PLAYOFF, POOLS_FIRST, SMALL_TEXT, STAGE_HEAD, with_playoff


def edit(old: str, new: str, text: str = SMALL_TEXT) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def problems_of(text: str) -> tuple[Problem, ...]:
    with pytest.raises(EventDefinitionError) as caught:
        parse_event(text)
    return caught.value.problems


def messages(text: str) -> str:
    return "\n".join(str(problem) for problem in problems_of(text))


def test_the_2026_files_are_a_swiss_stage_of_eleven_rounds_per_section_with_the_olympiad_tiebreaks() -> None:
    # The small file: the Open alone (one implicit section), seeds 1-24; the full file: Open seeds 1-190 and
    # Women seeds 191-350 (190 + 160 = 350 teams), a stage each (docs/sections.md).
    for name, ranges in (("olympiad-2026.yaml", (1, 190, 350)), ("olympiad-2026-small.yaml", (1, 24))):
        event = parse_event((EVENTS / name).read_text(), source=name)
        assert len(event.stages) == len(ranges) - 1
        for index, stage in enumerate(event.stages):
            first = ranges[index] + (1 if index else 0)
            assert (stage.kind, stage.rounds, stage.pairing, stage.tiebreaks) == (
                "swiss",
                11,
                "olympiad-2022",  # the Olympiad Pairing Rules (docs/swiss.md)
                ("olympiad-2026",),
            )
            assert stage.entrants == (SeedRange(first, ranges[index + 1]),)
            assert len(stage.schedule) == 11
            assert (stage.schedule[5].day, stage.schedule[6].day) == (21, 23)  # the free day
        assert len(event.teams) == ranges[-1] and event.team_format.boards == 4
        assert all(len(team.roster) == 5 for team in event.teams)  # four boards and a reserve


def test_the_2026_clock_has_two_periods_and_an_increment_from_move_one() -> None:
    event = parse_event(SMALL_TEXT)
    assert event.time_control == TimeControl(90, 30, moves=40, then_minutes=30)
    assert str(event.time_control) == "90/40+30+30"
    assert event.time_control.description == (
        "90 minutes for 40 moves, then 30 minutes, 30 seconds a move from move 1"
    )
    assert "90 minutes for 40 moves" in str(summary(event))


def test_a_clock_with_moves_but_no_second_period_is_refused() -> None:
    text = edit("then_minutes: 30, ", "")
    assert "give both 'moves' (of the first period) and 'then_minutes'" in messages(text)


def test_pairing_and_tiebreaks_default_to_fide_team_swiss_and_olympiad_2026() -> None:
    text = edit("    pairing: olympiad-2022\n    tiebreaks: olympiad-2026\n", "")
    (stage,) = parse_event(text).stages
    assert (stage.pairing, stage.tiebreaks) == ("fide-team-swiss", ("olympiad-2026",))


def test_every_known_pairing_system_is_accepted_and_others_are_refused_as_unknown() -> None:
    for name in ("fide-team-swiss", "score-group-halves"):
        (stage,) = parse_event(edit("pairing: olympiad-2022", f"pairing: {name}")).stages
        assert stage.pairing == name
    text = messages(edit("pairing: olympiad-2022", "pairing: dutch"))
    assert "unknown pairing 'dutch': use one of fide-team-swiss, olympiad-2022, score-group-halves" in text


def test_more_rounds_than_opponents_is_refused_naming_the_limit() -> None:
    text = messages(edit("rounds: 11", "rounds: 24"))
    assert "stages[0].rounds (open)" in text
    assert "24 rounds for 24 teams" in text and "at most 23 rounds" in text
    assert "rounds for 24 teams" not in messages(
        edit("rounds: 11", "rounds: 23")
    )  # only the schedule is short


def test_a_swiss_stage_needs_rounds_and_has_no_pool_keys_while_pools_have_no_rounds() -> None:
    text = messages(edit("    rounds: 11\n", "    pool_size: 10\n    advance: 4\n"))
    assert "a swiss stage needs 'rounds'" in text
    assert "a swiss stage has no 'pool_size'" in text and "a swiss stage has no 'advance'" in text
    pools = edit(STAGE_HEAD, POOLS_FIRST.replace("    advance: 2\n", "    advance: 2\n    rounds: 3\n"))
    assert "a pools stage has no 'rounds' (a swiss stage has)" in messages(pools)


def test_a_schedule_must_list_one_start_per_swiss_round() -> None:
    text = messages(edit('        - "2026-09-27 15:00"\n', ""))
    assert "10 start times, but Open has 11 rounds" in text


def test_an_unknown_kind_names_the_three_kinds() -> None:
    assert "kind must be 'pools', 'swiss' or 'knockout', found 'league'" in messages(
        edit("kind: swiss", "kind: league")
    )


def test_a_swiss_stage_feeds_a_knockout_through_swiss_places() -> None:
    event = parse_event(with_playoff())
    assert event.stage("playoff").entrants == (Qualifiers("open", 4),)
    duels = {duel.key: duel for duel in event.bracket}
    assert (duels["I"].first, duels["I"].second) == (PoolPlace("open", "", 1), PoolPlace("open", "", 4))
    assert duels["III"].round_name == "Final"
    shown = str(summary(event))
    assert "top 4 → Play-off" in shown
    assert "4 qualifiers (top 4 of Open)" in shown
    assert "I (Semi-final): Open 1st – Open 4th" in shown


def test_a_bracket_slot_beyond_the_swiss_qualifiers_is_refused() -> None:
    text = messages(with_playoff(playoff=PLAYOFF.replace("Open 4th", "Open 5th")))
    assert "Open 5th does not qualify: only the top 4 of Open go to the knockout" in text
    assert "Open 4th qualifies but is never placed in the bracket" in text


def test_a_knockout_cannot_take_more_swiss_qualifiers_than_teams_play_the_swiss() -> None:
    text = messages(with_playoff(playoff=PLAYOFF.replace("top: 4", "top: 30")))
    assert "takes the top 30 of Open, but only 24 teams play it" in text


def test_a_pool_place_of_a_swiss_stage_and_a_swiss_place_of_a_pool_stage_are_refused() -> None:
    text = messages(with_playoff(playoff=PLAYOFF.replace("Open 1st", "Open A 1st")))
    assert "Open A 1st: Open has no pools" in text
    pools = with_playoff(
        edit(STAGE_HEAD, POOLS_FIRST), PLAYOFF.replace("second: Open 4th", "second: Preliminary 1st")
    )
    assert (
        "Preliminary 1st: Preliminary has pools; write a pool place such as 'Preliminary A 1st'"
        in messages(pools)
    )


def test_a_swiss_stage_takes_pool_qualifiers_before_the_seeded_teams() -> None:
    event = parse_event(edit(STAGE_HEAD, POOLS_FIRST))
    assert event.stage("open").entrants == (Qualifiers("prelim", 2), SeedRange(1, 16))
    finals = {"prelim": [["T17", "T18", "T19", "T20"], ["T21", "T22", "T23", "T24"]]}
    names = stage_entrants(event, "open", finals)
    assert names[:4] == ["T17", "T21", "T18", "T22"]  # pool winners first, then the 2nds
    assert len(names) == 20
    assert "4 qualifiers (top 2 of 2 Preliminary pools) + seeds 1–16 (16) = 20" in str(summary(event))


def test_every_swiss_problem_is_reported_at_once_with_its_line() -> None:
    text = edit("rounds: 11", "rounds: 30")
    text = edit("pairing: olympiad-2022", "pairing: dutch", text)
    found = problems_of(with_playoff(text, PLAYOFF.replace("Open 3rd", "Open 9th")))
    lines = SMALL_TEXT.splitlines()
    rendered = "\n".join(str(problem) for problem in found)
    assert "unknown pairing 'dutch'" in rendered and "30 rounds for 24 teams" in rendered
    assert "Open 9th does not qualify" in rendered
    pairing = next(problem for problem in found if problem.path == "stages[0].pairing")
    assert pairing.line == next(n for n, line in enumerate(lines, 1) if "pairing:" in line)
