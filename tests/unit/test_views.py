"""Spectator read models (services/read/) on a stored small event (SQLite), built with the setup
session's factories and results entered through the results service.

The seeded pool and ``play`` live in tests/support/pools.py: the integration and browser tests use them too.
"""

from __future__ import annotations

import pytest

from orchestrator.adapters.tables import Annulment, Event, EventStatus
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.errors import NotFound
from orchestrator.services.read import events, formatting, matches, stages, standings, teams
from tests.support.pools import DRAW_3_3, FIRST_WINS_6_0, SeededPool, play, seed_small_pool

SLUG = "small-test-cup"


@pytest.fixture
def seeded(uow_factory: UnitOfWorkFactory) -> SeededPool:
    return seed_small_pool(uow_factory)


def pool_view(uow_factory: UnitOfWorkFactory, seeded: SeededPool) -> standings.PoolView:
    with uow_factory() as uow:
        return standings.pool_view(uow, slug=seeded.slug, stage_key=seeded.stage_key, letter=seeded.letter)


def test_a_6_0_board_list_gives_the_first_named_team_all_six_points(
    uow_factory: UnitOfWorkFactory, seeded: SeededPool
) -> None:
    match_id = seeded.matches[min(seeded.matches)]
    play(uow_factory, match_id, FIRST_WINS_6_0)
    with uow_factory() as uow:
        view = matches.match_view(uow, slug=seeded.slug, match_id=match_id)
    assert (view.match.first_half, view.match.second_half) == (12, 0)
    assert view.match.score_text == "6–0"
    assert [b.first_colour for b in view.boards] == ["white", "black"] * 3
    assert all(b.first_score == "1" and b.second_score == "0" for b in view.boards)


def test_before_any_result_every_team_is_level_and_nothing_is_separated(
    uow_factory: UnitOfWorkFactory, seeded: SeededPool
) -> None:
    view = pool_view(uow_factory, seeded)
    assert [line.rank for line in view.standings] == [1, 1, 1, 1]
    assert all(line.mp == 0 for line in view.standings)
    assert [line.tied_with_previous for line in view.standings] == [False, True, True, True]
    assert view.provisional
    assert not any(line.qualifies for line in view.standings)  # no qualifying marks on an empty table


def test_standings_follow_the_results_and_name_the_separating_tiebreak(
    uow_factory: UnitOfWorkFactory, seeded: SeededPool
) -> None:
    # Round 1: first-named teams win 6-0 and draw 3-3; round 2: first-named teams win 6-0 twice.
    r1 = sorted(k for k in seeded.matches if k[0] == 1)
    r2 = sorted(k for k in seeded.matches if k[0] == 2)
    play(uow_factory, seeded.matches[r1[0]], FIRST_WINS_6_0)
    play(uow_factory, seeded.matches[r1[1]], DRAW_3_3)
    for key in r2:
        play(uow_factory, seeded.matches[key], FIRST_WINS_6_0)
    mp = {name: 0 for name in seeded.teams}
    gp = {name: 0 for name in seeded.teams}
    for (_, a, b), half in ((r1[0], (12, 0)), (r1[1], (6, 6)), (r2[0], (12, 0)), (r2[1], (12, 0))):
        gp[a] += half[0]
        gp[b] += half[1]
        mp[a] += 2 if half[0] > half[1] else 1 if half[0] == half[1] else 0
        mp[b] += 2 if half[1] > half[0] else 1 if half[0] == half[1] else 0
    view = pool_view(uow_factory, seeded)
    expected_order = sorted(seeded.teams, key=lambda n: (-mp[n], -gp[n], n))
    assert [line.qualifies for line in view.standings] == [line.rank <= 2 for line in view.standings]
    leaders = [n for n in expected_order if (mp[n], gp[n]) == (mp[expected_order[0]], gp[expected_order[0]])]
    # Teams level on MP and GP are ordered by the later tie-breaks, not by name.
    assert view.standings[0].team.name in leaders
    for line in view.standings:
        assert (line.mp, line.gp_half) == (mp[line.team.name], gp[line.team.name])
        codes = [cell.code for cell in line.values]
        assert codes == [col.code for col in view.chain]
        assert "LOT" not in codes
    # every row below the first either ties with the one above or names the criterion that split them
    for above, line in zip(view.standings, view.standings[1:], strict=False):
        if line.rank == above.rank:
            assert line.tied_with_previous and line.separated_by is None
        else:
            assert line.separated_by in [col.code for col in view.chain] + ["LOT"]
            split = line.separated_by
            if split in ("MP", "GP"):
                value = {"MP": (line.mp, above.mp), "GP": (line.gp_half, above.gp_half)}[split]
                assert value[0] < value[1]


