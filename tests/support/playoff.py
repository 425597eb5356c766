"""Builders for play-off tests: the 2020 event with closed Top standings, and duel matches played out.

with uow_factory() as uow:
    setup = playoff_event(uow)                  # Top A-D closed (seeds 1-12 on the 12 places)
    playoff.build_bracket(uow, stage_id=setup.playoff_stage_id, actor="arbiter")
with uow_factory() as uow:
    play(uow, duel_match(uow, setup, "I", 1), "WWWDDD")   # from duel I's first team's side
"""

from __future__ import annotations

from dataclasses import dataclass

from orchestrator.adapters.tables import Board, Duel, Event, EventStatus, Match, Pool, PoolStatus, Standing
from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.services.playoff.armageddon import commit_armageddon_lot, reveal_armageddon_lot
from orchestrator.services.playoff.commands import build_bracket
from orchestrator.services.playoff.forms import nomination_form
from orchestrator.services.playoff.sync import advance_after_match
from orchestrator.services.results import results
from orchestrator.services.teams import lineups
from tests.support.factories import EVENT_2020, make_event, stage_id_of

# Top division places used by the replays: pool letter -> seeds on places 1, 2, 3.
TOP_PLACES = {"A": (1, 5, 9), "B": (2, 6, 10), "C": (3, 7, 11), "D": (4, 8, 12)}


@dataclass(frozen=True)
class PlayoffSetup:
    event_id: int
    slug: str
    top_stage_id: int
    playoff_stage_id: int
    team_ids: dict[str, int]  # team name -> id
    place_team: dict[str, str]  # "A1" -> team name


def playoff_event(
    uow: UnitOfWork, *, slug: str | None = None, close_top: bool = True, definition: str = EVENT_2020
) -> PlayoffSetup:
    """The 2020 event (or ``definition``, a variant of its file) stored, its Top division closed with seeds
    1-12 on the qualifying places."""
    event_id = make_event(uow, definition, slug=slug)
    event = uow.events.get_or_raise(Event, event_id)
    event.status = EventStatus.RUNNING.value
    uow.session.add(event)
    top = stage_id_of(uow, event_id, "top")
    teams = {t.seed: t for t in uow.teams.teams_of_event(event_id)}
    place_team: dict[str, str] = {}
    for letter, seeds in TOP_PLACES.items():
        pool = uow.rounds.insert(Pool(stage_id=top, letter=letter, status=PoolStatus.PUBLISHED.value))
        for rank, seed in enumerate(seeds, start=1):
            team = teams[seed]
            place_team[f"{letter}{rank}"] = team.name
            uow.rounds.insert(
                Standing(
                    stage_id=top, pool_id=pool.id, team_id=team.id or 0, rank=rank, provisional=not close_top
                )
            )
    return PlayoffSetup(
        event_id=event_id,
        slug=event.slug,
        top_stage_id=top,
        playoff_stage_id=stage_id_of(uow, event_id, "playoff"),
        team_ids={t.name: t.id or 0 for t in teams.values()},
        place_team=place_team,
    )


def playoff_with_bracket(
    factory: UnitOfWorkFactory, *, slug: str | None = None, definition: str = EVENT_2020
) -> PlayoffSetup:
    """``playoff_event``, then its bracket built from the closed Top standings."""
    with factory() as uow:
        setup = playoff_event(uow, slug=slug, definition=definition)
    with factory() as uow:
        build_bracket(uow, stage_id=setup.playoff_stage_id, actor="arbiter")
    return setup


def duel(uow: UnitOfWork, setup: PlayoffSetup, key: str) -> Duel:
    found = uow.playoff.duel_by_key(setup.playoff_stage_id, key)
    assert found is not None, f"no duel {key}"
    return found


def boards_of_stage(uow: UnitOfWork, stage_id: int) -> list[Board]:
    """Every board of every match of every duel of a knockout stage."""
    return [
        b
        for ms in uow.playoff.matches_of_duels(d.id for d in uow.playoff.duels_of_stage(stage_id)).values()
        for bs in uow.boards.boards_of_matches(m.id for m in ms).values()
        for b in bs
    ]


def duel_match(uow: UnitOfWork, setup: PlayoffSetup, key: str, leg: int) -> Match:
    d = duel(uow, setup, key)
    matches = uow.playoff.matches_of_duels([d.id])[d.id or 0]
    found = next((m for m in matches if m.leg == leg), None)
    assert found is not None, f"duel {key} has no match {leg}"
    return found


def play(uow: UnitOfWork, match: Match, boards: str, *, actor: str = "arbiter") -> None:
    """Enter a duel match's results board by board: W/D/L from the DUEL's first team's side.

    Goes through the results service (versioned entry), then moves the bracket on.
    """
    duel_row = uow.playoff.get_or_raise(Duel, match.duel_id or 0)
    lineups.apply_lineups(uow, round_id=match.round_id, actor=actor)  # what the deadline does
    duel_first_is_match_first = match.first_team_id == duel_row.first_team_id
    for board in uow.boards.boards_of_matches([match.id])[match.id or 0]:
        outcome = boards[board.board_no - 1]
        first_white = (board.board_no % 2 == 1) == duel_first_is_match_first
        if outcome == "D":
            code = "½-½"
        elif (outcome == "W") == first_white:
            code = "1-0"
        else:
            code = "0-1"
        if board.result != code:
            results.record_result(
                uow, board_id=board.id or 0, result=code, expected_version=board.version, actor=actor
            )
    advance_after_match(uow, match_id=match.id or 0, actor=actor)


SEED_A = bytes(range(32))
SEED_B = bytes(range(32, 64))


def play_duel(factory: UnitOfWorkFactory, setup: PlayoffSetup, key: str, m1: str, m2: str) -> None:
    """Both matches of duel ``key``, each in its own unit of work (W/D/L as in ``play``)."""
    for leg, boards in ((1, m1), (2, m2)):
        with factory() as uow:
            play(uow, duel_match(uow, setup, key, leg), boards)


def draw_category(factory: UnitOfWorkFactory, setup: PlayoffSetup, key: str) -> tuple[int, str]:
    """Commit (SEED_A) and draw the Armageddon category lot of level duel ``key``: (duel id, category)."""
    with factory() as uow:
        duel_id = duel(uow, setup, key).id or 0
        commit_armageddon_lot(uow, duel_id=duel_id, which="category", actor="arbiter", seed=SEED_A)
    with factory() as uow:
        category = reveal_armageddon_lot(uow, duel_id=duel_id, which="category", actor="arbiter")
    return duel_id, category


def eligible_accounts(uow: UnitOfWork, setup: PlayoffSetup, key: str, team: str) -> list[str]:
    """Accounts a team's captain may nominate for duel ``key``'s drawn category."""
    from orchestrator.adapters.tables import Role
    from orchestrator.services.accounts.users import AuthUser

    staff = AuthUser(id=0, username="arbiter", role=Role.ARBITER, team_id=None, session_generation=1)
    form = nomination_form(
        uow, duel_id=duel(uow, setup, key).id or 0, team_id=setup.team_ids[team], user=staff
    )
    return [account for account, _label in form.options]
