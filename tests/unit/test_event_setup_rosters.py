"""Roster import from CSV: all or nothing, every bad line listed with its reason (docs/rules.md §1)."""

from __future__ import annotations

import pytest

from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.errors import ValidationFailed
from orchestrator.services.teams.rosters import import_rosters
from tests.support.factories import make_event, running_stage
from tests.support.rosters import HEADER, ICELAND


@pytest.fixture
def event_id(uow_factory: UnitOfWorkFactory) -> int:
    with uow_factory() as uow:
        return make_event(uow)


def accounts(uow: UnitOfWork, event_id: int) -> list[str]:
    return sorted(p.account for p in uow.teams.players_of_event(event_id))


def test_a_good_file_creates_new_teams_and_replaces_listed_rosters(
    uow_factory: UnitOfWorkFactory, event_id: int
) -> None:
    norway = ICELAND.replace("Iceland,ISL,5", "Norway,NOR,1").replace("_isl", "_nor2")
    with uow_factory() as uow:
        report = import_rosters(uow, event_id=event_id, csv_text=HEADER + ICELAND + norway, actor="anna")
    assert report.teams_created == ("Iceland",) and report.teams_replaced == ("Norway",)
    assert report.players == 14 and report.lines == 14
    with uow_factory() as uow:
        teams = {t.name: t for t in uow.teams.teams_of_event(event_id)}
        assert teams["Iceland"].seed == 5 and teams["Iceland"].federation == "ISL"
        norway_players = uow.teams.players_of_team(teams["Norway"].id or 0)
        assert sorted(p.account for p in norway_players) == sorted(
            line.split(",")[4] for line in norway.strip().splitlines()
        )
        reserve = next(p for p in norway_players if p.main_board is None)
        assert reserve.category == "open"
        assert len(uow.teams.players_of_team(teams["Sweden"].id or 0)) == 6  # not in the file: untouched
        audit = uow.audit.latest(event_id=event_id)
        assert any(a.action == "rosters.import" and a.actor == "anna" for a in audit)


def test_a_bad_file_lists_every_bad_line_and_imports_nothing(
    uow_factory: UnitOfWorkFactory, event_id: int
) -> None:
    lines = ICELAND.splitlines(keepends=True)
    bad = (
        HEADER
        + lines[0]  # line 2 fine
        + "Iceland,ISL,5,Helgi Dam,hdam_isl,m,1985,2400,reserve:veteran\n"  # 3 unknown category
        + "Iceland,ISL,5,Lenka Man,lman_isl,m,1976,2200,3\n"  # 4 a man on a women board
        + lines[3]  # 5 fine (board 4)
        + "Iceland,ISL,5,Old Junior,ojunior_isl,m,1995,2300,5\n"  # 6 born before the cut-off year
        + "Iceland,ISL,5,Saga Copy,JJONSSON_ISL,f,2006,1900,6\n"  # 7 duplicate account (case-insensitive)
        + "Iceland,ISL,5,Reserve One,r1_isl,m,1970,2350,reserve:junior\n"  # 8 not a junior
        + "Finland2,FIN,4,Some One,someone_fin2,m,1990,2300,1\n"  # 9 duplicate seed and federation
        + "Iceland,ISL,5,Extra Girl,egirl_isl,f,2005,1800,reserve:girl\n"  # 10 fine
        + "Iceland,ISL,5,Extra Girl2,egirl2_isl,f,2005,1800,reserve:girl\n"  # 11 too many girl reserves
        + "Iceland,ISL,5,No Rating,nrating_isl,f,2005,strong,reserve:women\n"  # 12 bad rating
        + "Iceland,ISL,5,Taken,nberg_nor,m,1990,2300,reserve:open\n"  # 13 account of a Norway player
    )
    with uow_factory() as uow:
        before = accounts(uow, event_id)
    with uow_factory() as uow, pytest.raises(ValidationFailed) as refused:
        import_rosters(uow, event_id=event_id, csv_text=bad, actor="anna")
    problems = refused.value.problems
    text = "\n".join(problems)
    expected = {
        3: "unknown category 'veteran'",
        4: "not eligible for women",
        6: "not eligible for junior",
        7: "duplicate account 'jjonsson_isl'",
        8: "not eligible for junior",
        9: "duplicate seed 4",
        11: "too many girl reserves",
        12: "rating must be a whole number",
        13: "already plays for Norway",
    }
    for line, reason in expected.items():
        assert any(p.startswith(f"line {line}:") and reason in p for p in problems), (line, text)
    assert any("federation FIN already has a team" in p for p in problems)
    assert any("missing main board 3" in p for p in problems)  # line 4 was refused, so board 3 is empty
    assert not any(p.startswith(("line 5:", "line 10:")) for p in problems), text
    # line 2 is fine itself; the team-wide problems of Iceland are reported on its first line
    assert all("team Iceland: missing main board" in p for p in problems if p.startswith("line 2:")), text
    with uow_factory() as uow:
        assert accounts(uow, event_id) == before
        assert [t.name for t in uow.teams.teams_of_event(event_id)] == [
            "Norway",
            "Sweden",
            "Denmark",
            "Finland",
        ]


