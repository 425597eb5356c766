"""One commit's live messages sent to Redis one by one against together (``RedisPublisher.send_many``).

Run: .venv/bin/python bench/live_publish.py [--messages 400] [--repeats 30]
Needs Redis (REDIS_URL, default redis://127.0.0.1:6379/0); publishes on a channel of its own, which nobody
reads. A Swiss round of the Olympiad 2026's Open section announces about 400 topics in the commits of its
chain (each match of the round, its pool, stage and event: docs/performance.md). Prints the median time of
one commit's messages sent each way, best of ``--repeats``-run medians, and the ratio. The yardstick in the
same run is the one-by-one way itself (the time before the change), so the ratio is what to quote.
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from orchestrator.adapters import live_redis as bridge  # noqa: E402
from orchestrator.services.live import Message  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    client = bridge.connect(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    client.ping()
    publisher = bridge.RedisPublisher(client, channel=f"olympiad:live:bench:{secrets.token_hex(4)}")
    messages = [Message(f"match:{n}", {"kind": "result", "match_id": n}) for n in range(args.messages)]

    def one_by_one() -> None:
        for message in messages:
            publisher(message)

    def together() -> None:
        publisher.send_many(messages)

    times: dict[str, list[float]] = {"one by one": [], "together": []}
    for _ in range(args.repeats):  # alternating, so that both ways share the machine's mood
        for name, send in (("one by one", one_by_one), ("together", together)):
            started = time.perf_counter()
            send()
            times[name].append(time.perf_counter() - started)
    cpu_started = time.process_time()
    for _ in range(args.repeats):
        one_by_one()
    cpu_one = (time.process_time() - cpu_started) / args.repeats
    cpu_started = time.process_time()
    for _ in range(args.repeats):
        together()
    cpu_together = (time.process_time() - cpu_started) / args.repeats
    one, many = statistics.median(times["one by one"]), statistics.median(times["together"])
    print(f"{args.messages} messages a commit, median of {args.repeats}:")
    print(f"  one by one  {1000 * one:7.2f} ms wall  {1000 * cpu_one:7.2f} ms CPU of this process")
    print(f"  together    {1000 * many:7.2f} ms wall  {1000 * cpu_together:7.2f} ms CPU of this process")
    print(f"  ratio       {one / many:7.1f}x wall  {cpu_one / max(cpu_together, 1e-9):7.1f}x CPU")


if __name__ == "__main__":
    main()
