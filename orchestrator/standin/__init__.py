"""Stand-in game server speaking the Lichess protocol subset, for demos and tests (docs/rules.md §8)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fastapi import FastAPI

    from orchestrator.config import Settings


def create_standin_app(settings: Settings | None = None) -> FastAPI:
    """The stand-in FastAPI app (see orchestrator.standin.app)."""
    from orchestrator.standin.app import create_standin_app as create

    return create(settings)


def main(argv: Any = None) -> None:
    """Run the stand-in with uvicorn (see orchestrator.standin.__main__)."""
    from orchestrator.standin.__main__ import main as run

    run(argv)


__all__ = ["create_standin_app", "main"]
