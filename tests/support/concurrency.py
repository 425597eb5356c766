"""Calls run in threads started together (a ``threading.Barrier``), for the concurrency tests: each call
opens its own units of work, as two workers or a request beside the demo's scheduler thread would.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


def together(*calls: Callable[[], object]) -> list[object]:
    """Run ``calls`` in threads started together; re-raises the first exception a thread met."""
    barrier = threading.Barrier(len(calls))
    results: list[object] = [None] * len(calls)
    errors: list[BaseException] = []

    def run(index: int, call: Callable[[], object]) -> None:
        try:
            barrier.wait()
            results[index] = call()
        except BaseException as error:  # any failure: re-raised in the test's thread
            errors.append(error)

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return results
