"""A lot's hash is public before its draw (docs/lots.md, "When each lot is committed and drawn"): a pool's
pairing-number lot is committed when its pools are published and drawn when the stage starts; a tie-break
(g) lot is committed once its pool's last match is complete (or by a first closing, which then does not
close) and drawn when the stage closes."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlmodel import select

from orchestrator.adapters.tables import AuditLog, Lot, Role, Stage, Standing
from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.db import make_session_factory, utcnow
from orchestrator.domain import lots as lot_rules
from orchestrator.errors import Conflict
from orchestrator.services.accounts.users import create_user
from orchestrator.services.gameserver import gameserver
from orchestrator.services.read import staff
from orchestrator.services.read import standings as read_standings
from orchestrator.services.results import lot_steps, results
from orchestrator.services.results import standings as standings_service
from orchestrator.services.setup import draws, pool_draft, stage_start
from tests.support.databases import migrated_engine
from tests.support.factories import TEST_PAIRING_SEED, make_event, published_stage, running_stage
from tests.support.pool_builder import BuiltPool, build_pool
from tests.support.results import LATER, enter, play_all, stored, winning_codes
from tests.support.web import PASSWORD, form_token, login


def event_lots(uowf: UnitOfWorkFactory, event_id: int) -> list[Lot]:
    with uowf() as uow:
        rows = list(uow.lots.lots_of(event_id))
        uow.session.expunge_all()  # read after the unit of work
        return rows


def lot_actions(uowf: UnitOfWorkFactory) -> list[str]:
    """The lot entries of the audit log, oldest first."""
    with uowf() as uow:
        entries = uow.session.exec(select(AuditLog).order_by(AuditLog.id)).all()  # type: ignore[arg-type]
        return [e.action for e in entries if e.action.startswith("lot.")]


def event_of(uowf: UnitOfWorkFactory, stage_id: int) -> int:
    with uowf() as uow:
        return uow.events.get_or_raise(Stage, stage_id).event_id


# --- pairing numbers --------------------------------------------------------------------------------------


def test_publishing_the_pools_commits_each_pools_pairing_lot_sealed_with_its_teams(
    uowf: UnitOfWorkFactory,
) -> None:
    with uowf() as uow:
        stage_id = published_stage(uow)
    event_id = event_of(uowf, stage_id)
    with uowf() as uow:
        [view] = draws.list_lots(uow, event_id=event_id)
        pools = pool_draft.describe_pools(uow, stage_id=stage_id)
    assert view.purpose == "Group pool A pairing numbers"
    assert sorted(view.candidates) == sorted(t.name for t in pools.pools[0].teams)
    assert (view.seed_hex, view.outcome, view.revealed) == (None, None, False)
    public = view.public()
    assert (
        public["commitment"] == view.commitment and public["seed_hex"] is None and public["outcome"] is None
    )
    # the staff pools page shows the commitment while the stage waits to start
    assert pools.pools[0].pairing_lot is not None and pools.pools[0].pairing_lot.commitment == view.commitment
    assert lot_actions(uowf) == ["lot.commit"]


def test_starting_the_stage_draws_the_lot_committed_at_publishing_and_commits_no_other(
    uowf: UnitOfWorkFactory,
) -> None:
    with uowf() as uow:
        stage_id = published_stage(uow)
    event_id = event_of(uowf, stage_id)
    [sealed] = event_lots(uowf, event_id)
    with uowf() as uow:
        started = stage_start.start_stage(uow, stage_id=stage_id, actor="anna")
    assert started.refusal is None and len(started.round_ids) == 3
    [drawn] = event_lots(uowf, event_id)
    assert (drawn.id, drawn.commitment) == (sealed.id, sealed.commitment)
    assert drawn.outcome and drawn.seed_hex and drawn.sealed_seed_hex is None
    assert lot_rules.verify(bytes.fromhex(drawn.seed_hex), sealed.commitment)
    with uowf() as uow:
        pool = uow.rounds.pools_of_stage(stage_id)[0]
        teams = {t.id: t.name for t in uow.teams.teams_of_event(event_id)}
        by_number = [teams[e.team_id] for e in uow.rounds.entries_of_pool(pool.id or 0)]
    assert by_number == drawn.outcome
    assert lot_actions(uowf) == ["lot.commit", "lot.draw"]


def _seeded_draw(tmp_path: Path) -> tuple[str, list[str]]:
    """A small event published and started with the test seed, in its own database."""
    engine = migrated_engine(Settings(data_dir=tmp_path, environment="test").sqlalchemy_url)
    factory = make_session_factory(engine)
    try:
        with UnitOfWork(factory) as uow:
            event_id = make_event(uow)
            running_stage(uow, event_id=event_id, pairing_seed=TEST_PAIRING_SEED)
        with UnitOfWork(factory) as uow:
            [lot] = uow.lots.lots_of(event_id)
            return lot.commitment, list(lot.outcome or ())
    finally:
        engine.dispose()


def test_the_same_pairing_seed_commits_the_same_hash_and_draws_the_same_numbers_in_another_database(
    tmp_path: Path,
) -> None:
    first = _seeded_draw(tmp_path / "first")
    assert first == _seeded_draw(tmp_path / "second")
    assert len(first[1]) == 4


def test_a_pool_published_without_its_lot_gets_it_committed_by_a_first_start_that_does_not_start(
    uowf: UnitOfWorkFactory,
) -> None:
    with uowf() as uow:
        stage_id = published_stage(uow)
    event_id = event_of(uowf, stage_id)
    with uowf() as uow:  # pools published before lots were committed at publishing
        for lot in uow.lots.lots_of(event_id):
            uow.session.delete(lot)
    with uowf() as uow:
        started = stage_start.start_stage(uow, stage_id=stage_id, actor="anna")
    assert started.round_ids == () and started.refusal is not None
    assert (
        "pool A was committed now" in started.refusal.message
        and "Start the stage again" in started.refusal.message
    )
    with pytest.raises(Conflict):
        started.raise_refusal()
    [sealed] = event_lots(uowf, event_id)
    assert sealed.seed_hex is None and sealed.outcome is None
    with uowf() as uow:
        assert uow.events.get_or_raise(
            Stage, stage_id
        ).status == "published" and not uow.rounds.rounds_of_stage(stage_id)
        commit = uow.audit.entries(entity="lot", entity_id=sealed.id, action_prefix="lot.commit")[0]
        assert commit.reason and "had no committed lot" in commit.reason
    with uowf() as uow:
        stage_start.start_stage(uow, stage_id=stage_id, actor="anna").raise_refusal()
    [drawn] = event_lots(uowf, event_id)
    assert drawn.id == sealed.id and drawn.commitment == sealed.commitment and drawn.outcome
    with uowf() as uow:
        assert uow.events.get_or_raise(Stage, stage_id).status == "running"


def test_a_void_lot_cannot_be_drawn_and_shows_its_seed_without_an_outcome(uowf: UnitOfWorkFactory) -> None:
    with uowf() as uow:
        stage_id = published_stage(uow)
    [sealed] = event_lots(uowf, event_of(uowf, stage_id))
    with uowf() as uow:
        void = draws.void_lot(uow, lot_id=sealed.id or 0, actor="anna", reason="test")
    assert void.void and void.seed_hex and void.outcome is None and not void.verifies()
    assert lot_rules.verify(bytes.fromhex(void.seed_hex), sealed.commitment)
    with pytest.raises(Conflict, match="void"), uowf() as uow:
        draws.reveal_lot(uow, lot_id=sealed.id or 0, actor="anna")


# --- tie-break (g) ----------------------------------------------------------------------------------------


def play_match(uowf: UnitOfWorkFactory, built: BuiltPool, match_id: int) -> None:
    """As ``play_all``: Norway wins its matches, the others draw 2-2."""
    _, first, second = built.pairing(match_id)
    codes = winning_codes(built, match_id, "Norway") if "Norway" in (first, second) else None
    enter(uowf, built, match_id, codes or ["1-0"] * len(built.boards[match_id]))


def tie_lots_of(uowf: UnitOfWorkFactory, built: BuiltPool) -> list[Lot]:
    return [
        lot
        for lot in event_lots(uowf, built.event_id)
        if lot.purpose == f"tie-break LOT pool {built.pool_id}"
    ]


def test_a_tie_gets_its_lot_committed_when_the_pools_last_match_is_complete_and_drawn_only_at_closing(
    uowf: UnitOfWorkFactory, client: TestClient
) -> None:
    with uowf() as uow:
        built = build_pool(uow)
    *first, last = built.matches.values()
    for match_id in first:
        play_match(uowf, built, match_id)
    assert tie_lots_of(uowf, built) == []  # ties during the stage are not decided by lot
    play_match(uowf, built, last)
    [sealed] = tie_lots_of(uowf, built)
    assert sorted(sealed.candidates) == ["Denmark", "Finland", "Sweden"]
    assert sealed.seed_hex is None and sealed.outcome is None
    assert all(row.provisional for row in stored(uowf, built.pool_id))
    with uowf() as uow:  # the public pool page and the staff closing page show the commitment
        view = read_standings.pool_view(uow, slug=built.event_slug, stage_key="group", letter="A")
        [tie] = staff.closing_view(uow, stage_id=built.stage_id).pools[0].ties
    [note] = view.tie_lots
    assert (note.places, note.commitment, note.drawn, note.seed_hex) == (
        "2–4",
        sealed.commitment,
        False,
        None,
    )
    assert tie.places == "2–4" and tie.committed and not tie.drawn
    page = client.get(f"/events/{built.event_slug}/stages/group/pools/A").text
    assert "A lot will decide places 2–4" in page and sealed.commitment in page
    # the hash is behind the same "Verify this draw" disclosure as the bracket's Armageddon lots
    disclosure = page[page.index('<details class="verify">') : page.index("</details>")]
    assert "Verify this draw" in disclosure and f"hash {sealed.commitment}" in disclosure
    with uowf() as uow:
        closed = standings_service.close_stage(
            uow, stage_id=built.stage_id, actor="boss", now=utcnow() + LATER
        )
    assert closed.refusal is None
    [drawn] = tie_lots_of(uowf, built)
    assert (drawn.id, drawn.commitment) == (sealed.id, sealed.commitment) and drawn.outcome
    rows = stored(uowf, built.pool_id)
    assert not any(row.provisional for row in rows) and [row.rank for row in rows] == [1, 2, 3, 4]
    assert lot_actions(uowf) == ["lot.commit", "lot.draw"]
    with uowf() as uow:
        view = read_standings.pool_view(uow, slug=built.event_slug, stage_key="group", letter="A")
    [note] = view.tie_lots
    assert note.drawn and note.order == tuple(drawn.outcome) and note.seed_hex == drawn.seed_hex
    page = client.get(f"/events/{built.event_slug}/stages/group/pools/A").text
    disclosure = page[page.index('<details class="verify">') : page.index("</details>")]
    assert f"seed {drawn.seed_hex}" in disclosure and f"hash {drawn.commitment}" in disclosure


def _complete_pool_without_its_lot(uowf: UnitOfWorkFactory) -> BuiltPool:
    """Every result in, the tie's lot missing (a pool completed before lots were committed on completion)."""
    with uowf() as uow:
        built = build_pool(uow)
    play_all(uowf, built)
    with uowf() as uow:
        for lot in uow.lots.lots_with_purpose(built.event_id, f"tie-break LOT pool {built.pool_id}"):
            uow.session.delete(lot)
    return built


