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
