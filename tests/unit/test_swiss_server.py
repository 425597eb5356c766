"""A Swiss stage run by the server (orchestrator/services/swiss, docs/swiss.md "The server"): started,
paired round by round as drafts, published, played; every round equals the engine's pairing of the same
stage kept in the domain (tests/support/swiss.py)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import select

from orchestrator.adapters.gacrux_pairing import pair_trf
from orchestrator.adapters.tables import (
    AuditLog,
    Board,
    Lot,
    PoolEntry,
    Round,
    RoundStatus,
    Stage,
    SwissRoundTeam,
)
from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.domain.swiss import initial_ranking
from orchestrator.errors import Conflict
from orchestrator.services.results import lot_steps
from orchestrator.services.setup import stage_start
from orchestrator.services.swiss import rounds as swiss_rounds
from orchestrator.services.swiss.exports import pool_trf
from orchestrator.services.swiss.state import swiss_state_of
from tests.support.factories import make_event, stage_id_of
from tests.support.swiss import (
    ACTOR,
    SWISS_EVENT,
    Mirror,
    domain_start,
    engine_pairing,
    matches_of,
    pair_and_publish,
    pair_publish_play,
    play_round,
    running_swiss,
    view_pairing,
)


def _rows(uow: UnitOfWork, model: Any) -> list[Any]:
    return list(uow.session.exec(select(model)).all())


def test_starting_a_swiss_stage_numbers_the_teams_by_initial_ranking_and_leaves_rounds_unpaired(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        stage_id = running_swiss(uow)
    with uow_factory() as uow:
        stage = uow.events.get_or_raise(Stage, stage_id)
        pools = uow.rounds.pools_in_letter_order(stage_id)
        entries = uow.rounds.entries_of_pool(pools[0].id or 0)
        teams = uow.teams.teams_by_id(e.team_id for e in entries)
        rounds = uow.rounds.rounds_of_stage(stage_id)
        assert stage.kind == "swiss" and stage.status == "running"
        assert len(pools) == 1 and pools[0].letter == ""
        assert [teams[e.team_id].name for e in entries] == [
            t.name for t in initial_ranking(domain_start().teams)
        ]
        assert [e.pairing_number for e in entries] == list(range(1, 8))
        assert [r.status for r in rounds] == [RoundStatus.UNPAIRED.value] * 5
        assert uow.rounds.matches_of_stage(stage_id) == []


def test_the_stored_stage_gives_the_engine_each_teams_name_and_every_rostered_players_rating(
    uow_factory: UnitOfWorkFactory,
) -> None:
    """Read for the stage's teams only (``ratings_by_team``), not the whole event's field."""
    with uow_factory() as uow:
        stage_id = running_swiss(uow)
    with uow_factory() as uow:
        teams = swiss_state_of(uow, stage_id).state.teams
    expected = initial_ranking(domain_start().teams)
    assert [(t.name, sorted(t.ratings)) for t in teams] == [(t.name, sorted(t.ratings)) for t in expected]
    assert all(len(t.ratings) > 0 for t in teams)


def test_every_round_the_server_pairs_is_the_engines_pairing_of_the_same_stage(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        stage_id = running_swiss(uow)
    mirror = Mirror()
    for round_no in (1, 2, 3):
        with uow_factory() as uow:
            draft = swiss_rounds.pair_next_round(uow, stage_id=stage_id, actor=ACTOR)
            assert draft.status == RoundStatus.DRAFT.value and draft.number == round_no
            assert matches_of(uow, draft.round_id) == []  # a draft is not public: no match yet
        assert view_pairing(draft) == engine_pairing(mirror.state, round_no)
        assert draft.bye is not None  # seven teams: one bye a round
        with uow_factory() as uow:
            published = swiss_rounds.publish_round_pairing(uow, round_id=draft.round_id, actor=ACTOR)
        assert view_pairing(published) == view_pairing(draft)
        with uow_factory() as uow:
            rnd = uow.rounds.get_or_raise(Round, draft.round_id)
            assert rnd.status == RoundStatus.SCHEDULED.value
            matches = matches_of(uow, draft.round_id)
            boards = uow.boards.boards_by_match(m.id for m in matches)
            first = matches[0]
            main = uow.teams.main_boards_by_team([first.first_team_id, first.second_team_id])
            white_on_board_1 = boards[first.id or 0][0].white_player_id
            assert white_on_board_1 == main[first.first_team_id][1]  # first-named White on board 1
            assert boards[first.id or 0][1].white_player_id == main[first.second_team_id][2]
        play_round(uow_factory, draft.round_id)
        mirror.record(round_no, published)
        with uow_factory() as uow:
            assert swiss_state_of(uow, stage_id).state.matches == mirror.state.matches


def test_a_round_is_refused_while_an_earlier_board_has_no_result_naming_the_boards(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        stage_id = running_swiss(uow)
    published = pair_and_publish(uow_factory, stage_id)
    play_round(uow_factory, published.round_id, leave=[(1, 3), (2, 4)])
    first, second = published.pairings[0], published.pairings[1]
    with uow_factory() as uow, pytest.raises(Conflict) as refused:
        swiss_rounds.pair_next_round(uow, stage_id=stage_id, actor=ACTOR)
    assert f"round 1, {first.first} – {first.second} board 3" in refused.value.message
    assert f"round 1, {second.first} – {second.second} board 4" in refused.value.message
    with uow_factory() as uow:
        draft2 = swiss_rounds.pair_next_round(
            uow, stage_id=stage_id, actor=ACTOR, count_unfinished_as_draws=True
        )
    assert draft2.number == 2 and draft2.unfinished_as_draws
    with uow_factory() as uow:
        audit = [a for a in _rows(uow, AuditLog) if a.action == "swiss.pair"][-1]
        assert audit.new is not None and len(audit.new["unfinished_counted_as_draws"]) == 2


def test_pairing_again_replaces_a_published_round_where_nothing_started(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        stage_id = running_swiss(uow)
    draft = pair_and_publish(uow_factory, stage_id)
    with uow_factory() as uow:
        again = swiss_rounds.repair_round(uow, round_id=draft.round_id, actor=ACTOR)
    assert again.status == RoundStatus.DRAFT.value and view_pairing(again) == view_pairing(draft)
    with uow_factory() as uow:
        assert matches_of(uow, draft.round_id) == [] and _rows(uow, SwissRoundTeam) == []
        assert _rows(uow, Board) == []
    with uow_factory() as uow:
        swiss_rounds.publish_round_pairing(uow, round_id=draft.round_id, actor=ACTOR)
    play_round(uow_factory, draft.round_id, leave=[(1, 1)])
    with uow_factory() as uow, pytest.raises(Conflict, match="it has started"):
        swiss_rounds.repair_round(uow, round_id=draft.round_id, actor=ACTOR)


def test_an_override_swaps_teams_with_a_reason_and_refuses_a_rematch_naming_the_teams(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        stage_id = running_swiss(uow)
    played = pair_publish_play(uow_factory, stage_id).pairings[0]
    with uow_factory() as uow:
        draft2 = swiss_rounds.pair_next_round(uow, stage_id=stage_id, actor=ACTOR)
    with uow_factory() as uow, pytest.raises(Conflict) as refused:
        swiss_rounds.override_pairing(
            uow,
            round_id=draft2.round_id,
            board=1,
            first_id=played.first_id,
            second_id=played.second_id,
            reason="travel",
            actor=ACTOR,
        )
    assert played.first in refused.value.message and played.second in refused.value.message
    board1 = draft2.pairings[0]
    with uow_factory() as uow:
        swapped = swiss_rounds.override_pairing(
            uow,
            round_id=draft2.round_id,
            board=1,
            first_id=board1.second_id,
            second_id=board1.first_id,
            reason="colour correction by the Chief Arbiter",
            actor=ACTOR,
        )
    assert (swapped.pairings[0].first, swapped.pairings[0].second) == (board1.second, board1.first)
    assert swapped.pairings[1:] == draft2.pairings[1:]
    assert swapped.overrides[0]["reason"] == "colour correction by the Chief Arbiter"
    with uow_factory() as uow:
        audit = [a for a in _rows(uow, AuditLog) if a.action == "swiss.override"]
        assert len(audit) == 1 and audit[0].reason == "colour correction by the Chief Arbiter"
        assert _rows(uow, PoolEntry)  # nothing else changed


def test_the_pool_trf_of_a_swiss_stage_is_the_file_the_engine_pairs_the_next_draft_from(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        stage_id = running_swiss(uow)
    pair_publish_play(uow_factory, stage_id)
    with uow_factory() as uow:
        pool_id = uow.rounds.pools_in_letter_order(stage_id)[0].id or 0
        trf = pool_trf(uow, pool_id=pool_id)
        draft = swiss_rounds.pair_next_round(uow, stage_id=stage_id, actor=ACTOR)
    assert "192 FIDE_TEAM_TYPEA_MP_GP" in trf
    found = pair_trf(trf)
    by_number = found.names
    pairs = [(by_number[a], by_number[b]) for a, b in found.pairs if b != 0]
    assert found.round == 2 and pairs == view_pairing(draft)[0]


def test_the_initial_colour_drawn_at_the_start_is_the_one_the_engine_pairs_with(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        stage_id = running_swiss(uow, initial_colour="B")
        draft = swiss_rounds.pair_next_round(uow, stage_id=stage_id, actor=ACTOR)
        assert swiss_state_of(uow, stage_id).state.initial_colour == "B"
    assert view_pairing(draft) == engine_pairing(domain_start("B"), 1)
    assert view_pairing(draft) != engine_pairing(domain_start("W"), 1)


def test_the_initial_colour_is_drawn_by_a_lot_committed_before_the_stage_starts(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        stage_id = stage_id_of(uow, make_event(uow, SWISS_EVENT), "open")
        refused = stage_start.start_stage(uow, stage_id=stage_id, actor=ACTOR)
    assert refused.refusal is not None and "Start the stage again" in refused.refusal.message
    with uow_factory() as uow:
        [lot] = _rows(uow, Lot)
        assert lot.purpose == "Open initial colour" and lot.seed_hex is None and lot.outcome is None
        assert uow.rounds.rounds_of_stage(stage_id) == []
        assert lot_steps.drawing_steps(uow, event_id=lot.event_id)[lot.purpose] == "drawn when Open starts"
        with pytest.raises(Conflict, match="cannot be drawn by hand"):
            lot_steps.draw_by_hand(uow, lot_id=lot.id or 0, actor=ACTOR)
        started = stage_start.start_stage(uow, stage_id=stage_id, actor=ACTOR)
    assert started.refusal is None and len(started.round_ids) == 5
    with uow_factory() as uow:
        [lot] = _rows(uow, Lot)
        assert lot.seed_hex is not None and lot.outcome in (["White"], ["Black"])
        colour = swiss_state_of(uow, stage_id).state.initial_colour
    assert colour == ("W" if lot.outcome == ["White"] else "B")


def test_an_override_of_a_published_unstarted_round_changes_its_matches_boards_and_bye(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        stage_id = running_swiss(uow)
    published = pair_and_publish(uow_factory, stage_id)
    board1, bye = published.pairings[0], published.bye
    assert bye is not None
    with uow_factory() as uow:
        bye_id = swiss_state_of(uow, stage_id).team_ids[bye]
        changed = swiss_rounds.override_pairing(
            uow,
            round_id=published.round_id,
            board=1,
            first_id=bye_id,
            second_id=board1.second_id,
            reason="the bye team arrived early",
            actor=ACTOR,
        )
    assert (changed.pairings[0].first, changed.pairings[0].second, changed.bye) == (
        bye,
        board1.second,
        board1.first,
    )
    assert changed.pairings[1:] == published.pairings[1:] and changed.status == RoundStatus.SCHEDULED.value
    with uow_factory() as uow:
        match = matches_of(uow, published.round_id)[0]
        boards = uow.boards.boards_by_match([match.id])[match.id or 0]
        main = uow.teams.main_boards_by_team([bye_id, board1.second_id])
        assert (match.first_team_id, boards[0].white_player_id) == (bye_id, main[bye_id][1])
        assert len(boards) == 4 and boards[1].white_player_id == main[board1.second_id][2]
        [row] = [r for r in _rows(uow, SwissRoundTeam) if r.role == "bye"]
        assert row.team_id == board1.first_id
    play_round(uow_factory, published.round_id, leave=[(2, 1)])
    with uow_factory() as uow, pytest.raises(Conflict, match="has started"):
        swiss_rounds.override_pairing(
            uow,
            round_id=published.round_id,
            board=1,
            first_id=board1.second_id,
            second_id=bye_id,
            reason="too late",
            actor=ACTOR,
        )
