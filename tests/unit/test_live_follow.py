"""A page's live stream follows a handful of topics whatever the size of the field (services/live.py,
"Coarse topics"): what ``to_follow`` keeps, and a match's change announced on its pool, duel and stage."""

from __future__ import annotations

from typing import Any

from orchestrator.adapters.tables import Match, Round
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.services import live
from orchestrator.web.http.sse import MAX_TOPICS, TOPIC
from orchestrator.web.pages.public.events import live_url
from tests.support.pools import seed_small_pool


def test_a_small_page_follows_every_topic_it_shows_in_order_and_once() -> None:
    topics = ("event:cup", "pool:3", "match:7", "match:8", "pool:3")
    assert live.to_follow(topics) == ("event:cup", "pool:3", "match:7", "match:8")


def test_a_page_of_many_matches_follows_only_its_coarse_topics() -> None:
    matches = tuple(f"match:{n}" for n in range(1, 1000))
    topics = ("event:cup", "stage:4", "pool:9", *matches, "round:12", "section:open", "duel:3")
    assert live.to_follow(topics) == ("event:cup", "stage:4", "pool:9", "round:12", "section:open")


def test_the_follow_list_never_passes_the_streams_limit() -> None:
    pools = tuple(f"pool:{n}" for n in range(500))
    followed = live.to_follow(("event:cup", "stage:1", *pools))
    assert followed == ("event:cup", "stage:1")
    assert len(live.to_follow(f"stage:{n}" for n in range(500))) == live.FOLLOW_ALL_MAX <= MAX_TOPICS


def test_the_live_address_of_a_big_page_is_short_and_every_topic_is_accepted() -> None:
    topics = ("event:olympiad", "stage:2", "pool:5", *(f"match:{n}" for n in range(1100)))
    url = live_url("olympiad", topics)
    assert url == "/events/olympiad/live?topic=stage%3A2&topic=pool%3A5"
    assert TOPIC.match("round:12") and TOPIC.match("section:women")


class _Rows:
    def __init__(self, *rows: Any) -> None:
        self.rows = {(type(r), r.id): r for r in rows}

    def get(self, model: type[Any], row_id: int) -> Any:
        return self.rows.get((model, row_id))

    def coarse_ids(self, match_ids: Any) -> dict[int, tuple[int | None, int | None, int]]:
        found = {}
        for match_id in match_ids:
            match = self.rows.get((Match, match_id))
            if match is not None:
                found[match_id] = (match.pool_id, match.duel_id, self.rows[(Round, match.round_id)].stage_id)
        return found


class _Uow:
    def __init__(self, rounds: _Rows) -> None:
        self.rounds = rounds
        self._after_commit: list[tuple[Any, tuple[Any, ...], dict[str, Any]]] = []

    def after_commit(self, fn: Any, /, *args: Any, **kwargs: Any) -> None:
        self._after_commit.append((fn, args, kwargs))

    def topics(self) -> list[str]:
        return [args[0] for _fn, args, _kw in self._after_commit]


def _rows() -> _Rows:
    return _Rows(
        Round(id=30, stage_id=4, number=2),
        Match(id=7, round_id=30, pool_id=9, match_no=1, first_team_id=1, second_team_id=2),
        Match(id=8, round_id=30, pool_id=9, match_no=2, first_team_id=3, second_team_id=4),
        Match(id=11, round_id=30, duel_id=5, leg=1, match_no=3, first_team_id=5, second_team_id=6),
    )


def test_a_matchs_change_is_announced_on_its_pool_and_stage_once_per_commit() -> None:
    uow = _Uow(_rows())
    live.announce(uow, "match:7", match_id=7)
    live.announce(uow, "match:8", match_id=8)
    assert uow.topics() == ["match:7", "pool:9", "stage:4", "match:8"]


def test_a_duel_matchs_change_is_announced_on_its_duel_and_other_topics_alone() -> None:
    uow = _Uow(_rows())
    live.announce(uow, "match:11", kind="result")
    live.announce(uow, "event:cup", kind="result")
    live.announce(uow, "match:99", kind="result")  # not there: announced alone
    assert uow.topics() == ["match:11", "duel:5", "stage:4", "event:cup", "match:99"]
    assert live.coarse_of(_rows(), "pool:9") == () and live.coarse_of(_rows(), "match:x") == ()


def test_matches_announced_together_give_the_topics_announced_one_by_one() -> None:
    one_by_one, together = _Uow(_rows()), _Uow(_rows())
    for topic in ("match:8", "match:11", "match:99", "match:7"):
        live.announce(one_by_one, topic, kind="result")
    live.announce_matches(together, [8, 11, 99, 7, 8], kind="result")  # a match named twice: once
    assert together.topics() == one_by_one.topics()
    assert together.topics() == ["match:8", "pool:9", "stage:4", "match:11", "duel:5", "match:99", "match:7"]
    assert [kw for _fn, _args, kw in together._after_commit] == [{"kind": "result"}] * 7
    live.announce_matches(together, [])
    assert len(together.topics()) == 7


def test_the_repository_reads_each_matchs_pool_and_stage_as_the_rows_say(
    uow_factory: UnitOfWorkFactory,
) -> None:
    pool = seed_small_pool(uow_factory)
    with uow_factory() as uow:
        matches = uow.rounds.matches_of_pool(pool.pool_id)
        expected = {m.id: (pool.pool_id, None, pool.stage_id) for m in matches}
        assert uow.rounds.coarse_ids([m.id or 0 for m in matches] + [10**6]) == expected
        assert uow.rounds.coarse_ids([]) == {}
        uow.after_commit(lambda: None)
        live.announce_matches(uow, [matches[0].id or 0], kind="finished")
        topics = [args[0] for fn, args, _kw in uow._after_commit if fn is live.publish]
        assert topics == [f"match:{matches[0].id}", f"pool:{pool.pool_id}", f"stage:{pool.stage_id}"]


def test_a_2020_pool_page_with_its_45_matches_follows_them_all_as_before() -> None:
    topics = ("event:online-olympiad-2020", "stage:2", "pool:7", *(f"match:{n}" for n in range(100, 145)))
    assert live.to_follow(topics) == topics
    assert live_url("online-olympiad-2020", topics).count("topic=") == 47