def test_closing_with_a_tie_whose_lot_is_not_committed_commits_it_refuses_and_draws_it_when_closed_again(
    uowf: UnitOfWorkFactory,
) -> None:
    built = _complete_pool_without_its_lot(uowf)
    with uowf() as uow:
        refused = standings_service.close_stage(
            uow, stage_id=built.stage_id, actor="boss", now=utcnow() + LATER
        )
    assert refused.refusal is not None and refused.pools == ()
    message = refused.refusal.message
    assert "the lot for places 2–4 of pool A (Denmark, Finland, Sweden) was committed now" in message
    assert "close again to draw it" in message
    [sealed] = tie_lots_of(uowf, built)
    assert sealed.seed_hex is None and sealed.outcome is None
    with uowf() as uow:
        assert uow.events.get_or_raise(Stage, built.stage_id).status == "running"
    assert all(row.provisional for row in stored(uowf, built.pool_id))
    with uowf() as uow:
        closed = standings_service.close_stage(
            uow, stage_id=built.stage_id, actor="boss", now=utcnow() + LATER
        )
    closed.raise_refusal()
    [drawn] = tie_lots_of(uowf, built)
    assert (drawn.id, drawn.commitment) == (sealed.id, sealed.commitment) and drawn.outcome
    with uowf() as uow:
        assert uow.events.get_or_raise(Stage, built.stage_id).status == "closed"
    rows = stored(uowf, built.pool_id)
    assert not any(row.provisional for row in rows)
    assert [row.separated_by for row in rows][2:] == ["LOT", "LOT"]