def test_the_cross_table_mirrors_each_finished_match_and_leaves_open_ones_empty(
    uow_factory: UnitOfWorkFactory, seeded: SeededPool
) -> None:
    key = sorted(k for k in seeded.matches if k[0] == 1)[0]
    play(uow_factory, seeded.matches[key], FIRST_WINS_6_0)
    view = pool_view(uow_factory, seeded)
    order = [row.team.name for row in view.crosstable]
    _, first, second = key
    row_a = view.crosstable[order.index(first)]
    row_b = view.crosstable[order.index(second)]
    cell_ab = row_a.cells[order.index(second)]
    cell_ba = row_b.cells[order.index(first)]
    assert cell_ab is not None and cell_ba is not None
    assert (cell_ab.text, cell_ab.outcome, cell_ba.text, cell_ba.outcome) == ("6", "win", "0", "loss")
    assert row_a.cells[order.index(first)] is None  # the diagonal
    unplayed = [c for row in view.crosstable for c in row.cells if c is not None and c.own_half is None]
    assert len(unplayed) == 4 * 3 - 2
    assert (row_a.mp, row_a.gp_text) == (2, "6")


def test_rounds_list_every_pairing_and_a_round_with_all_results_is_finished(
    uow_factory: UnitOfWorkFactory, seeded: SeededPool
) -> None:
    for key in [k for k in seeded.matches if k[0] == 1]:
        play(uow_factory, seeded.matches[key], DRAW_3_3)
    view = pool_view(uow_factory, seeded)
    assert [r.number for r in view.rounds] == [1, 2, 3]
    assert all(len(r.matches) == 2 for r in view.rounds)
    assert view.rounds[0].status == "finished"
    assert view.rounds[1].status != "finished"
    assert [m.score_text for m in view.rounds[0].matches] == ["3–3", "3–3"]
    assert f"pool:{seeded.pool_id}" in view.topics
    assert {f"match:{m}" for m in seeded.matches.values()} <= set(view.topics)


def test_the_team_page_lists_each_players_games_and_performance(
    uow_factory: UnitOfWorkFactory, seeded: SeededPool
) -> None:
    key = sorted(k for k in seeded.matches if k[0] == 1)[0]
    play(uow_factory, seeded.matches[key], FIRST_WINS_6_0)
    _, first, second = key
    with uow_factory() as uow:
        view = teams.team_view(uow, slug=seeded.slug, team_id=seeded.teams[first])
        opponents = {
            p.id: p.rating for p in uow.read.players_of_teams([seeded.teams[second]]) if p.main_board
        }
    board_one = next(p for p in view.players if p.main_board == 1)
    assert [g.round_number for g in board_one.games] == [1, 2, 3]  # seated by the default lineups
    assert [g.text for g in board_one.games] == ["1", "*", "*"]
    game = board_one.games[0]
    assert (game.colour, game.text, game.played, game.round_number) == ("white", "1", True, 1)
    assert game.opponent is not None and game.opponent.id in opponents
    assert board_one.performance is not None
    assert board_one.performance.rating == opponents[game.opponent.id] + 800
    reserves = [p for p in view.players if p.main_board is None]
    assert all(p.games == () and p.performance is None for p in reserves)
    assert view.matches[0].score_text == "6–0" and view.matches[0].outcome == "win"


def test_a_forfeited_board_counts_points_but_not_for_the_performance(
    uow_factory: UnitOfWorkFactory, seeded: SeededPool
) -> None:
    key = sorted(k for k in seeded.matches if k[0] == 1)[0]
    play(uow_factory, seeded.matches[key], ("+/-", "0-1", "1-0", "0-1", "1-0", "0-1"))
    _, first, _ = key
    with uow_factory() as uow:
        view = teams.team_view(uow, slug=seeded.slug, team_id=seeded.teams[first])
    board_one = next(p for p in view.players if p.main_board == 1)
    assert board_one.half_points == 2 and board_one.games[0].text == "+"
    assert board_one.performance is None


def test_the_event_timeline_lists_stages_in_order_with_their_dates(
    uow_factory: UnitOfWorkFactory, seeded: SeededPool
) -> None:
    with uow_factory() as uow:
        view = events.event_view(uow, slug=seeded.slug)
    assert [s.key for s in view.stages] == ["group", "final"]
    group, final = view.stages
    assert group.has_page and group.pool_count == 1 and group.team_count == 4 and group.rounds == 3
    assert group.advance == 2 and group.next_stage == "Final"
    assert not final.has_page  # its pools are not published yet: no link to an empty page
    assert final.first_round_at is not None and final.first_round_at.tzinfo is not None
    assert view.current_stage == "group"


