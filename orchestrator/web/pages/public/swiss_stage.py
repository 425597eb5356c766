"""What the Swiss stage page shows (templates/public/swiss.html, docs/spectators.md): one round's pairings
first, in board order with the match score as it comes in, then the standings; the other rounds are one
address each (``?round=N``), linked as tabs, so the page never carries every round's pairings.

- **The round shown** without ``?round``: the one being played or paired (the first published round that
  is not complete), else the latest complete one; none before round 1 is paired.
- **The standings shown**: after ``?after=N`` when given; else after the round shown when it is complete;
  else after the last complete round.
- **Live**: the page follows its stage and its pool, whatever the size of the field (services/live.py,
  "Coarse topics").
"""

from __future__ import annotations

from orchestrator.errors import ValidationFailed
from orchestrator.services.read import swiss
from orchestrator.translation import gettext as _

_PUBLISHED = frozenset(("scheduled", "paired", "playing", "finished"))


def current_round(view: swiss.SwissView) -> int | None:
    """The round shown without ``?round`` (module docstring)."""
    published = [r.number for r in view.rounds if r.status in _PUBLISHED]
    going = [n for n in published if n not in view.complete_rounds]
    if going:
        return going[0]
    return published[-1] if published else None


def shown_round(view: swiss.SwissView, asked: str) -> int | None:
    """The round whose pairings the page shows: ``asked`` (``?round=N``) or ``current_round``;
    ValidationFailed naming the stage's rounds for anything else."""
    text = asked.strip()
    if not text:
        return current_round(view)
    numbers = [r.number for r in view.rounds]
    number = int(text) if text.isascii() and text.isdigit() and len(text) < 6 else None
    if number not in numbers:
        problem = _("round: choose a round from 1 to %(last)d") % {"last": len(numbers)}
        raise ValidationFailed([problem])
    return number


def standings_round(view: swiss.SwissView, after: str, shown: int | None) -> int | None:
    """The round whose standings the page shows (module docstring)."""
    if after.strip():
        return swiss.chosen_round(view, after)
    if shown is not None and shown in view.complete_rounds:
        return shown
    return view.last_complete


def followed(view: swiss.SwissView) -> tuple[str, ...]:
    """The live topics of the page: the event's (always followed), the stage's and its pool's."""
    return (f"event:{view.event.slug}", f"stage:{view.stage.id}", f"pool:{view.pool.id}")


def context(view: swiss.SwissView, *, after: str, round_asked: str) -> dict[str, object]:
    """The template's choices for the addresses ``?round=`` and ``?after=``."""
    shown = shown_round(view, round_asked)
    line = next((r for r in view.rounds if r.number == shown), None)
    return {
        "shown": line,
        "current": current_round(view),
        "after": standings_round(view, after, shown),
        "pairings": view.matches_of(shown) if shown is not None else (),
    }
