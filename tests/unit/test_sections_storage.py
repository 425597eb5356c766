"""Sections on the server (docs/sections.md): a stored event keeps each team's and stage's section, a
stage draws the teams of its own section only, and the roster import checks the section of every line
(Women eligibility, one team per federation and section), importing nothing when a line is wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.domain.event import EventDefinition
from orchestrator.domain.teams import Team
from orchestrator.errors import ValidationFailed
from orchestrator.eventfile import parse_event
from orchestrator.services.setup import pool_draft
from orchestrator.services.setup.event_setup import event_field
from orchestrator.services.teams.rosters import import_rosters
from tests.support.factories import make_event, stage_id_of

TEXT = (
    Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "events" / "olympiad-2026-sections.yaml"
).read_text()
DEFINITION = parse_event(TEXT)
HEADER = "team,federation,seed,name,account,sex,birth_year,rating,role,section\n"


@pytest.fixture
def event_id(uow_factory: UnitOfWorkFactory) -> int:
    with uow_factory() as uow:
        return make_event(uow, TEXT)


def team_lines(team: str, federation: str, seed: int, section: str, sexes: str = "fffff") -> str:
    """A five-player roster (boards 1-4 and a reserve) with the given sexes, one CSV line each."""
    roles = ["1", "2", "3", "4", "reserve:open"]
    return "".join(
        f"{team},{federation},{seed},Player {n} {team},p{n}_{team.lower().replace(' ', '')},{sex},1990,"
        f"{2300 - 10 * n},{role},{section}\n"
        for n, (sex, role) in enumerate(zip(sexes, roles, strict=True), start=1)
    )


def stored_sections(uow: UnitOfWork, event_id: int) -> dict[str, str]:
    return {t.name: t.section for t in uow.teams.teams_of_event(event_id)}


def test_the_stored_event_keeps_every_team_and_stage_in_its_section(
    uow_factory: UnitOfWorkFactory, event_id: int
) -> None:
    with uow_factory() as uow:
        assert stored_sections(uow, event_id) == {team.name: team.section for team in DEFINITION.teams}
        assert {s.key: s.section for s in uow.events.stages_of_event(event_id)} == {
            "open": "open",
            "women": "women",
        }
        field = event_field(uow, event_id)
        assert {t.name: t.section for t in field.domain.values()} == stored_sections(uow, event_id)
        names, _ = pool_draft.stage_entrants(uow, stage_id=stage_id_of(uow, event_id, "women"))
    assert sorted(names) == sorted(team.name for team in DEFINITION.teams_of("women"))


def test_a_women_roster_with_a_male_player_is_refused_line_by_line(
    uow_factory: UnitOfWorkFactory, event_id: int
) -> None:
    seed = len(DEFINITION.teams) + 1
    taken = DEFINITION.teams_of("women")[0].federation
    csv = (
        HEADER
        + team_lines("Iceland Women", "ISL", seed, "women", sexes="fmffm")  # lines 2-6: 3 and 6 male
        + team_lines("Twin Women", taken, seed + 1, "women")  # line 7: a second Women team of a federation
        + team_lines("Nowhere", "NWH", seed + 2, "juniors")  # lines 12-16: no such section
    )
    with uow_factory() as uow:
        before = stored_sections(uow, event_id)
    with uow_factory() as uow, pytest.raises(ValidationFailed) as refused:
        import_rosters(uow, event_id=event_id, csv_text=csv, actor="anna")
    problems = refused.value.problems
    for line in (3, 6):
        assert any(
            p.startswith(f"line {line}: ")
            and "is not female: the Women section admits female players only" in p
            for p in problems
        ), problems
    assert any(
        p.startswith("line 7: federation " + taken + " already has a team in the Women section")
        for p in problems
    )
    assert sum("section must be one of open, women: found 'juniors'" in p for p in problems) == 5
    with uow_factory() as uow:
        assert stored_sections(uow, event_id) == before  # nothing imported


def test_an_event_with_sections_needs_the_section_column(
    uow_factory: UnitOfWorkFactory, event_id: int
) -> None:
    csv = HEADER.replace(",section", "") + "".join(
        line.rsplit(",", 1)[0] + "\n" for line in team_lines("Iceland Women", "ISL", 99, "women").splitlines()
    )
    with uow_factory() as uow, pytest.raises(ValidationFailed) as refused:
        import_rosters(uow, event_id=event_id, csv_text=csv, actor="anna")
    assert "missing column(s): section" in refused.value.problems[0]


def test_a_good_import_stores_the_section_and_a_stage_refuses_a_team_of_another_section(
    uow_factory: UnitOfWorkFactory, event_id: int
) -> None:
    seed = len(DEFINITION.teams) + 1
    # A federation may have one team in each section: an Open federation without one gets a Women team.
    women_federations = {team.federation for team in DEFINITION.teams_of("women")}
    federation = next(
        t.federation for t in DEFINITION.teams_of("open") if t.federation not in women_federations
    )
    with uow_factory() as uow:
        report = import_rosters(
            uow,
            event_id=event_id,
            csv_text=HEADER + team_lines("New Women", federation, seed, "women"),
            actor="a",
        )
    assert report.teams_created == ("New Women",)
    with uow_factory() as uow:
        assert stored_sections(uow, event_id)["New Women"] == "women"
    # A Women team moved to the Open keeps its seed, inside the Women stage's range: drafting refuses it.
    moved = _moveable_women_team(DEFINITION)
    csv = HEADER + team_lines(moved.name, moved.federation, moved.seed, "open")
    with uow_factory() as uow:
        import_rosters(uow, event_id=event_id, csv_text=csv, actor="a")
    with uow_factory() as uow, pytest.raises(ValidationFailed) as refused:
        pool_draft.stage_entrants(uow, stage_id=stage_id_of(uow, event_id, "women"))
    assert list(refused.value.problems) == [
        f"Women (Women section) would draw {moved.name} (seed {moved.seed}), a team of the Open section: "
        "give it a seed of its own section"
    ]


def _moveable_women_team(event: EventDefinition) -> Team:
    """A Women team whose federation has no Open team (so moving it to the Open is no duplicate)."""
    open_federations = {team.federation for team in event.teams_of("open")}
    return next(team for team in event.teams_of("women") if team.federation not in open_federations)
