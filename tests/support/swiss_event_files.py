"""Event-file text for the Swiss stage tests (docs/event-file.md, docs/swiss.md): the 2026 small file, a Swiss
stage's head, a pool stage ahead of it, and the small file with a knockout after the Swiss.
"""

from __future__ import annotations

from pathlib import Path

EVENTS = Path(__file__).resolve().parents[2] / "events"
SMALL_TEXT = (EVENTS / "olympiad-2026-small.yaml").read_text()
STAGE_HEAD = """\
  - key: open
    name: Open
    kind: swiss
    rounds: 11
    pairing: olympiad-2022
    tiebreaks: olympiad-2026
    entrants:
      - {seeds: 1-24}
"""
PLAYOFF = """
  - key: playoff
    name: Play-off
    kind: knockout
    entrants:
      - {from: open, top: 4}
bracket:
  - {duel: I, first: Open 1st, second: Open 4th}
  - {duel: II, first: Open 2nd, second: Open 3rd}
  - {duel: III, first: winner I, second: winner II}
"""
POOLS_FIRST = """\
  - key: prelim
    name: Preliminary
    kind: pools
    pool_count: 2
    pool_size: 4
    advance: 2
    entrants:
      - {seeds: 17-24}
  - key: open
    name: Open
    kind: swiss
    rounds: 11
    entrants:
      - {from: prelim, top: 2}
      - {seeds: 1-16}
"""


def with_playoff(text: str = SMALL_TEXT, playoff: str = PLAYOFF) -> str:
    """The small file with a knockout after the Swiss (its schedule dropped: the bracket has none)."""
    stage_end = text.index("teams:\n")
    return text[:stage_end] + playoff.lstrip("\n") + text[stage_end:]
