"""The event file's ``rated`` and ``board_prizes: {min_games: N}`` settings (docs/event-file.md)."""

from __future__ import annotations

import pytest

from orchestrator.eventfile import EventDefinitionError, parse_event
from tests.support.swiss import SWISS_EVENT


def _with(extra: str) -> str:
    return SWISS_EVENT.replace("timezone: UTC\n", f"timezone: UTC\n{extra}", 1)


def test_an_event_is_not_rated_and_needs_eight_games_for_a_board_prize_unless_the_file_says_so() -> None:
    plain = parse_event(SWISS_EVENT)
    assert (plain.rated, plain.board_prize_min_games) == (False, 8)
    set_ = parse_event(_with("rated: true\nboard_prizes:\n  min_games: 5\n"))
    assert (set_.rated, set_.board_prize_min_games) == (True, 5)


@pytest.mark.parametrize(
    ("extra", "path", "message"),
    [
        ("rated: often\n", "rated", "expected true or false"),
        ("board_prizes:\n  min_games: 0\n", "board_prizes.min_games", "must be at least 1, found 0"),
        ("board_prizes:\n  min_games: 101\n", "board_prizes.min_games", "must be at most 100, found 101"),
    ],
)
def test_a_bad_setting_is_a_problem_on_its_line(extra: str, path: str, message: str) -> None:
    text = _with(extra)
    with pytest.raises(EventDefinitionError) as caught:
        parse_event(text)
    key = path.rsplit(".", 1)[-1]
    line = next(i for i, row in enumerate(text.splitlines(), 1) if row.strip().startswith(f"{key}:"))
    assert [(p.path, p.line) for p in caught.value.problems] == [(path, line)]
    assert message in str(caught.value.problems[0])
