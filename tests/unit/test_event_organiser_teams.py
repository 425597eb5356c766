"""The organising federation's B and C teams in an event file (Olympiad Pairing Rules 2.1–2.2;
docs/event-file.md "organiser"): the organiser may enter a second team, and a third when the field is odd
without it; every other federation one team per section. Every problem is listed with its line."""

from __future__ import annotations

import re

import pytest

from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.domain.teams import extra_team_problem
from orchestrator.errors import ValidationFailed
from orchestrator.eventfile import EventDefinitionError, parse_event
from orchestrator.services.teams.rosters import import_rosters
from tests.support.factories import SMALL_EVENT, make_event
from tests.support.rosters import HEADER, ICELAND
from tests.support.swiss_event_files import SMALL_TEXT

FEDERATION = re.compile(r"^    federation: ([A-Z]{3})$", re.MULTILINE)


def with_federations(text: str, codes: dict[int, str]) -> str:
    """The small file with the federation of teams[index] set to code."""
    found = list(FEDERATION.finditer(text))
    for index, code in sorted(codes.items(), reverse=True):
        match = found[index]
        text = text[: match.start(1)] + code + text[match.end(1) :]
    return text


def without_last_team(text: str) -> str:
    """The small file with 23 teams: the last team dropped and the stage's seeds cut to 1-23."""
    last = text.rindex("\n  - name: ")
    return text[: last + 1].replace("{seeds: 1-24}", "{seeds: 1-23}")


def problems(text: str) -> list[str]:
    with pytest.raises(EventDefinitionError) as caught:
        parse_event(text)
    return [str(problem) for problem in caught.value.problems]


def test_the_organiser_enters_a_b_and_a_c_team_in_an_even_field() -> None:
    # Uzbekistan (teams[16]) organises; teams[0] and teams[1] become its B and C teams: 24 teams in all.
    assert "organiser: UZB" in SMALL_TEXT
    event = parse_event(with_federations(SMALL_TEXT, {0: "UZB", 1: "UZB"}))
    assert sum(team.federation == "UZB" for team in event.teams) == 3


def test_a_c_team_in_an_odd_field_and_a_fourth_team_are_refused_at_their_lines() -> None:
    odd = without_last_team(with_federations(SMALL_TEXT, {0: "UZB", 1: "UZB"}))
    (found,) = [p for p in problems(odd) if "federation UZB" in p]
    assert "teams[16].federation" in found  # the third team in file order: Uzbekistan, after teams[0] and [1]
    assert "federation UZB already has 2 teams (teams[0], teams[1])" in found
    assert "a C team is entered only to make an odd field even, and with it the field has 23 teams" in found
    four = [p for p in problems(with_federations(SMALL_TEXT, {0: "UZB", 1: "UZB", 2: "UZB"})) if "UZB" in p]
    assert len(four) == 1 and "teams[16].federation" in four[0] and "at most 3 teams (A, B, C" in four[0]


def test_a_second_team_of_another_federation_is_refused_and_every_one_is_listed() -> None:
    text = with_federations(SMALL_TEXT, {1: "RUS", 3: "RUS", 5: "USA"})  # USA is teams[2]
    found = problems(text)
    assert len(found) == 3, found
    assert found[0].startswith("event.yaml:") and "teams[1].federation" in found[0]
    assert (
        "federation RUS already has a team (teams[0]): only the organising federation may enter" in found[0]
    )
    assert (
        "teams[3].federation" in found[1]
        and "federation RUS already has 2 teams (teams[0], teams[1])" in found[1]
    )
    assert "teams[5].federation" in found[2] and "federation USA already has a team (teams[2])" in found[2]


def test_without_an_organiser_every_federation_enters_one_team() -> None:
    text = with_federations(SMALL_TEXT.replace("organiser: UZB\n", ""), {0: "UZB"})
    (found,) = problems(text)
    assert "federation UZB already has a team (teams[0])" in found


def test_the_organiser_must_be_a_federation_code() -> None:
    (found,) = problems(SMALL_TEXT.replace("organiser: UZB", "organiser: Uzbekistan"))
    assert "organiser" in found and "three-letter federation code such as UZB, found 'Uzbekistan'" in found


@pytest.mark.parametrize(
    ("number", "federation", "field_size", "allowed"),
    [
        (1, "NOR", 23, True),
        (1, "SWE", 23, True),
        (2, "NOR", 23, True),
        (2, "SWE", 24, False),
        (3, "NOR", 24, True),  # the C team makes 23 teams 24
        (3, "NOR", 23, False),
        (3, "NOR", 25, False),
        (4, "NOR", 24, False),
    ],
)
def test_extra_team_rule(number: int, federation: str, field_size: int, allowed: bool) -> None:
    problem = extra_team_problem(number=number, federation=federation, organiser="NOR", field_size=field_size)
    assert (problem is None) is allowed


# --- the roster import (services/teams/rosters.py) applies the same rule ---


def test_the_roster_import_lets_the_organiser_add_its_b_team_and_refuses_another_federations(
    uow_factory: UnitOfWorkFactory,
) -> None:
    # The small test event (Norway, Sweden, Denmark, Finland: four teams), Norway organising.
    with uow_factory() as uow:
        event_id = make_event(
            uow, SMALL_EVENT.replace("timezone: Europe/Oslo\n", "timezone: Europe/Oslo\norganiser: NOR\n")
        )
    norway_b = ICELAND.replace("Iceland,ISL,5", "Norway B,NOR,5").replace("_isl", "_norb")
    sweden_b = ICELAND.replace("Iceland,ISL,5", "Sweden B,SWE,6").replace("_isl", "_sweb")
    with uow_factory() as uow, pytest.raises(ValidationFailed) as caught:
        import_rosters(uow, event_id=event_id, csv_text=HEADER + norway_b + sweden_b, actor="anna")
    (problem,) = caught.value.problems
    assert problem.startswith("line 9:") and "federation SWE already has a team (Sweden)" in problem
    assert "only the organising federation may enter a second team (Olympiad Pairing Rules 2.1)" in problem
    with uow_factory() as uow:
        report = import_rosters(uow, event_id=event_id, csv_text=HEADER + norway_b, actor="anna")
    assert report.teams_created == ("Norway B",)
    norway_c = ICELAND.replace("Iceland,ISL,5", "Norway C,NOR,6").replace("_isl", "_norc")
    iceland = ICELAND.replace("Iceland,ISL,5", "Iceland,ISL,7")
    with uow_factory() as uow, pytest.raises(ValidationFailed) as caught:
        import_rosters(uow, event_id=event_id, csv_text=HEADER + norway_c + iceland, actor="anna")
    (problem,) = caught.value.problems  # seven teams with it: a C team only makes an odd field even
    assert (
        "federation NOR already has a team (Norway, Norway B)" in problem
        and "the field has 7 teams" in problem
    )
    with uow_factory() as uow:  # five teams without it: the C team makes the field even
        assert import_rosters(uow, event_id=event_id, csv_text=HEADER + norway_c, actor="anna").teams_created