def test_the_automatic_closing_commits_a_missing_lot_and_closes_at_a_later_tick(
    uowf: UnitOfWorkFactory,
) -> None:
    built = _complete_pool_without_its_lot(uowf)
    with uowf() as uow:
        assert not gameserver.advance_stage(
            uow, stage_id=built.stage_id, actor="system", now=utcnow() + LATER
        )
    [sealed] = tie_lots_of(uowf, built)
    assert sealed.seed_hex is None
    with uowf() as uow:
        assert gameserver.advance_stage(uow, stage_id=built.stage_id, actor="system", now=utcnow() + LATER)
    [drawn] = tie_lots_of(uowf, built)
    assert drawn.id == sealed.id and drawn.outcome


def test_a_correction_that_changes_the_tie_before_closing_commits_a_lot_for_the_new_group_and_voids_the_old(
    uowf: UnitOfWorkFactory,
) -> None:
    with uowf() as uow:
        built = build_pool(uow)
    play_all(uowf, built)
    [old] = tie_lots_of(uowf, built)
    # Sweden now beats Norway: Sweden and Norway lead (direct encounter), Denmark and Finland stay tied
    norway_sweden = built.match(
        next(r for (r, a, b) in built.matches if {a, b} == {"Norway", "Sweden"}), "Sweden"
    )
    enter(uowf, built, norway_sweden, winning_codes(built, norway_sweden, "Sweden"))
    old_again, new = tie_lots_of(uowf, built)
    assert old_again.id == old.id and old_again.seed_hex is None
    assert sorted(new.candidates) == ["Denmark", "Finland"] and new.seed_hex is None
    with uowf() as uow:
        standings_service.close_stage(
            uow, stage_id=built.stage_id, actor="boss", now=utcnow() + LATER
        ).raise_refusal()
    void, drawn = tie_lots_of(uowf, built)
    assert void.id == old.id and void.seed_hex and void.outcome is None  # set aside, its seed public
    assert drawn.id == new.id and sorted(drawn.outcome or ()) == ["Denmark", "Finland"]
    with uowf() as uow:
        [entry] = uow.audit.entries(entity="lot", entity_id=old.id, action_prefix="lot.void")
    assert entry.reason and "no longer tied" in entry.reason
    with uowf() as uow:
        rows = list(uow.session.exec(select(Standing).where(Standing.pool_id == built.pool_id)).all())
    assert rows and not any(row.provisional for row in rows)