def test_draft_events_and_unpublished_pools_stay_hidden(
    uow_factory: UnitOfWorkFactory, seeded: SeededPool
) -> None:
    with uow_factory() as uow:
        uow.events.insert(Event(slug="secret", name="Not yet", status=EventStatus.DRAFT.value))
    with uow_factory() as uow:
        assert [item.event.slug for item in events.list_events(uow)] == [seeded.slug]
        with pytest.raises(NotFound):
            events.event_view(uow, slug="secret")
        with pytest.raises(NotFound):
            stages.stage_view(uow, slug=seeded.slug, stage_key="nope")
        final = stages.stage_view(uow, slug=seeded.slug, stage_key="final")
        assert final.pools == () and not final.pools_published


def test_a_match_of_another_event_is_not_found_under_this_one(
    uow_factory: UnitOfWorkFactory, seeded: SeededPool
) -> None:
    other = seed_small_pool(uow_factory, slug="other-cup", pairing_seed=bytes(range(1, 33)))
    with uow_factory() as uow, pytest.raises(NotFound):
        matches.match_view(uow, slug=seeded.slug, match_id=next(iter(other.matches.values())))


def set_first_board(uow_factory: UnitOfWorkFactory, seeded: SeededPool, **values: str) -> int:
    """Store ``values`` on the first board of the pool's first match; return that match's id."""
    match_id = next(iter(seeded.matches.values()))
    with uow_factory() as uow:
        board = uow.read.boards_of_matches([match_id])[0]
        for name, value in values.items():
            setattr(board, name, value)
        uow.session.add(board)
    return match_id


def test_a_board_with_a_game_link_and_pgn_shows_both(
    uow_factory: UnitOfWorkFactory, seeded: SeededPool
) -> None:
    match_id = set_first_board(
        uow_factory, seeded, game_url="https://lichess.org/abcd1234", pgn='[Event "x"]\n\n1. e4 *'
    )
    with uow_factory() as uow:
        view = matches.match_view(uow, slug=seeded.slug, match_id=match_id)
        pgn = matches.board_pgn(uow, slug=seeded.slug, match_id=match_id, board_no=1)
        with pytest.raises(NotFound):
            matches.board_pgn(uow, slug=seeded.slug, match_id=match_id, board_no=2)
    assert view.boards[0].game_url == "https://lichess.org/abcd1234" and view.boards[0].has_pgn
    assert pgn.startswith('[Event "x"]')
    assert not view.boards[1].has_pgn


def test_a_game_link_that_is_not_http_is_not_shown(
    uow_factory: UnitOfWorkFactory, seeded: SeededPool
) -> None:
    match_id = set_first_board(uow_factory, seeded, game_url="javascript:alert(1)")
    with uow_factory() as uow:
        view = matches.match_view(uow, slug=seeded.slug, match_id=match_id)
    assert view.boards[0].game_url is None


def test_tiebreak_values_print_exactly() -> None:
    from fractions import Fraction

    assert formatting.format_value(Fraction(29, 2)) == "14.5"
    assert formatting.format_value(Fraction(16)) == "16"
    assert formatting.format_value(Fraction(647, 4)) == "161.75"
    assert (
        formatting.format_score(9) == "4½"
        and formatting.format_score(1) == "½"
        and formatting.format_score(6) == "3"
    )
    assert formatting.tiebreak_label("EMGSB/C1")[0] == "SB-MG C1"


def test_a_fair_play_annulment_turns_the_players_wins_into_losses_on_every_page(
    uow_factory: UnitOfWorkFactory, seeded: SeededPool
) -> None:
    key = sorted(k for k in seeded.matches if k[0] == 1)[0]
    match_id = seeded.matches[key]
    play(uow_factory, match_id, FIRST_WINS_6_0)
    _, first, _ = key
    with uow_factory() as uow:
        board_one = uow.read.boards_of_matches([match_id])[0]  # the first team's board-1 player had White
        uow.teams.insert(
            Annulment(player_id=board_one.white_player_id or 0, reason="engine use", annulled_by="chief")
        )
    with uow_factory() as uow:
        match = matches.match_view(uow, slug=seeded.slug, match_id=match_id)
        team = teams.team_view(uow, slug=seeded.slug, team_id=seeded.teams[first])
    assert match.match.score_text == "5–1"
    assert match.boards[0].annulled and match.boards[0].played_result == "1-0"
    assert (match.boards[0].first_score, match.boards[0].second_score) == ("−", "+")
    player = next(p for p in team.players if p.main_board == 1)
    assert player.games[0].text == "−" and player.performance is None
