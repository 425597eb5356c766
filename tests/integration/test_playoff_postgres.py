"""The play-off on the real PostgreSQL: a bracket built from closed standings, a level duel decided by an
Armageddon from lot to result, the quarter-final filled, and two captains nominating at the same time
with duel row locks (the second nomination sees the first and unseals both)."""

from __future__ import annotations

import threading

from orchestrator.adapters.tables import ArmageddonStatus, Role
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.services.accounts.users import AuthUser
from orchestrator.services.playoff.armageddon import (
    choose_colour,
    commit_armageddon_lot,
    nominate,
    reveal_armageddon_lot,
)
from orchestrator.services.playoff.armageddon_game import record_armageddon_result
from orchestrator.services.playoff.read import bracket_view
from tests.support.playoff import (
    SEED_B,
    draw_category,
    eligible_accounts,
    play_duel,
    playoff_with_bracket,
)

ARBITER = AuthUser(id=0, username="arbiter", role=Role.ARBITER, team_id=None, session_generation=1)


def test_a_level_duel_is_decided_by_armageddon_with_concurrent_nominations(
    uow_factory: UnitOfWorkFactory,
) -> None:
    setup = playoff_with_bracket(uow_factory, slug="playoff-pg")
    play_duel(uow_factory, setup, "IV", "DDDDDD", "DDDDDD")
    duel_id, _category = draw_category(uow_factory, setup, "IV")
    teams = (setup.place_team["D2"], setup.place_team["C3"])
    with uow_factory() as uow:
        accounts = {team: eligible_accounts(uow, setup, "IV", team)[0] for team in teams}
    errors: list[BaseException] = []
    barrier = threading.Barrier(2)

    def captain(team: str) -> None:
        user = AuthUser(
            id=1,
            username=f"cap-{team}",
            role=Role.CAPTAIN,
            team_id=setup.team_ids[team],
            session_generation=1,
        )
        try:
            barrier.wait()
            with uow_factory() as uow:
                nominate(
                    uow, duel_id=duel_id, team_id=setup.team_ids[team], account=accounts[team], actor=user
                )
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=captain, args=(team,)) for team in teams]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with uow_factory() as uow:
        arm = uow.playoff.armageddon_of_duel(duel_id)
        assert arm is not None and arm.status == ArmageddonStatus.CHOOSING.value  # both in: unsealed once
    with uow_factory() as uow:
        commit_armageddon_lot(uow, duel_id=duel_id, which="colour", actor="arbiter", seed=SEED_B)
    with uow_factory() as uow:
        chooser = reveal_armageddon_lot(uow, duel_id=duel_id, which="colour", actor="arbiter")
    with uow_factory() as uow:
        choose_colour(uow, duel_id=duel_id, team_id=setup.team_ids[chooser], colour="black", actor=ARBITER)
    with uow_factory() as uow:
        record_armageddon_result(uow, duel_id=duel_id, result="0-1", actor="arbiter")
    with uow_factory() as uow:
        view = {d.key: d for d in bracket_view(uow, stage_id=setup.playoff_stage_id).duels()}
    assert view["IV"].winners == (chooser,) and view["IV"].reason == "armageddon"
    assert view["V"].second == chooser and len(view["V"].matches) == 2
