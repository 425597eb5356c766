"""A demo event played to its champion and still served: the web app and the stand-in game server on free
ports (orchestrator/demo), for browser tests that need every page with content (a finished play-off,
games with moves on the stand-in)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from orchestrator.demo.driver import Demo
from orchestrator.demo.plan import DemoOptions
from orchestrator.ports import free_port

REPO = Path(__file__).resolve().parents[2]
SMALL_PLAYOFF = REPO / "tests" / "fixtures" / "events" / "small-playoff.yaml"


@dataclass(frozen=True)
class FinishedDemo:
    web_url: str
    standin_url: str
    slug: str
    owner_password: str
    champions: tuple[str, ...]

    def links(self, path: str, pattern: str) -> list[str]:
        """The distinct addresses matching ``pattern`` linked from the page at ``path``, in page order."""
        page = httpx.get(self.web_url + path, timeout=30)
        page.raise_for_status()
        return list(dict.fromkeys(re.findall(pattern, page.text)))


@contextmanager
def finished_demo(data_dir: Path, *, seed: int = 5) -> Iterator[FinishedDemo]:
    """The small play-off event (8 teams, two pools, semi-finals and a final) played in demo time."""
    options = DemoOptions(
        event_file=SMALL_PLAYOFF,
        minutes=0.3,
        web=True,
        port=free_port(),
        standin_port=0,
        data_dir=data_dir,
        seed=seed,
    )
    with Demo(options) as demo:
        setup = demo.setup()
        outcome = demo.run()
        assert outcome.champions, "the demo ended without a champion"
        assert setup.web_url is not None and setup.owner_password is not None
        yield FinishedDemo(
            web_url=setup.web_url,
            standin_url=setup.standin_url,
            slug=setup.slug,
            owner_password=setup.owner_password,
            champions=outcome.champions,
        )
