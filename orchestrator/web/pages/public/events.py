"""Spectator pages (no login): events, stages, pools, matches, teams. Complete without JavaScript.

Every page answers conditional requests (web/http/caching.py) and names its live topics for live.js; the same
topics tell the page cache when to build it again (web/http/page_cache.py).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from orchestrator.services import live
from orchestrator.services.outlook import read as outlook_read
from orchestrator.services.read import events, matches, stages, standings, swiss, teams
from orchestrator.web.auth import allow_public
from orchestrator.web.deps import attachment, get_uow_factory, in_unit_of_work, render
from orchestrator.web.http.caching import conditional
from orchestrator.web.http.page_cache import page_built
from orchestrator.web.pages.public import swiss_stage
from orchestrator.web.pages.public.event_story import event_story

router = APIRouter(dependencies=[allow_public()], include_in_schema=False)


def live_url(slug: str, topics: tuple[str, ...]) -> str:
    """The server-sent-events address a page listens to: the topics it shows, or only their coarse ones
    when it shows many (``live.to_follow``: the address does not grow with the field)."""
    followed = live.to_follow(t for t in topics if t != f"event:{slug}")
    return f"/events/{slug}/live?" + urlencode([("topic", t) for t in followed])


def page_live_url(event: object, topics: tuple[str, ...]) -> str | None:
    """The live address of a page of ``event``; none once the event is closed (nothing changes any more,
    so the page shows no "Live" status)."""
    if getattr(event, "status", None) == "closed":
        return None
    return live_url(getattr(event, "slug", ""), topics)


def _page(
    request: Request,
    template: str,
    view: object,
    follow: tuple[str, ...] = (),
    *,
    more_topics: tuple[str, ...] = (),
    **extra: object,
) -> Response:
    """A page of ``view``, kept by the page cache until one of its topics (or ``more_topics``, what else it
    shows) changes; its live stream follows ``follow`` when given (a page that knows its coarse topics),
    else its topics and the pools among ``more_topics`` (``live_url``)."""
    context = {"view": view, "live_url": None, **extra}
    topics = getattr(view, "topics", None)
    event = getattr(view, "event", None)
    if topics is not None and event is not None:
        pools = tuple(t for t in more_topics if t.startswith("pool:"))
        followed = follow or tuple(dict.fromkeys((*topics, *pools)))
        context["live_url"] = page_live_url(event, followed)
        page_built(request, tuple(dict.fromkeys((f"event:{event.slug}", *topics, *more_topics))))
    return conditional(request, render(request, template, context))


@router.get("/")
def home(request: Request) -> Response:
    items = in_unit_of_work(request, events.list_events)
    page_built(request, events.LIST_TOPICS)
    return conditional(request, render(request, "home.html", {"events": items}))


@router.get("/events/{slug}")
def event_page(request: Request, slug: str) -> Response:
    with get_uow_factory(request)() as uow:
        view = events.event_view(uow, slug=slug)
        story = event_story(uow, view)
    return _page(request, "public/event.html", view, more_topics=story.topics, story=story)


@router.get("/events/{slug}/lots")
def lots_page(request: Request, slug: str) -> Response:
    """Every lot of the event, drawn, sealed or void, so no lot is drawn out of sight (docs/lots.md)."""
    view = in_unit_of_work(request, events.lots_view, slug=slug)
    return _page(request, "public/lots.html", view)


@router.get("/events/{slug}/stages/{stage_key}")
def stage_page(
    request: Request,
    slug: str,
    stage_key: str,
    after: str = "",
    round_no: str = Query("", alias="round"),
) -> Response:
    """A stage; a Swiss stage is shown as one: the pairings of one round (``round``, else the current
    one) and the standings (after round ``after``): pages/public/swiss_stage.py."""
    with get_uow_factory(request)() as uow:
        if swiss.is_swiss_stage(uow, slug=slug, stage_key=stage_key):
            view: object = swiss.swiss_view(
                uow, slug=slug, stage_key=stage_key, round_no=round_no, after=after
            )
        else:
            view = stages.stage_view(uow, slug=slug, stage_key=stage_key)
    if isinstance(view, swiss.SwissView):
        chosen = swiss_stage.context(view)
        extra: dict[str, Any] = dict(chosen)  # the round and standings shown: template variables only
        extra["outlook"] = in_unit_of_work(request, outlook_read.pool_outlook, pool_id=view.pool.id)
        return _page(request, "public/swiss.html", view, swiss_stage.followed(view), **extra)
    return _page(request, "public/stage.html", view)


@router.get("/events/{slug}/stages/{stage_key}/pools/{letter}")
def pool_page(request: Request, slug: str, stage_key: str, letter: str) -> Response:
    view = in_unit_of_work(request, standings.pool_view, slug=slug, stage_key=stage_key, letter=letter)
    outlook = in_unit_of_work(request, outlook_read.pool_outlook, pool_id=view.id)
    return _page(request, "public/pool.html", view, outlook=outlook)


@router.get("/events/{slug}/matches/{match_id}")
def match_page(request: Request, slug: str, match_id: int) -> Response:
    view = in_unit_of_work(request, matches.match_view, slug=slug, match_id=match_id)
    return _page(request, "public/match.html", view)


@router.get("/events/{slug}/matches/{match_id}/boards/{board_no}.pgn")
def board_pgn(request: Request, slug: str, match_id: int, board_no: int) -> Response:
    pgn = in_unit_of_work(request, matches.board_pgn, slug=slug, match_id=match_id, board_no=board_no)
    filename = f"{slug}-match-{match_id}-board-{board_no}.pgn"
    page_built(request, (f"event:{slug}", f"match:{match_id}"))  # ingestion announces the match
    return conditional(request, attachment(pgn, filename, "application/x-chess-pgn; charset=utf-8"))


@router.get("/events/{slug}/teams/{team_id}")
def team_page(request: Request, slug: str, team_id: int) -> Response:
    view = in_unit_of_work(request, teams.team_view, slug=slug, team_id=team_id)
    outlooks = in_unit_of_work(request, outlook_read.team_outlooks, team_id=team_id)
    return _page(
        request, "public/team.html", view, outlook=outlooks[-1] if outlooks else None, outlook_team=team_id
    )
