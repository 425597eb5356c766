"""What is wrong in an event file: each problem with its line and path, all of them in one error."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong in an event file: where (line, path such as ``stages[4].entrants[0]``) and what."""

    line: int | None
    path: str
    message: str
    source: str = "event.yaml"
    subject: str = ""  # what the path points at, e.g. the stage key "top" or the duel "IV"

    def __str__(self) -> str:
        where = f"{self.source}:{self.line}" if self.line is not None else self.source
        target = self.path + (f" ({self.subject})" if self.subject else "")
        return f"{where}: {target}: {self.message}" if target else f"{where}: {self.message}"


class EventDefinitionError(ValueError):
    """An event definition that cannot be used; ``problems`` lists every problem found, in file order."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = tuple(problems)
        super().__init__(self.problems)

    def __str__(self) -> str:
        count = len(self.problems)
        head = f"{count} problem{'s' if count != 1 else ''} in the event definition:"
        return "\n".join([head, *(f"  {problem}" for problem in self.problems)])