def test_the_staff_closing_page_commits_a_missing_lot_shows_its_hash_and_closes_on_the_second_press(
    app: FastAPI,
) -> None:
    uowf = app.state.uow_factory
    with uowf() as uow:
        create_user(uow, username="admin", password=PASSWORD, role=Role.ADMIN)
    built = _complete_pool_without_its_lot(uowf)
    with uowf() as uow:  # the appeal windows are over
        for match in uow.rounds.matches_of_stage(built.stage_id):
            match.finished_at = utcnow() - LATER
            uow.session.add(match)
    client, _ = login(app, "admin")
    url = f"/staff/stages/{built.stage_id}/close"
    first = client.post(url, data={"csrf_token": form_token(client.get(url).text)})
    [sealed] = tie_lots_of(uowf, built)
    assert first.status_code == 409 and "close again to draw it" in first.text
    assert sealed.commitment in first.text and "A lot will decide places 2–4" in first.text
    second = client.post(url, data={"csrf_token": form_token(first.text)})
    assert second.status_code == 303
    closed = client.get(second.headers["location"]).text
    assert "were decided by lot" in closed and sealed.commitment in closed


# --- drawing by hand --------------------------------------------------------------------------------------


def admin_client(app: FastAPI) -> tuple[TestClient, str]:
    with app.state.uow_factory() as uow:
        create_user(uow, username="admin", password=PASSWORD, role=Role.ADMIN)
    return login(app, "admin")


