"""A team that withdrew from a pool stage qualifies for no later stage (docs/rules.md §6, "Withdrawals"): it
keeps its rank, loses the "Q" mark, and the qualifying places (and a bracket's pool places) pass to the
next-placed teams still in; on SQLite, through the real services."""

from __future__ import annotations

from collections.abc import Sequence

from orchestrator.adapters.tables import Match, Team
from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.db import utcnow
from orchestrator.domain.event import places_still_in
from orchestrator.services.playoff.commands import build_bracket
from orchestrator.services.read import standings as read_standings
from orchestrator.services.results import late_changes, results, withdrawals
from orchestrator.services.results import standings as standings_service
from orchestrator.services.setup import pool_draft
from tests.support.factories import make_event, running_stage, stage_id_of
from tests.support.late_changes import LATER, NARROW_WIN, board_code, final_teams, names_of
from tests.support.playoff_standin import SMALL_PLAYOFF


def pool_matches(uow: UnitOfWork, stage_id: int, letter: str) -> list[tuple[int, Match]]:
    """The pool's matches with their round numbers."""
    numbers = {r.id: r.number for r in uow.rounds.rounds_of_stage(stage_id)}
    [pool] = [p for p in uow.rounds.pools_in_letter_order(stage_id) if p.letter == letter]
    return [(numbers[m.round_id], m) for m in uow.rounds.matches_of_stage(stage_id) if m.pool_id == pool.id]


def play(uow: UnitOfWork, match: Match, order: Sequence[str]) -> None:
    """The team earlier in ``order`` wins the match 3½–2½."""
    names = names_of(uow, [match.first_team_id, match.second_team_id])
    winner_is_first = order.index(names[match.first_team_id]) < order.index(names[match.second_team_id])
    for board in uow.boards.for_match(match.id or 0):
        code = board_code(board.board_no, winner_is_first, NARROW_WIN[board.board_no - 1])
        results.record_result(
            uow, board_id=board.id or 0, result=code, expected_version=board.version, actor="ann"
        )


def withdraw_before_the_last_round(uowf: UnitOfWorkFactory, stage_id: int, letter: str) -> list[str]:
    """The pool's first-seeded team wins its first two matches and withdraws before the last round; its
    last-round opponent wins every other match, the others follow their seeds. Returns the pool's order as
    the results give it: the opponent (unbeaten with its forfeit win), the withdrawn team (two wins), then
    the other two."""
    with uowf() as uow:
        matches = pool_matches(uow, stage_id, letter)
        last = max(number for number, _ in matches)
        teams = uow.teams.teams_by_id(t for _, m in matches for t in (m.first_team_id, m.second_team_id))
        team = min(teams.values(), key=lambda t: t.seed)
        team_id = team.id or 0  # read here: the rows a unit of work read are not used after it ends
        [opponent_id] = [
            t
            for number, m in matches
            if number == last and team.id in (m.first_team_id, m.second_team_id)
            for t in (m.first_team_id, m.second_team_id)
            if t != team.id
        ]
        rest = sorted((t for t in teams.values() if t.id not in (team.id, opponent_id)), key=lambda t: t.seed)
        order = [team.name, teams[opponent_id].name, *(t.name for t in rest)]
        for number, match in matches:
            if number < last:
                play(uow, match, order)
    with uowf() as uow:
        withdrawals.withdraw_from_pool_stage(
            uow, stage_id=stage_id, team_id=team_id, reason="travel ban", actor="ann"
        )
    with uowf() as uow:
        for number, match in pool_matches(uow, stage_id, letter):
            if number == last and match.forfeit == "":
                play(uow, match, order)
    return [order[1], order[0], *order[2:]]


def close(uowf: UnitOfWorkFactory, stage_id: int) -> None:
    with uowf() as uow:
        closed = standings_service.close_stage(uow, stage_id=stage_id, actor="boss", now=utcnow() + LATER)
    closed.raise_refusal()


def test_a_withdrawn_team_keeps_its_rank_without_the_q_mark_and_the_next_team_still_in_is_drafted(
    uowf: UnitOfWorkFactory,
) -> None:
    with uowf() as uow:
        event_id = make_event(uow)
        group = running_stage(uow, event_id=event_id)
    expected = withdraw_before_the_last_round(uowf, group, "A")
    close(uowf, group)
    withdrawn = expected[1]
    with uowf() as uow:
        view = read_standings.pool_view(uow, slug="small-test-cup", stage_key="group", letter="A")
        team = uow.teams.team_by_name(event_id, withdrawn)
    lines = [(line.team.name, line.rank, line.qualifies, line.withdrawn_in) for line in view.standings]
    # Ranked as its results give (2nd), marked withdrawn, no Q: the 1st and the 3rd qualify (advance 2).
    assert lines == [
        (expected[0], 1, True, None),
        (withdrawn, 2, False, 3),
        (expected[2], 3, True, None),
        (expected[3], 4, False, None),
    ]
    assert isinstance(team, Team) and team.withdrawn_at is not None  # withdrawn from the event too
    with uowf() as uow:
        final = stage_id_of(uow, event_id, "final")
        pool_draft.draft_pools(uow, stage_id=final, actor="boss")
    assert final_teams(uowf, final) == sorted([expected[0], expected[2]])
    with uowf() as uow:  # the late-change review reads the same qualifiers: nothing differs
        assert (
            late_changes.review_closed_stage(
                uow, stage_id=group, actor="boss", cause="correction", cause_text="check"
            )
            == []
        )


def test_a_bracket_slot_of_a_withdrawn_team_goes_to_the_best_placed_team_of_its_pool_still_in(
    uowf: UnitOfWorkFactory,
) -> None:
    with uowf() as uow:
        event_id = make_event(uow, SMALL_PLAYOFF)
        group = running_stage(uow, event_id=event_id, stage_key="group")
    pool_a = withdraw_before_the_last_round(uowf, group, "A")
    pool_b = withdraw_before_the_last_round(uowf, group, "B")
    close(uowf, group)
    with uowf() as uow:
        playoff = stage_id_of(uow, event_id, "playoff")
        build_bracket(uow, stage_id=playoff, actor="boss")
        duels = {key: uow.playoff.duel_by_key(playoff, key) for key in ("I", "II")}
        ids = [t for d in duels.values() if d for t in (d.first_team_id, d.second_team_id) if t]
        names = names_of(uow, ids)
        slots = {
            key: (names.get(d.first_team_id or 0), names.get(d.second_team_id or 0))
            for key, d in duels.items()
            if d is not None
        }
        pending = late_changes.review_closed_stage(
            uow, stage_id=group, actor="boss", cause="correction", cause_text="check"
        )
    # Group A 1st is pool A's 1st; Group A 2nd is its 3rd, the withdrawn 2nd being out (and pool B alike).
    assert slots == {"I": (pool_a[0], pool_b[2]), "II": (pool_b[0], pool_a[2])}
    assert pending == []


def test_places_among_the_teams_still_in_skip_the_withdrawn_and_keep_shared_places_shared() -> None:
    ranked = [("A", 1), ("B", 2), ("C", 2), ("D", 4), ("E", 5)]
    assert places_still_in(ranked, {"B"}) == {"A": 1, "C": 2, "D": 3, "E": 4}
    assert places_still_in(ranked, {"A"}) == {"B": 1, "C": 1, "D": 3, "E": 4}
    assert places_still_in(ranked, ()) == {"A": 1, "B": 2, "C": 2, "D": 4, "E": 5}
