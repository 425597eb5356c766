"""The event model without the event file: clocks, seed ranges, stages, entrants of a stage, the bracket's
rounds and the summary ``olympiad validate`` prints (docs/rules.md §1, §3, §5; docs/event-file.md).

Every expected value is worked out by hand from the rule it states; the events are built directly, so
these tests import nothing outside ``orchestrator.domain``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from orchestrator.domain.bracket import DuelSpec, LoserOf, PoolPlace, WinnerOf
from orchestrator.domain.event import (
    EventDefinition,
    EventSummary,
    Qualifiers,
    Section,
    SeedRange,
    StageDef,
    StageKind,
    StageSummary,
    TimeControl,
    bracket_depths,
    bracket_rounds,
    default_round_name,
    ordinal,
    places_still_in,
    pool_letters,
    qualifier_count,
    slot_label,
    stage_entrants,
    summary,
)
from orchestrator.domain.teams import Category, Team, TeamFormat

FORMAT = TeamFormat((Category.OPEN, Category.WOMEN), cutoff_year=2000)
CLOCK = TimeControl(15, 5)


def team(name: str, seed: int, section: str = "") -> Team:
    return Team(name, "NOR", seed, (), section=section)


def pools(
    key: str,
    name: str,
    count: int,
    size: int,
    entrants: tuple[SeedRange | Qualifiers, ...],
    advance: int = 0,
    schedule: tuple[datetime, ...] = (),
    **kw: Any,
) -> StageDef:
    return StageDef(key, name, StageKind.POOLS, count, size, entrants, advance, ("MP",), schedule, **kw)


def swiss(
    key: str,
    name: str,
    entrants: tuple[SeedRange | Qualifiers, ...],
    rounds: int = 5,
    schedule: tuple[datetime, ...] = (),
    **kw: Any,
) -> StageDef:
    return StageDef(
        key,
        name,
        StageKind.SWISS,
        0,
        0,
        entrants,
        0,
        ("MP",),
        schedule,
        round_count=rounds,
        pairing="dutch",
        **kw,
    )


def knockout(key: str = "ko", name: str = "Play-off") -> StageDef:
    return StageDef(key, name, StageKind.KNOCKOUT, 0, 0, (), 0, (), ())


def event_of(
    stages: tuple[StageDef, ...], teams: int = 8, bracket: tuple[DuelSpec, ...] = (), **kw: Any
) -> EventDefinition:
    field = tuple(team(f"T{seed}", seed) for seed in range(1, teams + 1))
    return EventDefinition("Cup", "cup", FORMAT, CLOCK, stages, bracket, field, **kw)


# --- clocks ---------------------------------------------------------------------------------------------


def test_a_clock_of_one_period_is_written_minutes_plus_increment() -> None:
    clock = TimeControl(15, 5)
    assert str(clock) == "15+5"
    assert clock.single_period == (900, 5)
    assert clock.has_periods is False
    assert clock.description == "15 minutes, 5 seconds a move from move 1"
    assert TimeControl(10, 0).description == "10 minutes"


def test_a_clock_of_two_periods_names_both_and_a_one_period_server_gets_the_first() -> None:
    clock = TimeControl(90, 30, moves=40, then_minutes=30)
    assert str(clock) == "90/40+30+30"
    assert clock.single_period == (5400, 30)
    assert clock.has_periods is True
    assert clock.description == "90 minutes for 40 moves, then 30 minutes, 30 seconds a move from move 1"
    assert (
        TimeControl(90, 0, moves=40, then_minutes=15).description
        == "90 minutes for 40 moves, then 15 minutes"
    )


# --- seeds and stages -----------------------------------------------------------------------------------


def test_a_seed_range_holds_both_ends_and_nothing_else() -> None:
    seeds = SeedRange(3, 7)
    assert seeds.size == 5
    assert [n for n in range(0, 10) if n in seeds] == [3, 4, 5, 6, 7]
    assert "3" not in seeds
    assert str(seeds) == "seeds 3–7"
    assert str(SeedRange(4, 4)) == "seed 4"
    assert SeedRange(4, 4).size == 1


def test_round_robin_rounds_are_n_minus_one_for_even_pools_and_n_for_odd_ones() -> None:
    # FIDE C.05 Annex 1: an odd pool plays with a bye, one round per team.
    assert pools("p", "P", 3, 10, ()).rounds == 9
    assert pools("p", "P", 3, 9, ()).rounds == 9
    assert pools("p", "P", 2, 4, ()).rounds == 3
    assert swiss("s", "S", (), rounds=11).rounds == 11
    assert knockout().rounds == 0


def test_stage_kinds_size_and_advancing() -> None:
    stage = pools("p", "P", 3, 10, (), advance=4)
    assert (stage.is_pools, stage.is_swiss, stage.size, stage.advancing) == (True, False, 30, 12)
    s = swiss("s", "S", ())
    assert (s.is_pools, s.is_swiss) == (False, True)
    assert (knockout().is_pools, knockout().is_swiss) == (False, False)


# --- the event ------------------------------------------------------------------------------------------


def test_an_event_without_sections_has_one_implicit_section() -> None:
    event = event_of((pools("p", "P", 2, 4, (SeedRange(1, 8),)),))
    assert event.section_list() == (Section("", "Cup"),)
    women = Section("w", "Women", "female")
    both = EventDefinition(
        "Cup",
        "cup",
        FORMAT,
        CLOCK,
        (
            swiss("o", "Open", (SeedRange(1, 2),), section=""),
            swiss("ws", "Women", (SeedRange(3, 4),), section="w"),
        ),
        (),
        (team("A", 1), team("B", 2), team("C", 3, "w"), team("D", 4, "w")),
        sections=(Section("", "Open"), women),
    )
    assert both.section_list() == (Section("", "Open"), women)
    assert [s.key for s in both.stages_of("w")] == ["ws"]
    assert [t.name for t in both.teams_of("w")] == ["C", "D"]
    assert [t.name for t in both.teams_of("")] == ["A", "B"]


def test_lineups_close_the_given_minutes_before_the_round_or_at_its_start() -> None:
    start = datetime(2026, 8, 1, 15, 0)
    assert event_of((), lineup_deadline_minutes=30).lineup_deadline(start) == datetime(2026, 8, 1, 14, 30)
    assert event_of((), lineup_deadline_minutes=30).lineup_deadline(None) is None
    assert event_of(()).lineup_deadline(start) is None


def test_a_round_plays_its_own_clock_else_its_stage_s_else_the_event_s() -> None:
    rapid, blitz, classical = TimeControl(25, 10), TimeControl(3, 2), TimeControl(90, 30, 40, 30)
    stage = pools(
        "p", "P", 2, 4, (SeedRange(1, 8),), time_control=rapid, round_time_controls=(None, blitz, None)
    )
    plain = pools("q", "Q", 2, 4, (SeedRange(1, 8),))
    event = EventDefinition("Cup", "cup", FORMAT, classical, (stage, plain), (), ())
    assert event.time_control_of("p", 1) == rapid  # no own clock: the stage's
    assert event.time_control_of("p", 2) == blitz
    assert event.time_control_of("p", 3) == rapid
    assert event.time_control_of("p", 4) == rapid  # past the rounds with their own
    assert event.time_control_of("p", 0) == rapid  # no round 0: never index -1
    assert event.time_control_of("q", 2) == classical
    assert event.time_control_of("nowhere", 2) == classical
    assert event.time_controls() == (classical, rapid, blitz)
    first_own = pools("r", "R", 2, 4, (SeedRange(1, 8),), round_time_controls=(blitz,))
    event = EventDefinition("Cup", "cup", FORMAT, classical, (first_own,), (), ())
    assert event.time_control_of("r", 1) == blitz  # round 1 is the first of the rounds' own clocks
    assert event.time_control_of("r", 2) == classical


def test_a_missing_stage_or_team_is_named_in_the_error() -> None:
    event = event_of((pools("a", "A", 1, 2, ()), pools("b", "B", 1, 2, ())), teams=2)
    assert event.stage("b").name == "B"
    assert event.team("T2").seed == 2
    assert event.team_by_seed(2).name == "T2"
    with pytest.raises(KeyError, match=r"no stage 'c'; stages are a, b"):
        event.stage("c")
    with pytest.raises(KeyError, match=r"no team 'T9'"):
        event.team("T9")
    with pytest.raises(KeyError, match=r"no team seeded 9"):
        event.team_by_seed(9)


# --- small helpers --------------------------------------------------------------------------------------


def test_pools_are_lettered_like_spreadsheet_columns() -> None:
    assert pool_letters(0) == ()
    assert pool_letters(3) == ("A", "B", "C")
    letters = pool_letters(53)
    assert letters[25:28] == ("Z", "AA", "AB")
    assert letters[51:] == ("AZ", "BA")


@pytest.mark.parametrize(
    ("n", "text"),
    [
        (1, "1st"),
        (2, "2nd"),
        (3, "3rd"),
        (4, "4th"),
        (9, "9th"),
        (10, "10th"),
        (11, "11th"),
        (12, "12th"),
        (13, "13th"),
        (20, "20th"),
        (21, "21st"),
        (22, "22nd"),
        (23, "23rd"),
        (101, "101st"),
        (111, "111th"),
        (120, "120th"),
        (121, "121st"),
    ],
)
def test_ordinals(n: int, text: str) -> None:
    assert ordinal(n) == text


def test_a_slot_is_labelled_with_its_stage_s_name_pool_and_place() -> None:
    event = event_of((pools("top", "Top", 2, 4, ()), swiss("sw", "Swiss", ())))
    assert slot_label(event, PoolPlace("top", "B", 2)) == "Top B 2nd"
    assert slot_label(event, PoolPlace("sw", "", 1)) == "Swiss 1st"
    assert slot_label(event, PoolPlace("gone", "A", 3)) == "gone A 3rd"
    assert slot_label(event, WinnerOf("IV")) == "winner IV"
    assert slot_label(event, LoserOf("V")) == "loser V"


def test_qualifiers_are_the_top_of_each_pool_or_of_the_one_swiss_table() -> None:
    assert qualifier_count(pools("p", "P", 3, 10, ()), Qualifiers("p", 4)) == 12
    assert qualifier_count(swiss("s", "S", ()), Qualifiers("s", 4)) == 4


def test_a_withdrawn_team_holds_no_place_and_shared_ranks_share_one() -> None:
    ranked = [("A", 1), ("B", 2), ("C", 2), ("D", 4), ("E", 5)]
    assert places_still_in(ranked, set()) == {"A": 1, "B": 2, "C": 2, "D": 4, "E": 5}
    # docs/rules.md §6 "Withdrawals": the places pass to the next teams still in.
    assert places_still_in(ranked, {"B"}) == {"A": 1, "C": 2, "D": 3, "E": 4}
    assert places_still_in(ranked, {"A", "D"}) == {"B": 1, "C": 1, "E": 3}


# --- entrants of a stage --------------------------------------------------------------------------------


def staged_event() -> EventDefinition:
    first = pools("base", "Base", 2, 3, (SeedRange(5, 10),), advance=2)
    second = pools("top", "Top", 1, 8, (Qualifiers("base", 2), SeedRange(1, 4)))
    sw = swiss("sw", "Swiss", (Qualifiers("top", 3), SeedRange(11, 12)))
    return event_of((first, second, sw), teams=12)


def test_qualifiers_enter_by_place_across_the_pools_then_seeds_in_order() -> None:
    event = staged_event()
    assert stage_entrants(event, "base", {}) == ["T5", "T6", "T7", "T8", "T9", "T10"]
    standings = {"base": [["T7", "T5", "T9"], ["T10", "T6", "T8"]]}
    assert stage_entrants(event, "top", standings) == ["T7", "T10", "T5", "T6", "T1", "T2", "T3", "T4"]


def test_a_swiss_stage_s_qualifiers_are_the_top_of_its_one_table() -> None:
    event = event_of(
        (
            swiss("sw", "Swiss", (SeedRange(1, 4),)),
            pools("f", "Final", 1, 4, (Qualifiers("sw", 2), SeedRange(5, 6))),
        )
    )
    assert stage_entrants(event, "f", {"sw": [["T3", "T1", "T4", "T2"]]}) == ["T3", "T1", "T5", "T6"]
    assert stage_entrants(event, "f", {"sw": [["T3", "T1"]]}) == ["T3", "T1", "T5", "T6"]
    with pytest.raises(ValueError, match=r"^Swiss has no top 2 in the standings given$"):
        stage_entrants(event, "f", {"sw": [["T3"]]})
    with pytest.raises(ValueError, match=r"^Swiss has no top 2 in the standings given$"):
        stage_entrants(event, "f", {"sw": [["T3", "T1"], ["T4", "T2"]]})


def test_entrants_are_refused_without_the_standings_they_need() -> None:
    event = staged_event()
    with pytest.raises(KeyError, match=r"Top needs the final standings of Base"):
        stage_entrants(event, "top", {"sw": [[]]})
    with pytest.raises(ValueError, match=r"^Base has 2 pools, standings given for 1$"):
        stage_entrants(event, "top", {"base": [["T7", "T5", "T9"]]})
    with pytest.raises(ValueError, match=r"^Base pool B has no 2nd place$"):
        stage_entrants(event, "top", {"base": [["T7", "T5", "T9"], ["T10"]]})
    # A pool exactly as long as the places taken is enough.
    assert stage_entrants(event, "top", {"base": [["T7", "T5"], ["T10", "T6"]]})[:4] == [
        "T7",
        "T10",
        "T5",
        "T6",
    ]


def test_a_team_entered_twice_is_refused_by_name() -> None:
    event = staged_event()
    with pytest.raises(ValueError, match=r"^Top: teams entered twice: T1, T2$"):
        stage_entrants(event, "top", {"base": [["T2", "T5", "T9"], ["T1", "T6", "T8"]]})


# --- the bracket ----------------------------------------------------------------------------------------


BRACKET = (
    DuelSpec("I", "Preliminary", PoolPlace("top", "A", 2), PoolPlace("top", "B", 3)),
    DuelSpec("II", "Preliminary", PoolPlace("top", "B", 2), PoolPlace("top", "A", 3)),
    DuelSpec("III", "Semi-final", PoolPlace("top", "A", 1), WinnerOf("I")),
    DuelSpec("IV", "Semi-final", WinnerOf("II"), PoolPlace("top", "B", 1)),
    DuelSpec("V", "Final", WinnerOf("III"), WinnerOf("IV")),
    DuelSpec("VI", "Third place", LoserOf("III"), LoserOf("IV")),
)


def test_a_duel_s_round_is_one_more_than_its_deepest_feeding_duel() -> None:
    assert bracket_depths(BRACKET) == {"I": 1, "II": 1, "III": 2, "IV": 2, "V": 3, "VI": 3}
    assert bracket_rounds(BRACKET) == 3
    assert bracket_rounds(()) == 0
    # A side naming a duel not (yet) in the list does not deepen it.
    assert bracket_depths((DuelSpec("X", "R", WinnerOf("Z"), PoolPlace("t", "A", 1)),)) == {"X": 1}
    # The deeper of two feeding duels counts, whichever side it is on.
    uneven = (*BRACKET[:3], DuelSpec("W", "R", WinnerOf("III"), WinnerOf("I")))
    assert bracket_depths(uneven)["W"] == 3
    assert bracket_depths((*BRACKET[:3], DuelSpec("W", "R", WinnerOf("I"), WinnerOf("III"))))["W"] == 3


def test_default_round_names_count_from_the_final() -> None:
    assert [default_round_name(depth, 4) for depth in (1, 2, 3, 4)] == [
        "Round 1",
        "Quarter-final",
        "Semi-final",
        "Final",
    ]
    assert [default_round_name(depth, 5) for depth in (1, 2)] == ["Round 1", "Round 2"]
    assert default_round_name(1, 1) == "Final"


# --- the summary ----------------------------------------------------------------------------------------


def test_the_summary_of_pools_a_knockout_and_its_bracket() -> None:
    first = pools(
        "base",
        "Base",
        2,
        3,
        (SeedRange(3, 8),),
        advance=2,
        schedule=(datetime(2026, 8, 1, 12, 0), datetime(2026, 8, 1, 14, 0), datetime(2026, 8, 2, 9, 30)),
    )
    top = pools("top", "Top", 2, 3, (Qualifiers("base", 2), SeedRange(1, 2)), advance=3)
    bracket = (
        DuelSpec("I", "Semi-final", PoolPlace("top", "A", 1), PoolPlace("top", "B", 2)),
        DuelSpec("II", "Semi-final", PoolPlace("top", "B", 1), PoolPlace("top", "A", 2)),
        DuelSpec("III", "Final", WinnerOf("I"), WinnerOf("II")),
    )
    event = event_of((first, top, knockout()), bracket=bracket, timezone="Europe/Oslo")
    result = summary(event)
    assert result == EventSummary(
        name="Cup",
        slug="cup",
        teams=8,
        time_control="15+5",
        timezone="Europe/Oslo",
        stages=(
            StageSummary(
                "base",
                "Base",
                StageKind.POOLS,
                "seeds 3–8 (6) = 6",
                6,
                "2 × 3",
                3,
                datetime(2026, 8, 1, 12, 0),
                datetime(2026, 8, 2, 9, 30),
                "top 2 of each pool (4) → Top",
            ),
            StageSummary(
                "top",
                "Top",
                StageKind.POOLS,
                "4 qualifiers (top 2 of 2 Base pools) + seeds 1–2 (2) = 6",
                6,
                "2 × 3",
                3,
                None,
                None,
                "top 3 of each pool (6)",
            ),
            StageSummary("ko", "Play-off", StageKind.KNOCKOUT, " = 0", 0, "knockout", 2, None, None, ""),
        ),
        bracket=(
            "I (Semi-final): Top A 1st – Top B 2nd",
            "II (Semi-final): Top B 1st – Top A 2nd",
            "III (Final): winner I – winner II",
        ),
    )
    assert str(result) == "\n".join(
        [
            "Cup (cup): 8 teams, time control 15+5, times in Europe/Oslo",
            "  Base [base]: seeds 3–8 (6) = 6; 2 × 3, 3 rounds, 2026-08-01 12:00 – 2026-08-02 09:30",
            "    advance: top 2 of each pool (4) → Top",
            "  Top [top]: 4 qualifiers (top 2 of 2 Base pools) + seeds 1–2 (2) = 6; 2 × 3, 3 rounds",
            "    advance: top 3 of each pool (6)",
            "  Play-off [ko]:  = 0; knockout, 2 bracket rounds",
            "  Bracket:",
            "    I (Semi-final): Top A 1st – Top B 2nd",
            "    II (Semi-final): Top B 1st – Top A 2nd",
            "    III (Final): winner I – winner II",
        ]
    )
    assert result.__rich__() == str(result)


def test_the_summary_of_sections_with_swiss_stages_and_a_two_period_clock() -> None:
    qualifying = swiss("q", "Qualifying", (SeedRange(1, 4),), rounds=3, section="")
    final = pools("f", "Final", 1, 2, (Qualifiers("q", 2),), advance=1, section="")
    women = swiss(
        "w", "Women", (SeedRange(5, 6),), rounds=2, section="w", schedule=(datetime(2026, 8, 3, 10, 0),)
    )
    field = (*(team(f"T{s}", s) for s in range(1, 5)), team("T5", 5, "w"), team("T6", 6, "w"))
    event = EventDefinition(
        "Cup",
        "cup",
        FORMAT,
        TimeControl(90, 30, moves=40, then_minutes=30),
        (qualifying, final, women),
        (),
        field,
        sections=(Section("", "Open"), Section("w", "Women", "female")),
    )
    result = summary(event)
    assert result.time_control == "90 minutes for 40 moves, then 30 minutes, 30 seconds a move from move 1"
    assert result.sections == ("Open []: 4 teams", "Women [w]: 2 teams, female players only")
    q, f, w = result.stages
    assert (q.entrants, q.entrant_count, q.pools, q.rounds, q.advance, q.section) == (
        "seeds 1–4 (4) = 4",
        4,
        "Swiss (dutch)",
        3,
        "top 2 → Final",
        "Open",
    )
    assert (f.entrants, f.entrant_count, f.advance) == (
        "2 qualifiers (top 2 of Qualifying) = 2",
        2,
        "top 1 of each pool (1)",
    )
    assert (w.first_round, w.last_round, w.advance, w.section) == (
        datetime(2026, 8, 3, 10, 0),
        datetime(2026, 8, 3, 10, 0),
        "",
        "Women",
    )
    assert str(result).splitlines() == [
        "Cup (cup): 6 teams, time control 90 minutes for 40 moves, then 30 minutes, "
        "30 seconds a move from move 1, times in UTC",
        "  Sections:",
        "    Open []: 4 teams",
        "    Women [w]: 2 teams, female players only",
        "  Qualifying [q] (Open section): seeds 1–4 (4) = 4; Swiss (dutch), 3 rounds",
        "    advance: top 2 → Final",
        "  Final [f] (Open section): 2 qualifiers (top 2 of Qualifying) = 2; 1 × 2, 1 rounds",
        "    advance: top 1 of each pool (1)",
        "  Women [w] (Women section): seeds 5–6 (2) = 2; Swiss (dutch), 2 rounds, "
        "2026-08-03 10:00 – 2026-08-03 10:00",
    ]


def test_a_swiss_stage_nobody_qualifies_from_advances_nobody_in_the_summary() -> None:
    event = event_of(
        (swiss("s", "S", (SeedRange(1, 4),)), pools("p", "P", 1, 4, (SeedRange(5, 8),), advance=0))
    )
    assert [stage.advance for stage in summary(event).stages] == ["", ""]
    assert summary(event).sections == ()
    assert "Sections" not in str(summary(event))
    assert "Bracket" not in str(summary(event))