def test_the_lots_page_says_the_stage_start_draws_a_pairing_lot_and_refuses_to_draw_it_by_hand(
    app: FastAPI,
) -> None:
    uowf = app.state.uow_factory
    client, csrf = admin_client(app)
    with uowf() as uow:
        stage_id = published_stage(uow)
    event_id = event_of(uowf, stage_id)
    [pairing] = event_lots(uowf, event_id)
    with uowf() as uow:
        manual = draws.commit_lot(
            uow, event_id=event_id, purpose="Order of the team photos", candidates=["a", "b"], actor="x"
        )
    page = client.get(f"/staff/events/{event_id}/lots", follow_redirects=True).text
    assert "drawn when Group starts" in page
    assert f"/staff/lots/{pairing.id}/reveal" not in page and f"/staff/lots/{manual}/reveal" in page
    refused = client.post(f"/staff/lots/{pairing.id}/reveal", data={"csrf_token": form_token(page)})
    assert refused.status_code == 409 and "drawn when Group starts" in refused.text
    api = client.post(f"/api/v1/staff/lots/{pairing.id}/reveal", headers={"X-CSRF-Token": csrf})
    assert api.status_code == 409 and "drawn when Group starts" in api.json()["detail"]
    [still] = [lot for lot in event_lots(uowf, event_id) if lot.id == pairing.id]
    assert still.seed_hex is None and still.outcome is None  # nothing was drawn
    drawn = client.post(f"/staff/lots/{manual}/reveal", data={"csrf_token": form_token(page)})
    assert drawn.status_code == 303  # a lot staff committed is still drawn by hand
    with uowf() as uow:
        stage_start.start_stage(uow, stage_id=stage_id, actor="anna").raise_refusal()
    assert [lot.outcome is not None for lot in event_lots(uowf, event_id)] == [True, True]


def test_a_tie_break_lot_is_drawn_by_closing_the_stage_not_by_hand(uowf: UnitOfWorkFactory) -> None:
    with uowf() as uow:
        built = build_pool(uow)
    play_all(uowf, built)
    [sealed] = tie_lots_of(uowf, built)
    with uowf() as uow:
        [view] = [v for v in lot_steps.list_lots(uow, event_id=built.event_id) if v.id == sealed.id]
    assert view.drawn_when == "drawn when Group stage closes"
    with pytest.raises(Conflict, match="drawn when Group stage closes"), uowf() as uow:
        lot_steps.draw_by_hand(uow, lot_id=sealed.id or 0, actor="anna")
    assert tie_lots_of(uowf, built)[0].seed_hex is None


def test_draw_the_lots_on_a_closed_stages_closing_page_draws_the_tie_a_late_correction_left(
    app: FastAPI,
) -> None:
    uowf = app.state.uow_factory
    client, _ = admin_client(app)
    with uowf() as uow:
        built = build_pool(uow)
    play_all(uowf, built)
    with uowf() as uow:
        standings_service.close_stage(uow, stage_id=built.stage_id, actor="boss", now=utcnow() + LATER)
    # Norway's round-1 opponent now wins that match: it leads the other two, still tied, a new group whose
    # lot is committed by the correction and not drawn, so the final standings wait for it.
    match_id = built.match(1, "Norway")
    _, first, second = built.pairing(match_id)
    opponent = second if first == "Norway" else first
    with uowf() as uow:
        entries = [
            results.ResultEntry(b.id or 0, code, b.version)
            for b, code in zip(
                uow.boards.for_match(match_id), winning_codes(built, match_id, opponent), strict=True
            )
        ]
        results.save_corrections(uow, match_id=match_id, entries=entries, actor="boss", reason="ruling")
    sealed = [lot for lot in tie_lots_of(uowf, built) if lot.seed_hex is None]
    assert len(sealed) == 1 and all(row.provisional for row in stored(uowf, built.pool_id))
    lots_page = client.get(f"/staff/events/{built.event_id}/lots", follow_redirects=True).text
    assert "drawn by Draw the lots on the closing page of Group stage" in lots_page
    url = f"/staff/stages/{built.stage_id}/close"
    page = client.get(url).text
    assert "Draw the lots" in page and "A lot will decide places" in page and sealed[0].commitment in page
    pressed = client.post(url, data={"csrf_token": form_token(page)})
    assert pressed.status_code == 303
    after = client.get(pressed.headers["location"]).text
    assert "were decided by lot" in after and sealed[0].commitment in after
    assert "Draw the lots" not in after
    [drawn] = [lot for lot in tie_lots_of(uowf, built) if lot.id == sealed[0].id]
    assert drawn.outcome and drawn.seed_hex
    assert not any(row.provisional for row in stored(uowf, built.pool_id))


