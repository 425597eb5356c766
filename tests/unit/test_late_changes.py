"""A closed stage's standings changed after a later stage was built from them (docs/rules.md §6): the
late change is recorded with its consequence, and staff re-seed or keep the later stage, on SQLite."""

from __future__ import annotations

import pytest

from orchestrator.adapters.tables import Stage
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.db import utcnow
from orchestrator.errors import Conflict, ValidationFailed
from orchestrator.services.playoff.commands import build_bracket
from orchestrator.services.results import fairplay, late_changes, results
from orchestrator.services.results import standings as standings_service
from orchestrator.services.setup import draws, pool_draft, stage_start
from tests.support.factories import make_event, running_stage, stage_id_of
from tests.support.late_changes import (
    LATER,
    TwoStages,
    build_two_stages,
    correct_winner,
    final_teams,
    names_of,
    play_stage,
    the_match,
)
from tests.support.playoff_standin import SMALL_PLAYOFF


@pytest.fixture
def two_stages(uowf: UnitOfWorkFactory) -> TwoStages:
    return build_two_stages(uowf)


@pytest.fixture
def final_started(uowf: UnitOfWorkFactory, two_stages: TwoStages) -> None:
    """The Final's pools published and the stage started (rounds, matches, boards)."""
    with uowf() as uow:
        pool_draft.publish_pools(uow, stage_id=two_stages.final, actor="boss")
    with uowf() as uow:
        stage_start.start_stage(uow, stage_id=two_stages.final, actor="boss").raise_refusal()


def pending(uowf: UnitOfWorkFactory, stage_id: int) -> list[late_changes.LateChangeView]:
    with uowf() as uow:
        return [c for c in late_changes.late_changes(uow, stage_id=stage_id) if c.pending]


def denmark_beats_sweden_after_closing(
    uowf: UnitOfWorkFactory, two_stages: TwoStages
) -> late_changes.LateChangeView:
    """Sweden – Denmark corrected to a Denmark win once the Group is closed: the one pending late change."""
    with uowf() as uow:
        correct_winner(uow, the_match(uow, two_stages.group, "Sweden", "Denmark"), "Denmark")
    [change] = pending(uowf, two_stages.final)
    return change


def test_a_correction_after_closing_that_changes_the_qualifiers_records_who_would_now_qualify(
    uowf: UnitOfWorkFactory, two_stages: TwoStages
) -> None:
    assert final_teams(uowf, two_stages.final) == ["Norway", "Sweden"]
    change = denmark_beats_sweden_after_closing(uowf, two_stages)
    assert (change.source_stage_id, change.affected_stage_id) == (two_stages.group, two_stages.final)
    assert change.consequence.now_in == ("Denmark",) and change.consequence.now_out == ("Sweden",)
    assert change.cause == "correction" and {"Sweden", "Denmark"} <= set(change.cause_text.split())
    assert not change.affected_started and change.can_reseed
    words = " ".join(change.sentences())
    assert "Would now qualify: Denmark" in words and "Would no longer qualify: Sweden" in words
    assert "pool A of Final" in words and "Final has not started" in words
    assert final_teams(uowf, two_stages.final) == ["Norway", "Sweden"]  # nothing changed silently


def test_a_correction_that_leaves_the_qualifiers_alone_records_nothing(
    uowf: UnitOfWorkFactory, two_stages: TwoStages
) -> None:
    with uowf() as uow:
        correct_winner(uow, the_match(uow, two_stages.group, "Denmark", "Finland"), "Finland")
    with uowf() as uow:
        assert late_changes.late_changes(uow, event_id=two_stages.event_id) == []


def test_a_later_correction_that_restores_the_qualifiers_withdraws_the_pending_change(
    uowf: UnitOfWorkFactory, two_stages: TwoStages
) -> None:
    with uowf() as uow:
        match_id = the_match(uow, two_stages.group, "Sweden", "Denmark")
        correct_winner(uow, match_id, "Denmark")
    with uowf() as uow:
        correct_winner(uow, match_id, "Sweden", reason="the first correction was wrong")
    assert pending(uowf, two_stages.final) == []
    with uowf() as uow:
        [change] = late_changes.late_changes(uow, stage_id=two_stages.final)
    assert change.status == "withdrawn"


