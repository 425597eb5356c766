"""Lineups: eligible players per board, every invalid choice listed, the deadline, the default lineup,
and short-handed teams forfeiting their empty boards when the lineups are applied."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

import pytest

from orchestrator.adapters.repo_boards import RoundBoard
from orchestrator.adapters.tables import Match, Player, Role, Round
from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.db import utcnow
from orchestrator.errors import Conflict, StaleEdit, ValidationFailed
from orchestrator.services.accounts.users import AuthUser
from orchestrator.services.teams import lineups
from tests.support.playoff import PlayoffSetup, duel_match, playoff_with_bracket


@pytest.fixture
def setup(uow_factory: UnitOfWorkFactory) -> PlayoffSetup:
    built = playoff_with_bracket(uow_factory)
    with uow_factory() as uow:
        for rnd in uow.rounds.rounds_of_stage(built.playoff_stage_id):
            rnd.scheduled_at = utcnow() + timedelta(hours=2)  # the 2020 dates are long past
            uow.session.add(rnd)
    return built


def captain_of(setup: PlayoffSetup, team: str) -> AuthUser:
    return AuthUser(
        id=99, username=f"cap-{team}", role=Role.CAPTAIN, team_id=setup.team_ids[team], session_generation=1
    )


def roster(uow: UnitOfWork, setup: PlayoffSetup, team: str) -> list[Player]:
    return list(uow.teams.players_of_team(setup.team_ids[team]))


def submit(
    uow: UnitOfWork, setup: PlayoffSetup, match: Match, team: str, boards: Sequence[int | None]
) -> None:
    """The team's captain submits ``boards`` for ``match``."""
    lineups.submit_lineup(
        uow, match_id=match.id or 0, team_id=setup.team_ids[team], boards=boards, user=captain_of(setup, team)
    )


def test_each_board_lists_only_the_players_eligible_for_its_category(
    uow_factory: UnitOfWorkFactory, setup: PlayoffSetup
) -> None:
    team = setup.place_team["A2"]
    with uow_factory() as uow:
        match = duel_match(uow, setup, "I", 1)
        form = lineups.lineup_form(
            uow, match_id=match.id or 0, team_id=setup.team_ids[team], user=captain_of(setup, team)
        )
        players = {p.id: p for p in roster(uow, setup, team)}
    assert [b.category for b in form.boards] == ["open", "open", "women", "women", "junior", "girl"]
    for board in form.boards:
        for option in board.options:
            p = players[option.id]
            if board.category in ("women", "girl"):
                assert p.sex == "f"
            if board.category in ("junior", "girl"):
                assert p.birth_year >= 2000
    assert len(form.boards[0].options) == len(players)  # open boards take anyone
    # Without a lineup the main players are shown on their boards.
    assert [b.selected for b in form.boards] == [
        next(p.id for p in players.values() if p.main_board == n) for n in range(1, 7)
    ]
    assert form.open and form.submitted_at is None


def test_every_invalid_choice_is_listed_at_once(uow_factory: UnitOfWorkFactory, setup: PlayoffSetup) -> None:
    team, other = setup.place_team["A2"], setup.place_team["B3"]
    with uow_factory() as uow:
        match = duel_match(uow, setup, "I", 1)
        mine = {p.main_board: p for p in roster(uow, setup, team) if p.main_board}
        stranger = roster(uow, setup, other)[0]
        boards = [
            mine[1].id,
            mine[1].id,  # twice
            mine[1].id if mine[1].sex == "m" else mine[2].id,  # a man on a women board (board 1 or 2 is male)
            stranger.id,  # another team's player
            mine[5].id,
            mine[6].id,
        ]
        with pytest.raises(ValidationFailed) as caught:
            submit(uow, setup, match, team, boards)
    problems = caught.value.problems
    assert any("Board 2" in p and "at most one board" in p for p in problems)
    assert any("Board 3" in p and "women boards are for female players" in p for p in problems)
    assert any("Board 4" in p and "not on the roster" in p for p in problems)
    assert len(problems) >= 3


def test_a_lineup_is_refused_after_the_deadline_but_staff_see_who_is_missing(
    uow_factory: UnitOfWorkFactory, setup: PlayoffSetup
) -> None:
    team = setup.place_team["A2"]
    with uow_factory() as uow:
        match = duel_match(uow, setup, "I", 1)
        rnd = uow.rounds.get_or_raise(Round, match.round_id)
        lineup = lineups.default_lineup(roster(uow, setup, team), 6)
        submit(uow, setup, match, team, lineup)
        missing = lineups.missing_lineups(uow, round_id=rnd.id or 0)
        assert team not in [m.team for m in missing]
        assert setup.place_team["B3"] in [m.team for m in missing]
        rnd.lineup_deadline_at = utcnow() - timedelta(minutes=1)
        uow.session.add(rnd)
    with uow_factory() as uow, pytest.raises(Conflict, match="closed"):
        submit(uow, setup, match, team, lineup)


