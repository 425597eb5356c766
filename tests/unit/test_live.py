import asyncio
import threading

from orchestrator.services.live import Broadcaster


def test_a_subscriber_receives_only_its_topics_even_from_another_thread() -> None:
    hub = Broadcaster()

    async def scenario() -> list[str]:
        async with hub.subscribe(["pool:1"]) as queue:
            worker = threading.Thread(target=lambda: (hub.publish("pool:2"), hub.publish("pool:1", {"n": 1})))
            worker.start()
            worker.join()
            message = await asyncio.wait_for(queue.get(), timeout=2)
            return [message.topic, str(message.data["n"]), str(queue.qsize())]

    assert asyncio.run(scenario()) == ["pool:1", "1", "0"]
    assert hub.subscriber_count == 0


def test_a_slow_subscriber_keeps_the_newest_messages() -> None:
    hub = Broadcaster(queue_size=2)

    async def scenario() -> list[int]:
        async with hub.subscribe(["t"]) as queue:
            for n in range(5):
                hub.publish("t", {"n": n})
            await asyncio.sleep(0.05)
            return [queue.get_nowait().data["n"] for _ in range(queue.qsize())]

    assert asyncio.run(scenario()) == [3, 4]


class FakeUow:
    def __init__(self) -> None:
        self.queued: list[tuple] = []

    def after_commit(self, fn, /, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        self.queued.append((fn, args, kwargs))


def test_announce_waits_for_the_commit(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from orchestrator.services import live

    monkeypatch.setattr(live, "broadcaster", Broadcaster())
    uow = FakeUow()
    seen: list[str] = []
    live.broadcaster.add_forwarder(lambda message: seen.append(message.topic))
    live.announce(uow, "match:9", board=3)
    assert seen == []
    fn, args, kwargs = uow.queued[0]
    fn(*args, **kwargs)
    assert seen == ["match:9"]


class _SendsMany:
    """A forwarder with a batched form, as the Redis bridge has."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def __call__(self, message) -> None:  # type: ignore[no-untyped-def]
        self.batches.append([message.topic])

    def send_many(self, messages) -> None:  # type: ignore[no-untyped-def]
        self.batches.append([m.topic for m in messages])


def test_a_commits_messages_reach_a_batching_forwarder_together_and_the_others_one_by_one() -> None:
    from orchestrator.services.live import Message

    hub = Broadcaster()
    many, one_by_one = _SendsMany(), []
    hub.add_forwarder(many)
    hub.add_forwarder(lambda message: one_by_one.append(message.topic))
    before = hub.versions.seq

    async def scenario() -> list[str]:
        async with hub.subscribe(["pool:1", "match:2"]) as queue:
            hub.publish_many([Message("pool:1", {"n": 1}), Message("stage:3"), Message("match:2", {"n": 2})])
            await asyncio.sleep(0.05)
            return [queue.get_nowait().topic for _ in range(queue.qsize())]

    assert asyncio.run(scenario()) == ["pool:1", "match:2"]  # a subscriber gets its topics, in order
    assert many.batches == [["pool:1", "stage:3", "match:2"]]
    assert one_by_one == ["pool:1", "stage:3", "match:2"]
    assert hub.versions.seq == before + 3 and hub.versions.of("stage:3") == before + 2
    hub.publish_many([])
    hub.publish_many([Message("pool:9")], forward=False)  # a message from another process: not sent back
    assert many.batches == [["pool:1", "stage:3", "match:2"]] and hub.versions.of("pool:9") == before + 4


def test_a_unit_of_work_sends_one_commits_announcements_as_one_batch_where_the_first_was_queued(
    monkeypatch,  # type: ignore[no-untyped-def]
) -> None:
    from orchestrator.adapters.uow import UnitOfWork
    from orchestrator.services import live

    monkeypatch.setattr(live, "broadcaster", Broadcaster())
    many, order = _SendsMany(), []
    live.broadcaster.add_forwarder(many)
    live.broadcaster.add_forwarder(lambda message: order.append(message.topic))
    uow = FakeUow()
    uow.after_commit(order.append, "job sent before")
    live.announce(uow, "match:9", board=3)
    uow.after_commit(order.append, "job sent between")  # a bound method of a list: not hashable
    live.announce(uow, "event:cup", kind="result")
    UnitOfWork._run(uow.queued)
    assert many.batches == [["match:9", "event:cup"]]
    assert order == ["job sent before", "match:9", "event:cup", "job sent between"]


def test_a_failing_batched_callable_is_logged_and_the_other_callables_still_run(caplog) -> None:  # type: ignore[no-untyped-def]
    from orchestrator.adapters.uow import UnitOfWork

    ran: list[object] = []

    def broken(_topic: str) -> None:
        raise AssertionError("not the batched form")

    def broken_batch(calls) -> None:  # type: ignore[no-untyped-def]
        ran.append(len(calls))
        raise RuntimeError("the broker is gone")

    broken.batched = broken_batch  # type: ignore[attr-defined]
    UnitOfWork._run([(broken, ("a",), {}), (ran.append, ("after",), {}), (broken, ("b",), {})])
    assert ran == [2, "after"]
    assert "after-commit callable" in caplog.text and "broken" in caplog.text