# --- lots by hand --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "purpose",
    [
        "Group pool A pairing numbers",
        "group  pool B pairing numbers",  # spelling variants are refused too
        "Swiss initial colour",
        "tie-break LOT pool 7",
        "board prize group board 3",
        "Armageddon category, duel XI",
        "Armageddon colour choice, duel F",
    ],
)
def test_a_purpose_a_procedure_draws_is_refused_for_a_lot_by_hand(app: FastAPI, purpose: str) -> None:
    """docs/lots.md, "Lots by hand": staff cannot draw a procedure's lot until they like the outcome."""
    uowf = app.state.uow_factory
    client, csrf = admin_client(app)
    with uowf() as uow:
        stage_id = published_stage(uow)
    event_id = event_of(uowf, stage_id)
    before = event_lots(uowf, event_id)
    api = client.post(
        f"/api/v1/staff/events/{event_id}/lots",
        json={"purpose": purpose, "candidates": ["open", "women"], "kind": "one"},
        headers={"X-CSRF-Token": csrf},
    )
    assert api.status_code == 409 and "is drawn by" in api.json()["detail"], api.text
    page = client.get(f"/staff/events/{event_id}/lots", follow_redirects=True).text
    form = client.post(
        f"/staff/events/{event_id}/lots",
        data={"csrf_token": form_token(page), "purpose": purpose, "candidates": "open\nwomen", "kind": "one"},
    )
    assert form.status_code == 409 and "is drawn by" in form.text
    assert len(event_lots(uowf, event_id)) == len(before)


def test_a_lot_by_hand_never_replaces_a_committed_or_drawn_lot_of_the_same_purpose(app: FastAPI) -> None:
    uowf = app.state.uow_factory
    client, csrf = admin_client(app)
    with uowf() as uow:
        stage_id = published_stage(uow)
    event_id = event_of(uowf, stage_id)
    body = {"purpose": "Order of the team photos", "candidates": ["a", "b", "c"], "kind": "order"}
    headers = {"X-CSRF-Token": csrf}
    first = client.post(f"/api/v1/staff/events/{event_id}/lots", json=body, headers=headers)
    assert first.status_code == 201
    again = client.post(f"/api/v1/staff/events/{event_id}/lots", json=body, headers=headers)
    assert again.status_code == 409 and "already" in again.json()["detail"]
    lot_id = first.json()["id"]
    assert client.post(f"/api/v1/staff/lots/{lot_id}/reveal", headers=headers).status_code == 200
    redraw = client.post(
        f"/api/v1/staff/events/{event_id}/lots",
        json={**body, "purpose": " order of the  team photos"},
        headers=headers,
    )
    assert redraw.status_code == 409 and "already" in redraw.json()["detail"]


def test_every_lot_of_an_event_is_on_its_public_lots_page_void_ones_marked(app: FastAPI) -> None:
    """docs/lots.md, "Lots by hand": every lot of one purpose is public, a void one says so."""
    uowf = app.state.uow_factory
    with uowf() as uow:
        stage_id = published_stage(uow)
    event_id = event_of(uowf, stage_id)
    [pairing] = event_lots(uowf, event_id)
    with uowf() as uow:
        draws.void_lot(uow, lot_id=pairing.id or 0, actor="anna", reason="pools published again")
    with uowf() as uow:
        stage_start.start_stage(uow, stage_id=stage_id, actor="anna")  # commits a new lot, does not start
        slug = staff.staff_event_ref(uow, event_id=event_id).slug
    lots = event_lots(uowf, event_id)
    assert len(lots) == 2
    page = TestClient(app).get(f"/events/{slug}/lots")
    assert page.status_code == 200
    assert page.text.count("Group pool A pairing numbers") == 2
    assert "void, never drawn" in page.text
    assert lots[0].commitment in page.text and lots[1].commitment in page.text