def test_applying_lineups_puts_the_players_on_the_boards_and_an_empty_board_is_a_forfeit_loss(
    uow_factory: UnitOfWorkFactory, setup: PlayoffSetup
) -> None:
    first, second = setup.place_team["A2"], setup.place_team["B3"]
    with uow_factory() as uow:
        match = duel_match(uow, setup, "I", 1)
        mine = lineups.default_lineup(roster(uow, setup, first), 6)
        mine[2] = None  # short-handed on board 3 (the first team has White on odd boards)
        mine[3] = None  # and on board 4 (Black)
        submit(uow, setup, match, first, mine)
    with uow_factory() as uow:
        assert lineups.apply_lineups(uow, round_id=match.round_id, actor="system") > 0
    with uow_factory() as uow:
        boards = {b.board_no: b for b in uow.boards.boards_of_matches([match.id])[match.id or 0]}
        theirs = lineups.default_lineup(roster(uow, setup, second), 6)
    assert boards[1].white_player_id == mine[0] and boards[1].black_player_id == theirs[0]
    assert boards[2].white_player_id == theirs[1] and boards[2].black_player_id == mine[1]
    # Board 3: the first team (White) is empty, so Black wins by forfeit; board 4 the other way round.
    assert boards[3].result == "-/+" and boards[4].result == "+/-"
    assert boards[1].result == "*"
    # Applying again changes nothing.
    with uow_factory() as uow:
        assert lineups.apply_lineups(uow, round_id=match.round_id, actor="system") == 0


def test_a_pass_that_changes_no_board_writes_no_audit_entry(
    uow_factory: UnitOfWorkFactory, setup: PlayoffSetup
) -> None:
    """Every scheduler pass applies the due lineups: one that changes nothing leaves no trace in the
    audit log (docs/rules.md §6 records changes, not checks)."""
    first = setup.place_team["A2"]
    with uow_factory() as uow:
        match = duel_match(uow, setup, "I", 1)
        submit(uow, setup, match, first, lineups.default_lineup(roster(uow, setup, first), 6))
    with uow_factory() as uow:
        assert lineups.apply_lineups(uow, round_id=match.round_id, actor="system") > 0

    def entries() -> list[object]:
        with uow_factory() as uow:
            return [e for e in uow.audit.latest(500) if e.action == "lineup.apply"]

    before = entries()
    assert len(before) == 1
    for _ in range(3):
        with uow_factory() as uow:
            assert lineups.apply_lineups(uow, round_id=match.round_id, actor="system") == 0
    assert len(entries()) == 1


def test_lineups_on_boards_changed_since_they_were_read_are_refused_whole_naming_who_changed_them(
    uow_factory: UnitOfWorkFactory, setup: PlayoffSetup
) -> None:
    first = setup.place_team["A2"]
    with uow_factory() as uow:
        match = duel_match(uow, setup, "I", 1)
        mine = lineups.default_lineup(roster(uow, setup, first), 6)
        mine[0], mine[1] = mine[1], mine[0]  # boards 1 and 2 change
        submit(uow, setup, match, first, mine)
    with uow_factory() as uow:  # what pairing read ...
        read = uow.boards.boards_of_round(match.round_id)
    with uow_factory() as uow:  # ... before an arbiter changed board 2
        board_2 = next(r.board for r in read if r.match_id == match.id and r.board.board_no == 2)
        uow.boards.update_versioned(
            board_2.id, expected_version=board_2.version, values={"result": "1-0"}, actor="arbiter-ann"
        )
    by_match: dict[int, list[RoundBoard]] = {}
    for row in read:
        by_match.setdefault(row.match_id, []).append(row.board)
    with pytest.raises(StaleEdit) as refused, uow_factory() as uow:
        lineups.apply_lineups(uow, round_id=match.round_id, actor="system", round_boards=by_match)
    assert [(c.entity_id, c.changed_by, c.value) for c in refused.value.current] == [
        (board_2.id, "arbiter-ann", "1-0")
    ]
    with uow_factory() as uow:  # nothing was written, board 1 included
        boards = {b.board_no: b for b in uow.boards.boards_of_matches([match.id])[match.id or 0]}
    assert boards[1].white_player_id != mine[0] and boards[1].updated_by != lineups.LINEUP_ACTOR


def test_a_team_that_cannot_field_six_plays_its_mains_and_forfeits_the_rest_by_default(
    uow_factory: UnitOfWorkFactory, setup: PlayoffSetup
) -> None:
    second = setup.place_team["B3"]
    with uow_factory() as uow:
        match = duel_match(uow, setup, "I", 1)
        for p in roster(uow, setup, second):
            if p.main_board in (4, 5, 6):
                uow.session.delete(p)
    with uow_factory() as uow:
        lineups.apply_lineups(uow, round_id=match.round_id, actor="system")
    with uow_factory() as uow:
        results = [b.result for b in uow.boards.boards_of_matches([match.id])[match.id or 0]]
    # Boards 4, 5, 6 empty for the second team (White on even boards in match 1, Black on odd ones).
    assert results == ["*", "*", "*", "-/+", "+/-", "-/+"]


def test_a_captain_cannot_open_another_teams_lineup(
    uow_factory: UnitOfWorkFactory, setup: PlayoffSetup
) -> None:
    with uow_factory() as uow:
        match = duel_match(uow, setup, "I", 1)
        stranger = captain_of(setup, setup.place_team["A1"])
        with pytest.raises(Exception, match="own team"):
            lineups.lineup_form(uow, match_id=match.id or 0, team_id=match.first_team_id, user=stranger)
