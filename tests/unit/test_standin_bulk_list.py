"""The stand-in lists a bulk as Lichess does, until its games are paired and their clocks started, and a
bulk settled so is skipped by every later tick without looking at its games again."""

from __future__ import annotations

from orchestrator.standin.faults import FaultPlan
from orchestrator.standin.records import Bulk
from orchestrator.standin.store import Store

CLOCK = {"limit": 300, "increment": 2}


def _store() -> Store:
    return Store(speed=0, seed=3, faults=FaultPlan.from_text("", 0.0, 3), prerender=False)


def _bulk(store: Store, pairs: list[tuple[str, str]], *, start_clocks_at: int | None) -> Bulk:
    return store.create_bulk(
        owner=store.user("organiser", 2000),
        pairs=[(store.user(w, 1800), store.user(b, 1700)) for w, b in pairs],
        pair_at=None,
        start_clocks_at=start_clocks_at,
        rated=False,
        variant="standard",
        clock=CLOCK,
        rules=("noAbort",),
        message=None,
    )


def _listed(store: Store) -> list[str]:
    store.tick()
    return [b.id for b in store.listed_bulks(store.user("organiser", 2000))]


def test_a_bulk_leaves_the_list_once_its_clocks_start_and_is_settled_for_good() -> None:
    store = _store()
    now = store.clock.now_ms()
    at_once = _bulk(store, [("ann", "bob")], start_clocks_at=None)
    later = _bulk(store, [("cid", "dan"), ("eve", "fay")], start_clocks_at=now + 60_000)
    assert _listed(store) == [later.id]  # paired with its clocks running: no longer listed
    assert (at_once.settled, later.settled) == (True, False)
    store.clock.advance(60_000)
    assert _listed(store) == [] and later.settled
    for game_id in later.game_ids:  # a settled bulk's games are not looked at by the ticks after
        store.games[game_id].clock_start = None
    assert _listed(store) == []
    assert all(store.games[g].clock_start is None for g in later.game_ids)


def test_clocks_started_by_hand_settle_the_bulk_at_the_next_look() -> None:
    store = _store()
    waiting = _bulk(store, [("gil", "hal")], start_clocks_at=store.clock.now_ms() + 3_600_000)
    assert _listed(store) == [waiting.id] and not waiting.settled
    store.start_clocks(waiting.id, store.user("organiser", 2000))
    assert _listed(store) == [] and waiting.settled