def test_a_file_without_the_expected_columns_is_refused_on_its_first_line(
    uow_factory: UnitOfWorkFactory, event_id: int
) -> None:
    with uow_factory() as uow, pytest.raises(ValidationFailed) as refused:
        import_rosters(uow, event_id=event_id, csv_text="team,name,colour\nX,Y,Z\n", actor="anna")
    [problem] = refused.value.problems
    assert problem.startswith("line 1:") and "missing column(s)" in problem and "colour" in problem


def test_a_team_playing_in_a_started_stage_keeps_its_roster(
    uow_factory: UnitOfWorkFactory, event_id: int
) -> None:
    with uow_factory() as uow:
        running_stage(uow, event_id=event_id)
    norway = ICELAND.replace("Iceland,ISL,5", "Norway,NOR,1").replace("_isl", "_nor2")
    with uow_factory() as uow, pytest.raises(ValidationFailed, match="already plays in Group"):
        import_rosters(uow, event_id=event_id, csv_text=HEADER + norway, actor="anna")
    with uow_factory() as uow:
        assert "nberg_nor" in accounts(uow, event_id) and "jjonsson_nor2" not in accounts(uow, event_id)


FIDE_HEADER = HEADER.rstrip("\n") + ",fide_id,title,fide_federation,k\n"


def test_fide_data_is_optional_and_stored_when_given(uow_factory: UnitOfWorkFactory, event_id: int) -> None:
    rows = [line + ",,,," for line in ICELAND.splitlines()]
    rows[0] = rows[0].removesuffix(",,,,") + ",2300129,gm,,10"
    rows[2] = rows[2].removesuffix(",,,,") + ",2301001,WGM,CZE,"
    with uow_factory() as uow:
        import_rosters(uow, event_id=event_id, csv_text=FIDE_HEADER + "\n".join(rows) + "\n", actor="anna")
    with uow_factory() as uow:
        by_account = {p.account: p for p in uow.teams.players_of_event(event_id)}
    jon, lenka, helgi = by_account["jjonsson_isl"], by_account["lptacnikova_isl"], by_account["hdam_isl"]
    assert (jon.fide_id, jon.title, jon.federation, jon.k_factor) == (2300129, "GM", None, 10)
    assert (lenka.fide_id, lenka.title, lenka.federation, lenka.k_factor) == (2301001, "WGM", "CZE", None)
    assert (helgi.fide_id, helgi.title, helgi.federation, helgi.k_factor) == (None, None, None, None)


def test_bad_fide_data_is_listed_line_by_line_and_nothing_is_imported(
    uow_factory: UnitOfWorkFactory, event_id: int
) -> None:
    rows = [line + ",,,," for line in ICELAND.splitlines()]
    rows[0] = rows[0].removesuffix(",,,,") + ",2300129,GM,,"
    rows[1] = rows[1].removesuffix(",,,,") + ",2300129,,,"  # line 3: the same FIDE id again
    rows[2] = rows[2].removesuffix(",,,,") + ",abc,XM,Czech,15"  # line 4: four problems
    rows[3] = rows[3].removesuffix(",,,,") + ",0,,,"  # line 5: not a FIDE number
    with uow_factory() as uow:
        before = accounts(uow, event_id)
    with uow_factory() as uow, pytest.raises(ValidationFailed) as refused:
        import_rosters(uow, event_id=event_id, csv_text=FIDE_HEADER + "\n".join(rows) + "\n", actor="anna")
    text = "\n".join(refused.value.problems)
    assert "line 3: FIDE id 2300129 is already given to Jon Jonsson (line 2)" in text
    assert "line 4: fide_id must be a whole number, found 'abc'" in text
    assert "line 4: title must be one of GM, IM, WGM, FM, WIM, CM, WFM, WCM, found 'XM'" in text
    assert "line 4: federation must be a three-letter code such as NOR, found 'CZECH'" in text
    assert "line 4: k must be one of 10, 20, 40 (FIDE B.02 8.3.3), found 15" in text
    assert "line 5: fide_id must be between 1 and 99999999999, found 0" in text
    with uow_factory() as uow:
        assert accounts(uow, event_id) == before


def test_a_role_written_with_a_superscript_digit_is_a_problem_of_its_line(
    uow_factory: UnitOfWorkFactory, event_id: int
) -> None:
    bad = HEADER + ICELAND.replace("Gudrun Ola,gola_isl,f,1999,2000,4", "Gudrun Ola,gola_isl,f,1999,2000,²")
    with uow_factory() as uow, pytest.raises(ValidationFailed) as refused:
        import_rosters(uow, event_id=event_id, csv_text=bad, actor="anna")
    assert any(
        p.startswith("line 5:") and "role must be a main board number" in p for p in refused.value.problems
    )
