"""The stand-in draws each game's id and result from its pairing, never from a shared sequence, so two
runs that create the same bulks in a different order (two workers) get the same games and results."""

from __future__ import annotations

from orchestrator.standin.store import Store
from tests.support.standin import CLOCK, bare_store, store_bulk


def _bulk(store: Store, pairs: list[tuple[str, str]], clock: dict[str, int] = CLOCK) -> list[str]:
    return store_bulk(store, pairs, clock).game_ids


def _games(store: Store) -> dict[tuple[str, str], tuple[str, str, str | None]]:
    return {(g.white.id, g.black.id): (g.id, g.plan.status, g.plan.winner) for g in store.games.values()}


ROUND_A = [("ann", "bob"), ("cid", "dan"), ("eve", "fay")]
ROUND_B = [("gil", "hal"), ("ivy", "jon")]


def test_the_same_pairings_in_any_order_give_the_same_ids_and_results():
    first, second = bare_store(), bare_store()
    _bulk(first, ROUND_A)
    _bulk(first, ROUND_B)
    _bulk(second, ROUND_B)
    _bulk(second, ROUND_A)
    assert _games(first) == _games(second)
    assert len({game_id for game_id, _, _ in _games(first).values()}) == 5


def test_a_game_id_depends_on_its_pairing_not_on_its_neighbours_in_the_bulk():
    alone, together = bare_store(), bare_store()
    _bulk(alone, [("cid", "dan")])
    _bulk(together, [("ann", "bob"), ("cid", "dan")])
    assert _games(alone)[("cid", "dan")] == _games(together)[("cid", "dan")]


def test_colours_clock_and_seed_each_change_the_game():
    store = bare_store()
    (plain,) = _bulk(store, [("ann", "bob")])
    (swapped,) = _bulk(store, [("bob", "ann")])
    (faster,) = _bulk(store, [("ann", "bob")], {"limit": 180, "increment": 2})
    (other_seed,) = _bulk(bare_store(seed=8), [("ann", "bob")])
    assert len({plain, swapped, faster, other_seed}) == 4


def test_a_pairing_sent_twice_gets_a_second_id_of_its_own():
    first, second = bare_store(), bare_store()
    ids_first = _bulk(first, ROUND_A) + _bulk(first, ROUND_A)
    ids_second = _bulk(second, ROUND_A) + _bulk(second, ROUND_A)
    assert ids_first == ids_second
    assert len(set(ids_first)) == 6