def test_a_fair_play_annulment_after_closing_records_the_late_change_and_flags_the_later_stage(
    uowf: UnitOfWorkFactory, two_stages: TwoStages
) -> None:
    with uowf() as uow:
        sweden = next(t for t in uow.teams.teams_of_event(two_stages.event_id) if t.name == "Sweden")
        player = next(
            p
            for p in uow.teams.players_of_event(two_stages.event_id)
            if p.team_id == sweden.id and p.main_board == 1
        )
        report = fairplay.annul_player(uow, player_id=player.id or 0, reason="engine use", actor="boss")
    assert report.flagged_stages == (two_stages.final,)
    [change] = pending(uowf, two_stages.final)
    assert change.cause == "annulment" and "engine use" in change.cause_text
    assert change.consequence.now_in == ("Denmark",) and change.consequence.now_out == ("Sweden",)


def test_reseeding_an_unstarted_stage_drafts_it_again_from_the_corrected_standings_and_is_audited(
    uowf: UnitOfWorkFactory, two_stages: TwoStages
) -> None:
    change = denmark_beats_sweden_after_closing(uowf, two_stages)
    with pytest.raises(ValidationFailed), uowf() as uow:
        late_changes.reseed_later_stage(uow, late_change_id=change.id, actor="boss", reason=" ")
    with uowf() as uow:
        ruled = late_changes.reseed_later_stage(
            uow, late_change_id=change.id, actor="boss", reason="Denmark qualified on the corrected result"
        )
    assert ruled.status == "reseeded" and ruled.ruled_by == "boss"
    assert final_teams(uowf, two_stages.final) == ["Denmark", "Norway"]
    with uowf() as uow:
        entries = uow.audit.entries(entity="late_change", entity_id=change.id)
    assert [e.action for e in entries] == ["late_change.reseed", "late_change.record"]
    assert entries[0].reason == "Denmark qualified on the corrected result"
    with pytest.raises(Conflict, match="already ruled"), uowf() as uow:
        late_changes.keep_later_stage(uow, late_change_id=change.id, actor="boss", reason="late")


@pytest.mark.usefixtures("final_started")
def test_reseeding_a_started_stage_without_games_publishes_it_again_and_its_new_lot_is_drawn_at_the_start(
    uowf: UnitOfWorkFactory, two_stages: TwoStages
) -> None:
    change = denmark_beats_sweden_after_closing(uowf, two_stages)
    with uowf() as uow:
        late_changes.reseed_later_stage(uow, late_change_id=change.id, actor="boss", reason="no game yet")
    assert final_teams(uowf, two_stages.final) == ["Denmark", "Norway"]
    with uowf() as uow:  # published again, its new pairing lot sealed: never committed and drawn in one step
        assert uow.events.get_or_raise(Stage, two_stages.final).status == "published"
        assert uow.rounds.matches_of_stage(two_stages.final) == []
        [sealed] = [lot for lot in uow.lots.lots_of(two_stages.event_id) if lot.seed_hex is None]
        assert sorted(sealed.candidates) == ["Denmark", "Norway"]
    with uowf() as uow:
        stage_start.start_stage(uow, stage_id=two_stages.final, actor="boss").raise_refusal()
    with uowf() as uow:
        stage = uow.events.get_or_raise(Stage, two_stages.final)
        [match] = uow.rounds.matches_of_stage(two_stages.final)
        assert stage.status == "running"
        assert set(names_of(uow, [match.first_team_id, match.second_team_id]).values()) == {
            "Denmark",
            "Norway",
        }
        drawn = uow.lots.lots_of(two_stages.event_id)[-1]
        assert drawn.id == sealed.id and drawn.outcome and drawn.commitment == sealed.commitment


