"""The story an event page tells about its Swiss stages (docs/spectators.md, "The event page"): each
section's podium once its stage is closed, or its leaders after the last complete round while it is played;
the combined classification's top three (docs/sections.md); and the board prizes' gold medals
(docs/board-prizes.md). Read from the same services as the Swiss, combined and board-prize pages, so the
event page never says anything those pages do not.
"""

from __future__ import annotations

from dataclasses import dataclass

from orchestrator.adapters.uow import UnitOfWork
from orchestrator.services.read import board_prizes, combined, swiss
from orchestrator.services.read.context import StageItem
from orchestrator.services.read.events import EventView

PODIUM = 3
MEDALS = ("gold", "silver", "bronze")


@dataclass(frozen=True, slots=True)
class PodiumPlace:
    place: int
    medal: str | None  # "gold", "silver", "bronze" once the stage is closed; None for a leader
    team_id: int
    name: str
    federation: str
    mp: int


@dataclass(frozen=True, slots=True)
class SectionStory:
    stage: StageItem
    final: bool  # the stage is closed: its podium; else its leaders
    after_round: int  # the last complete round (0: none yet)
    rounds: int
    places: tuple[PodiumPlace, ...]


@dataclass(frozen=True, slots=True)
class CombinedPlace:
    place: int
    federation: str
    name: str  # the federation's name, from its teams' names
    place_sum: int


@dataclass(frozen=True, slots=True)
class BoardWinner:
    stage: StageItem
    board: int
    reserve: bool
    player_id: int
    name: str
    title: str | None
    team_name: str
    federation: str
    performance: int | None


@dataclass(frozen=True, slots=True)
class EventStory:
    sections: tuple[SectionStory, ...] = ()
    combined: tuple[CombinedPlace, ...] = ()
    combined_final: bool = False
    board_winners: tuple[BoardWinner, ...] = ()
    topics: tuple[str, ...] = ()

    @property
    def told(self) -> bool:
        return bool(self.sections)


def event_story(uow: UnitOfWork, view: EventView) -> EventStory:
    """The story of the event's Swiss stages that have started (empty without one)."""
    slug = view.event.slug
    stages = [s for s in view.stages if s.kind == "swiss" and s.has_page]
    if not stages:
        return EventStory()
    sections: list[SectionStory] = []
    winners: list[BoardWinner] = []
    topics: list[str] = []
    for stage in stages:
        leaders = swiss.swiss_leaders(uow, slug=slug, stage_key=stage.key, top=PODIUM)
        topics.extend(leaders.topics)
        sections.append(_section(stage, leaders))
        if stage.status == "closed":
            prizes = board_prizes.board_prizes_view(uow, slug=slug, stage_key=stage.key)
            topics.extend(prizes.topics)
            winners.extend(_winners(stage, prizes))
    places: tuple[CombinedPlace, ...] = ()
    combined_final = False
    if view.combined:
        classification = combined.combined_view(uow, slug=slug)
        topics.extend(classification.topics)
        if classification.started:
            places = combined_top(classification)
            combined_final = classification.final
    return EventStory(tuple(sections), places, combined_final, tuple(winners), tuple(dict.fromkeys(topics)))


def _section(stage: StageItem, leaders: swiss.SwissLeaders) -> SectionStory:
    final = stage.status == "closed"
    places = tuple(
        PodiumPlace(
            place=line.rank,
            medal=MEDALS[line.rank - 1] if final and line.rank <= len(MEDALS) else None,
            team_id=line.team.id,
            name=line.team.name,
            federation=line.team.federation,
            mp=line.mp,
        )
        for line in leaders.lines
    )
    return SectionStory(stage, final, leaders.after_round, stage.rounds, places)


def federation_name(teams: list[tuple[str, str]]) -> str:
    """A federation's name from its teams' (team name, section name) pairs: the team name without its
    section's name ("France Women" in Women is "France"), the shortest one when they differ."""
    names = []
    for team, section in teams:
        suffix = f" {section}"
        names.append(team[: -len(suffix)] if team.endswith(suffix) and len(team) > len(suffix) else team)
    return min(names, key=lambda n: (len(n), n)) if names else ""


def federation_names(classification: combined.CombinedView) -> dict[str, str]:
    """Each federation's name on the combined classification (``federation_name``)."""
    out = {}
    for line in classification.lines:
        teams = [
            (team.team.name, section.name)
            for team, section in zip(line.teams, classification.sections, strict=False)
            if team is not None
        ]
        out[line.federation] = federation_name(teams) or line.federation
    return out


def combined_top(classification: combined.CombinedView) -> tuple[CombinedPlace, ...]:
    names = federation_names(classification)
    return tuple(
        CombinedPlace(line.place, line.federation, names[line.federation], line.place_sum)
        for line in classification.lines
        if line.complete and line.place <= PODIUM
    )


def _winners(stage: StageItem, prizes: board_prizes.BoardPrizesView) -> list[BoardWinner]:
    out = []
    for section in prizes.boards:
        for line in section.lines:
            if line.medal == "gold":
                out.append(
                    BoardWinner(
                        stage=stage,
                        board=section.board,
                        reserve=section.reserve,
                        player_id=line.player_id,
                        name=line.name,
                        title=line.title,
                        team_name=line.team.name,
                        federation=line.team.federation,
                        performance=line.performance,
                    )
                )
    return out
