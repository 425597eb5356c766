"""The stand-in lists a bulk as Lichess does, until its games are paired and their clocks started, and a
bulk settled so is skipped by every later tick without looking at its games again."""

from __future__ import annotations

from orchestrator.standin.store import Store
from tests.support.standin import bare_store, store_bulk


def _listed(store: Store) -> list[str]:
    store.tick()
    return [b.id for b in store.listed_bulks(store.user("organiser", 2000))]


def test_a_bulk_leaves_the_list_once_its_clocks_start_and_is_settled_for_good() -> None:
    store = bare_store(3)
    now = store.clock.now_ms()
    at_once = store_bulk(store, [("ann", "bob")], start_clocks_at=None)
    later = store_bulk(store, [("cid", "dan"), ("eve", "fay")], start_clocks_at=now + 60_000)
    assert _listed(store) == [later.id]  # paired with its clocks running: no longer listed
    assert (at_once.settled, later.settled) == (True, False)
    store.clock.advance(60_000)
    assert _listed(store) == [] and later.settled
    for game_id in later.game_ids:  # a settled bulk's games are not looked at by the ticks after
        store.games[game_id].clock_start = None
    assert _listed(store) == []
    assert all(store.games[g].clock_start is None for g in later.game_ids)


def test_clocks_started_by_hand_settle_the_bulk_at_the_next_look() -> None:
    store = bare_store(3)
    waiting = store_bulk(store, [("gil", "hal")], start_clocks_at=store.clock.now_ms() + 3_600_000)
    assert _listed(store) == [waiting.id] and not waiting.settled
    store.start_clocks(waiting.id, store.user("organiser", 2000))
    assert _listed(store) == [] and waiting.settled
