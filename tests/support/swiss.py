"""Builders of a stored Swiss stage for tests (``tests/fixtures/events/swiss-small.yaml``: seven teams,
four boards, a 5-round Swiss stage ``open``), and the same stage kept in the pure domain alongside, so a test
can check that every round the server pairs is the round the engine pairs on the domain's own state.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from orchestrator.adapters.gacrux_pairing import pair_trf
from orchestrator.adapters.tables import Board, Match
from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.domain.scoring import GameResult, MatchRecord, match_game_points
from orchestrator.domain.swiss import (
    SwissState,
    bye_match,
    record_round,
    start_state,
)
from orchestrator.domain.swiss.simulate import swiss_team
from orchestrator.domain.trf.swiss import export_trf
from orchestrator.eventfile import parse_event
from orchestrator.services.results import results
from orchestrator.services.setup import stage_start
from orchestrator.services.swiss import rounds as swiss_rounds
from orchestrator.services.swiss.rounds import RoundView
from tests.support.factories import REPO_ROOT, make_event, stage_id_of

SWISS_EVENT = (REPO_ROOT / "tests" / "fixtures" / "events" / "swiss-small.yaml").read_text(encoding="utf-8")
ACTOR = "arbiter"
CYCLE = (GameResult.WHITE_WINS, GameResult.DRAW, GameResult.BLACK_WINS, GameResult.WHITE_WINS)


def running_swiss(uow: UnitOfWork, *, initial_colour: str = "W", slug: str | None = None) -> int:
    """The small Swiss event stored (``slug`` replaces the file's) and its stage started (rounds unpaired);
    returns the stage id."""
    stage_id = stage_id_of(uow, make_event(uow, SWISS_EVENT, slug=slug), "open")
    stage_start.start_stage(uow, stage_id=stage_id, actor=ACTOR, initial_colour=initial_colour)
    return stage_id


def domain_start(initial_colour: str = "W") -> SwissState:
    """The same stage in the domain, straight from the event file."""
    event = parse_event(SWISS_EVENT, source="swiss-small.yaml")
    stage = event.stage("open")
    return start_state(
        [swiss_team(team) for team in event.teams],
        boards=event.team_format.boards,
        rounds=stage.rounds,
        scoring=event.match_scoring,
        initial_colour=initial_colour,
    )


def engine_pairing(state: SwissState, round_no: int) -> tuple[list[tuple[str, str]], str | None]:
    """The round gacrux's checker pairs on the TRF export of ``state``: (first, second) names, the bye."""
    found = pair_trf(export_trf(state, round_no=round_no), round_no=round_no)
    names = {number: team.name for number, team in enumerate(state.teams, 1)}
    pairs = [(names[a], names[b]) for a, b in found.pairs if b != 0]
    bye = next((names[a] for a, b in found.pairs if b == 0), None)
    return pairs, bye


def view_pairing(view: RoundView) -> tuple[list[tuple[str, str]], str | None]:
    return [(p.first, p.second) for p in view.pairings], view.bye


def board_result(round_no: int, board: int, board_no: int) -> GameResult:
    """A fixed, varied result for every board of the stage."""
    return CYCLE[(round_no * 3 + board * 2 + board_no) % len(CYCLE)]


@dataclass
class Mirror:
    """The domain state kept next to the stored stage: each round recorded as the tests play it."""

    state: SwissState = field(default_factory=domain_start)

    def record(self, round_no: int, pairing: RoundView) -> None:
        records: list[MatchRecord] = []
        for p in pairing.pairings:
            games = [board_result(round_no, p.board, n) for n in range(1, self.state.boards + 1)]
            gp_a, gp_b = match_game_points(games)
            records.append(MatchRecord(round_no, p.first, p.second, gp_a, gp_b))
        if pairing.bye is not None:
            records.append(bye_match(self.state, pairing.bye, round_no))
        self.state = record_round(self.state, records)


def play_round(
    factory: UnitOfWorkFactory, round_id: int, *, leave: Sequence[tuple[int, int]] = ()
) -> list[Board]:
    """Enter every board's result of a published round as the arbiter does (``board_result``), except the
    (table, board) pairs in ``leave``; returns the boards left without a result."""
    with factory() as uow:
        matches = list(uow.rounds.matches_of_round(round_id))
        boards = uow.boards.boards_by_match(m.id for m in matches)
        todo = [
            (match.match_no, board.board_no, board.id or 0, board.version)
            for match in matches
            for board in boards[match.id or 0]
        ]
    left: list[Board] = []
    for table, board_no, board_id, version in todo:
        with factory() as uow:
            if (table, board_no) in leave:
                left.append(uow.boards.get_or_raise(Board, board_id))
                continue
            results.record_result(
                uow,
                board_id=board_id,
                result=board_result(_round_no(uow, round_id), table, board_no).value,
                expected_version=version,
                actor=ACTOR,
            )
    return left


def _round_no(uow: UnitOfWork, round_id: int) -> int:
    match = uow.rounds.matches_of_round(round_id)[0]
    return uow.rounds.round_of_match(match).number


def matches_of(uow: UnitOfWork, round_id: int) -> list[Match]:
    return list(uow.rounds.matches_of_round(round_id))


def pair_and_publish(factory: UnitOfWorkFactory, stage_id: int) -> RoundView:
    """Pair the next round and publish its draft as it is; returns the published round."""
    with factory() as uow:
        draft = swiss_rounds.pair_next_round(uow, stage_id=stage_id, actor=ACTOR)
    with factory() as uow:
        return swiss_rounds.publish_round_pairing(uow, round_id=draft.round_id, actor=ACTOR)


def pair_publish_play(factory: UnitOfWorkFactory, stage_id: int, mirror: Mirror | None = None) -> RoundView:
    """Pair the next round, publish it, enter every result; the mirror records the round too."""
    published = pair_and_publish(factory, stage_id)
    play_round(factory, published.round_id)
    if mirror is not None:
        assert view_pairing(published) == engine_pairing(mirror.state, published.number)
        mirror.record(published.number, published)
    return published


def late_team_csv(name: str = "Latecomers", seed: int = 8) -> str:
    """A roster file adding one team of four main players and a reserve (the roster import's format)."""
    lines = ["team,federation,seed,name,account,sex,birth_year,rating,role"]
    for board, rating in enumerate((2610, 2590, 2575, 2550), start=1):
        lines.append(f"{name},LAT,{seed},Player {board},late{board},m,1990,{rating},{board}")
    lines.append(f"{name},LAT,{seed},Player 5,late5,m,1991,2500,reserve:open")
    return "\n".join(lines) + "\n"


SWISS_THEN_FINAL = SWISS_EVENT.replace(
    "\nteams:\n",
    """
  - key: final
    name: Final
    kind: knockout
    entrants:
      - {from: open, top: 2}
    schedule:
      rounds: ["2030-09-22 15:00", "2030-09-22 18:00"]

bracket:
  - {duel: I, round: Final, first: Open 1st, second: Open 2nd}

teams:
""",
    1,
)