def test_reseeding_a_published_stage_voids_its_sealed_pairing_lot_and_commits_one_for_the_new_pool(
    uowf: UnitOfWorkFactory, two_stages: TwoStages
) -> None:
    with uowf() as uow:
        pool_draft.publish_pools(uow, stage_id=two_stages.final, actor="boss")
    with uowf() as uow:
        [old] = [lot for lot in uow.lots.lots_of(two_stages.event_id) if lot.seed_hex is None]
        old_id, old_commitment = old.id, old.commitment
    with uowf() as uow:
        correct_winner(uow, the_match(uow, two_stages.group, "Sweden", "Denmark"), "Denmark")
    [change] = pending(uowf, two_stages.final)
    with uowf() as uow:
        late_changes.reseed_later_stage(uow, late_change_id=change.id, actor="boss", reason="Denmark in")
    with uowf() as uow:
        views = {view.id: view for view in draws.list_lots(uow, event_id=two_stages.event_id)}
        void = views[old_id]
        assert void.void and void.commitment == old_commitment and void.seed_hex and void.outcome is None
        [entry] = uow.audit.entries(entity="lot", entity_id=old_id, action_prefix="lot.void")
        assert entry.reason and "published again" in entry.reason
        [new] = [view for view in views.values() if not view.revealed]
        assert sorted(new.candidates) == ["Denmark", "Norway"] and new.commitment != old_commitment
    with uowf() as uow:
        stage_start.start_stage(uow, stage_id=two_stages.final, actor="boss").raise_refusal()
    with uowf() as uow:
        assert draws.get_lot(uow, lot_id=new.id).outcome is not None
        assert draws.get_lot(uow, lot_id=old_id).void


@pytest.mark.usefixtures("final_started")
def test_a_started_stage_cannot_be_reseeded_and_is_kept_with_its_reason_shown(
    uowf: UnitOfWorkFactory, two_stages: TwoStages
) -> None:
    with uowf() as uow:
        [match] = uow.rounds.matches_of_stage(two_stages.final)
        board = uow.boards.for_match(match.id or 0)[0]
        results.record_result(
            uow, board_id=board.id or 0, result="1-0", expected_version=board.version, actor="ann"
        )
    change = denmark_beats_sweden_after_closing(uowf, two_stages)
    assert change.affected_started and not change.can_reseed
    assert "Final has started" in " ".join(change.sentences())
    with pytest.raises(Conflict, match="has started"), uowf() as uow:
        late_changes.reseed_later_stage(uow, late_change_id=change.id, actor="boss", reason="try")
    with uowf() as uow:
        kept = late_changes.keep_later_stage(
            uow, late_change_id=change.id, actor="boss", reason="the final was under way; committee decision"
        )
    assert kept.status == "kept"
    assert "stays as it was: the final was under way" in kept.public_note()
    assert final_teams(uowf, two_stages.final) == ["Norway", "Sweden"]
    with uowf() as uow:  # the same difference found again is not asked about twice
        late_changes.review_closed_stage(
            uow, stage_id=two_stages.group, actor="boss", cause="correction", cause_text="again"
        )
    assert pending(uowf, two_stages.final) == []


def test_a_late_change_on_the_top_division_names_the_bracket_places_and_duels_and_reseeding_rebuilds_them(
    uowf: UnitOfWorkFactory,
) -> None:
    with uowf() as uow:
        event_id = make_event(uow, SMALL_PLAYOFF)
        group = running_stage(uow, event_id=event_id, stage_key="group")
        seeds = {t.name: t.seed for t in uow.teams.teams_of_event(event_id)}
        play_stage(uow, group, sorted(seeds, key=lambda name: seeds[name]))
    with uowf() as uow:
        standings_service.close_stage(uow, stage_id=group, actor="boss", now=utcnow() + LATER)
    with uowf() as uow:
        playoff = stage_id_of(uow, event_id, "playoff")
        build_bracket(uow, stage_id=playoff, actor="boss")
        pool_a = uow.rounds.pools_in_letter_order(group)[0]
        second, third = (row.team_id for row in uow.rounds.standings_of_pool(pool_a.id or 0)[1:3])
        names = names_of(uow, [second, third])
        correct_winner(uow, the_match(uow, group, names[second], names[third]), names[third])
    [change] = pending(uowf, playoff)
    [place] = [p for p in change.consequence.places if p.built == names[second]]
    assert (place.slot, place.now) == ("Group A 2nd", names[third]) and "duel II" in place.affects
    with uowf() as uow:
        late_changes.reseed_later_stage(
            uow, late_change_id=change.id, actor="boss", reason="bracket not started"
        )
    with uowf() as uow:
        duel = uow.playoff.duel_by_key(playoff, "II")
        assert duel is not None and duel.second_team_id == third
