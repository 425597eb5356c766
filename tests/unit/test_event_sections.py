"""Sections in the event file (docs/sections.md, docs/event-file.md): the two-section 2026 files validate,
a file without sections is one implicit section, and every mistake about sections is listed at once."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from orchestrator.cli import app
from orchestrator.domain.event import Section, SeedRange, summary
from orchestrator.domain.teams import Player, Sex, section_admits
from orchestrator.eventfile import EventDefinitionError, parse_event

ROOT = Path(__file__).resolve().parents[2]
SECTIONS_FILE = ROOT / "tests" / "fixtures" / "events" / "olympiad-2026-sections.yaml"
TEXT = SECTIONS_FILE.read_text()
HEAD, TEAMS = TEXT.split("teams:\n", 1)


def messages(text: str) -> str:
    with pytest.raises(EventDefinitionError) as caught:
        parse_event(text)
    return "\n".join(str(problem) for problem in caught.value.problems)


def women_blocks(teams: str) -> list[str]:
    return [block for block in re.split(r"(?m)^(?=  - name: )", teams) if "section: women" in block]


def test_the_two_section_file_gives_each_team_and_stage_its_section() -> None:
    event = parse_event(TEXT)
    assert event.sections == (Section("open", "Open", "open"), Section("women", "Women", "female"))
    assert [(stage.key, stage.section) for stage in event.stages] == [("open", "open"), ("women", "women")]
    open_teams, women_teams = event.teams_of("open"), event.teams_of("women")
    assert len(open_teams) + len(women_teams) == len(event.teams)
    # Each stage takes exactly the seeds of its section's teams.
    for stage, teams in zip(event.stages, (open_teams, women_teams), strict=True):
        (seeds,) = stage.entrants
        assert isinstance(seeds, SeedRange)
        assert {team.seed for team in teams} == set(range(seeds.first, seeds.last + 1))
    # The Women section holds female players only; a federation may have a team in each section.
    assert all(entry.player.sex is Sex.FEMALE for team in women_teams for entry in team.roster)
    shared = {t.federation for t in open_teams} & {t.federation for t in women_teams}
    assert shared
    assert event.board_prize_min_games == 8


def test_the_full_2026_file_has_both_sections_with_fide_data() -> None:
    event = parse_event((ROOT / "events" / "olympiad-2026.yaml").read_text())
    assert (len(event.teams_of("open")), len(event.teams_of("women"))) == (190, 160)
    players = [entry.player for team in event.teams for entry in team.roster]
    assert all(p.fide_id is not None for p in players)
    assert len({p.fide_id for p in players}) == len(players)  # a FIDE id belongs to one player
    assert any(p.title == "WGM" for team in event.teams_of("women") for p in team.main_players)


def test_a_file_without_sections_is_one_implicit_section() -> None:
    event = parse_event((ROOT / "events" / "online-olympiad-2020.yaml").read_text())
    assert event.sections == ()
    assert event.section_list() == (Section("", event.name),)
    assert {team.section for team in event.teams} == {""} and {s.section for s in event.stages} == {""}
    assert event.teams_of("") == event.teams


def test_every_section_mistake_is_listed_in_one_pass() -> None:
    women = women_blocks(TEAMS)
    first_fed = re.search(r"federation: (\w+)", women[0])
    second_fed = re.search(r"federation: (\w+)", women[1])
    assert first_fed and second_fed
    teams = TEAMS
    # 1. a team names an unknown section
    teams = teams.replace("    section: open\n", "    section: juniors\n", 1)
    # 2. a Women team fields a player who is not female
    male = women[2].replace("sex: f", "sex: m", 1)
    teams = teams.replace(women[2], male)
    name = re.search(r'name: "([^"]+)", account: "[^"]+", sex: m', male)
    assert name
    # 3. a federation with two teams in the Women section
    teams = teams.replace(women[1], women[1].replace(second_fed.group(0), first_fed.group(0)))
    head = HEAD
    # 4. the Women stage draws the last seed of the Open section (which the Open stage leaves out)
    last_open, women_seeds = (stage.entrants[0] for stage in parse_event(TEXT).stages)
    assert isinstance(last_open, SeedRange) and isinstance(women_seeds, SeedRange)
    head = head.replace(
        f"{{seeds: {women_seeds.first}-{women_seeds.last}}}",
        f"{{seeds: {last_open.last}-{women_seeds.last}}}",
    ).replace(f"{{seeds: 1-{last_open.last}}}", f"{{seeds: 1-{last_open.last - 1}}}")
    # 5. a knockout of the Women section fed from the Open stage
    head += (
        "  - key: playoff\n    name: Play-off\n    section: women\n    kind: knockout\n"
        "    entrants:\n      - {from: open, top: 2}\n"
    )
    text = head + "bracket:\n  - {duel: F, first: Open 1st, second: Open 2nd}\nteams:\n" + teams
    found = messages(text)
    assert "no section 'juniors' (sections: open, women)" in found
    assert f"{name.group(1)} is not female: the Women section admits female players only" in found
    assert f"federation {first_fed.group(1)} already has a team in the Women section" in found
    assert (
        f"Women (Women section) draws seeds {last_open.last} (" in found
        and "teams of the Open section: a stage takes teams of its own section only" in found
    )
    assert "Play-off (Women section) is a knockout fed from Open, a stage of the Open section" in found


def test_section_keys_of_teams_and_stages_are_required_and_checked() -> None:
    # A stage without its section, a section given twice, an unknown eligibility.
    text = TEXT.replace("    section: women\n    kind: swiss", "    kind: swiss", 1)
    text = text.replace(
        "  - {key: women, name: Women, eligibility: female}",
        "  - {key: women, name: Women, eligibility: ladies}\n  - {key: open, name: Again}",
    )
    found = messages(text)
    assert "stages[1] (women): missing 'section' (sections: open, women)" in found
    assert "section 'open' is given twice" in found
    assert "eligibility must be one of open, female, found 'ladies'" in found


def test_a_file_without_sections_may_not_name_one() -> None:
    small = (ROOT / "events" / "olympiad-2026-small.yaml").read_text()
    text = small.replace("    kind: swiss", "    section: open\n    kind: swiss", 1)
    assert "a stage names a section, but the file has no 'sections'" in messages(text)


def test_sections_run_side_by_side_but_each_section_keeps_its_stages_in_order() -> None:
    # Both stages start on the same day (valid); a second Open stage starting before the first ends is not.
    event = parse_event(TEXT)
    assert event.stages[0].schedule[0] == event.stages[1].schedule[0]


def test_a_female_only_section_admits_female_players_only() -> None:
    woman = Player("A", "a", Sex.FEMALE, 1990, 2000)
    man = Player("B", "b", Sex.MALE, 1990, 2000)
    assert section_admits("female", woman) and not section_admits("female", man)
    assert section_admits("open", woman) and section_admits("open", man)


def test_the_board_prize_minimum_is_read_from_the_file() -> None:
    text = TEXT.replace("board_prizes: {min_games: 8}", "board_prizes: {min_games: 5}")
    assert parse_event(text).board_prize_min_games == 5
    assert "must be at least 1, found 0" in messages(text.replace("min_games: 5", "min_games: 0"))


def test_the_summary_names_each_section_with_its_teams() -> None:
    event = parse_event(TEXT)
    text = str(summary(event))
    for section in event.sections:
        only = ", female players only" if section.eligibility == "female" else ""
        assert f"    {section.name} [{section.key}]: {len(event.teams_of(section.key))} teams{only}\n" in text
        for stage in event.stages_of(section.key):
            assert f"  {stage.name} [{stage.key}] ({section.name} section): " in text


def test_the_2020_event_validates_byte_for_byte_as_before_sections(monkeypatch: pytest.MonkeyPatch) -> None:
    # Written by `olympiad validate events/online-olympiad-2020.yaml` before sections existed.
    golden = ROOT / "tests" / "fixtures" / "simulate" / "online-olympiad-2020-validate.txt"
    monkeypatch.chdir(ROOT)
    run = CliRunner().invoke(app, ["validate", "events/online-olympiad-2020.yaml"])
    assert run.exit_code == 0 and run.stdout == golden.read_text()


def test_a_stage_may_not_take_qualifiers_from_another_sections_stage() -> None:
    # A three-round Women final after both Swiss stages, fed from the Open's top 8.
    days = "".join(f'        - "2026-10-0{day} 15:00"\n' for day in (1, 2, 3))
    final = (
        "  - key: women-final\n    name: Women final\n    section: women\n    kind: swiss\n"
        "    rounds: 3\n    pairing: fide-team-swiss\n    entrants:\n      - {from: open, top: 8}\n"
        f"    schedule:\n      rounds:\n{days}"
    )
    found = messages(HEAD + final + "teams:\n" + TEAMS)
    assert (
        "stages[2].entrants[0].from (women-final): Women final (Women section) takes qualifiers from Open, "
        "a stage of the Open section: a stage takes teams of its own section only"
    ) in found
