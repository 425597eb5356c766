"""A process's descendants, read from /proc (Linux): the web processes ``olympiad serve --workers N``
starts, for the tests and benchmarks that look at them."""

from __future__ import annotations

import contextlib
from pathlib import Path


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (children, their children...), from each task's ``children`` file."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        for task in Path(f"/proc/{current}/task").glob("*"):
            with contextlib.suppress(OSError):
                children = [int(c) for c in (task / "children").read_text().split()]
                found += children
                todo += children
    return found
