"""What the Swiss stage page shows (templates/public/swiss.html, docs/spectators.md): one round's pairings
first, in board order with the match score as it comes in, then one standings table; the other rounds are
one address each (``?round=N``), linked as tabs, and so are the other tables (``?after=N``), so the page
never carries, nor computes, every round's pairings and standings.

Which round and which table are shown is the read model's choice (services/read/swiss.py, module
docstring), the same for the page and its JSON twin (``/api/v1/events/{slug}/stages/{key}/swiss``).

- **Live**: the page follows its stage and its pool, whatever the size of the field (services/live.py,
  "Coarse topics").
"""

from __future__ import annotations

from orchestrator.services.read import swiss


def followed(view: swiss.SwissView) -> tuple[str, ...]:
    """The live topics of the page: the event's (always followed), the stage's and its pool's."""
    return (f"event:{view.event.slug}", f"stage:{view.stage.id}", f"pool:{view.pool.id}")


def context(view: swiss.SwissView) -> dict[str, object]:
    """The template's variables for the round and the table shown."""
    return {
        "shown": view.shown,
        "current": view.current_round,
        "after": view.after,
        "pairings": view.matches_of(view.round) if view.round is not None else (),
    }
