"""Play a whole event in process: pools, Swiss stages, standings, qualifiers, the play-off and its
Armageddons. Swiss stages are paired through a ``SwissPairer``, our C.04.6 engine unless the caller passes
another (domain/swiss/simulate.py).

An event with sections (docs/sections.md) plays each section's stages among its own teams; every section
ends with its champions, its final lines for the combined classification (``combined``) and its board
prizes (``domain/section_results.py``).

Everything is derived from one integer seed, so a simulation is reproducible. The game model is
``game_model.play_game``; lineups are the main players, except that in a Swiss stage a team sometimes
fields its reserve (``domain/swiss/simulate.py``, drawn from a second generator seeded from the same
seed, so the pools, the play-off and the 2020 event play as before); lots use the commit-reveal procedure of
``lots`` with seeds drawn from the simulation's random generator.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from random import Random

from orchestrator.domain import lots
from orchestrator.domain.board_prizes import BoardTable, board_tables
from orchestrator.domain.bracket import PoolPlace
from orchestrator.domain.combined import CombinedRow, SectionPlace, combined_classification
from orchestrator.domain.event import (
    EventDefinition,
    Qualifiers,
    StageDef,
    pool_letters,
    qualifier_count,
    stage_entrants,
)
from orchestrator.domain.game_model import play_game
from orchestrator.domain.knockout import (
    ArmageddonState,
    DuelMatch,
    DuelOutcome,
    DuelReason,
    DuelRecord,
    armageddon_game,
    armageddon_result,
    choose_colour,
    decide_duel,
    draw_category,
    draw_chooser,
    duel_match_colours,
    nominate,
    record_armageddon,
    resolve_bracket,
    reveal,
    start_armageddon,
)
from orchestrator.domain.knockout import champions as bracket_champions
from orchestrator.domain.pools import PoolEntrant, entrant_of, split_pools
from orchestrator.domain.round_robin import berger_table
from orchestrator.domain.scoring import Colour, GameResult, MatchRecord, match_game_points
from orchestrator.domain.section_results import board_players, section_places
from orchestrator.domain.standings import Standings, compute_standings
from orchestrator.domain.swiss.pairing import SwissPairer
from orchestrator.domain.swiss.simulate import SimulatedSwiss, play_swiss_stage
from orchestrator.domain.swiss.systems import SystemPairer
from orchestrator.domain.teams import Player, Team, is_eligible
from orchestrator.domain.tiebreaks import parse_chain

Progress = Callable[[int], None]  # called with the number of matches just played


@dataclass(frozen=True, slots=True)
class SimulatedPool:
    letter: str
    average: float  # display only; the split itself compares exact totals
    standings: Standings
    matches: tuple[MatchRecord, ...]


@dataclass(frozen=True, slots=True)
class SimulatedStage:
    key: str
    name: str
    pools: tuple[SimulatedPool, ...]
    advancing: tuple[str, ...]
    lots: tuple[lots.Lot, ...]


@dataclass(frozen=True, slots=True)
class SimulatedDuel:
    key: str
    round_name: str
    record: DuelRecord
    outcome: DuelOutcome
    armageddon: ArmageddonState | None


@dataclass(frozen=True, slots=True)
class SimulatedSection:
    """How a section ended: its champions, its final lines (the last stage, a Swiss; empty otherwise) and
    the board prizes of its Swiss stages (one table per board, empty without a Swiss stage)."""

    key: str
    name: str
    champions: tuple[str, ...]
    final: tuple[SectionPlace, ...]
    board_tables: tuple[BoardTable, ...]


@dataclass(frozen=True, slots=True)
class SimulationResult:
    seed: int
    stages: tuple[SimulatedStage, ...]
    duels: tuple[SimulatedDuel, ...]
    champions: tuple[str, ...]
    swiss: tuple[SimulatedSwiss, ...] = ()
    sections: tuple[SimulatedSection, ...] = ()  # one per section (the implicit one of an event without)
    combined: tuple[CombinedRow, ...] = ()  # the combined classification, with two sections or more


def match_count(event: EventDefinition) -> int:
    """How many pool, Swiss and play-off matches the event has (for a progress bar)."""
    pool_matches = sum(
        stage.pool_count * (stage.pool_size // 2) * (stage.pool_size - 1 + stage.pool_size % 2)
        for stage in event.stages
        if stage.kind == "pools"
    )
    swiss_matches = sum(
        stage.rounds * (_entrant_count(event, stage) // 2) for stage in event.stages if stage.is_swiss
    )
    return pool_matches + swiss_matches + 2 * len(event.bracket)


def _entrant_count(event: EventDefinition, stage: StageDef) -> int:
    return sum(
        qualifier_count(event.stage(e.stage), e) if isinstance(e, Qualifiers) else e.size
        for e in stage.entrants
    )


def simulate_event(
    event: EventDefinition,
    *,
    seed: int,
    progress: Progress | None = None,
    pairer: SwissPairer | None = None,
) -> SimulationResult:
    """Play every stage of ``event`` with the rating model; reproducible from ``seed``. Swiss stages are
    paired by the system they name; ``fide-team-swiss`` by ``pairer``, by default our own C.04.6 engine
    (docs/swiss.md)."""
    rng = Random(seed)
    teams = {team.name: team for team in event.teams}
    tick = progress or (lambda _count: None)
    finals: dict[str, list[list[str]]] = {}  # stage key -> final pool orders (a Swiss stage: one list)
    stages: list[SimulatedStage] = []
    swiss: list[SimulatedSwiss] = []
    winners_of: dict[str, list[str]] = {}  # section -> the winners of its previous stage
    by_system = SystemPairer(fide=pairer)  # each Swiss stage by the system it names
    reserves = Random(f"reserves {seed}")  # who rests in the Swiss stages; apart from ``rng``
    for stage in event.stages:
        previous_winners = winners_of.get(stage.section, [])
        if stage.is_swiss:
            names = stage_entrants(event, stage.key, finals)
            played = play_swiss_stage(
                event, stage, names, pairer=by_system, rng=rng, progress=tick, reserves=reserves
            )
            swiss.append(played)
            finals[stage.key] = [list(played.standings.order)]
            winners_of[stage.section] = list(played.winners)
            continue
        if stage.kind != "pools":
            continue
        simulated = _play_pool_stage(event, stage, finals, previous_winners, teams, rng, tick)
        stages.append(simulated)
        finals[stage.key] = [list(pool.standings.order) for pool in simulated.pools]
        winners_of[stage.section] = [pool.standings.order[0] for pool in simulated.pools]
    duels, champions = _play_bracket(event, finals, teams, rng, tick)
    if not event.bracket and swiss and event.stages[-1].is_swiss:
        champions = swiss[-1].winners  # the Swiss decides the event (the Olympiad)
    sections = tuple(
        _section_outcome(event, section.key, section.name, swiss, champions, teams)
        for section in event.section_list()
    )
    combined = combined_classification({s.key: s.final for s in sections}) if len(event.sections) > 1 else ()
    return SimulationResult(
        seed, tuple(stages), tuple(duels), tuple(champions), tuple(swiss), sections, combined
    )


def _section_outcome(
    event: EventDefinition,
    key: str,
    name: str,
    swiss: Sequence[SimulatedSwiss],
    champions: Sequence[str],
    teams: dict[str, Team],
) -> SimulatedSection:
    """A section's champions (its last stage, a Swiss or the knockout), final lines and board prizes."""
    own = event.stages_of(key)
    played = [stage for stage in swiss if event.stage(stage.key).section == key]
    last = own[-1] if own else None
    final: tuple[SectionPlace, ...] = ()
    winners: tuple[str, ...] = ()
    if last is not None and last.is_swiss and played and played[-1].key == last.key:
        final = section_places(played[-1].standings, teams)
        winners = played[-1].winners
    elif (last is not None and last.kind == "knockout") or not event.sections:
        winners = tuple(champions)
    tables = (
        board_tables(board_players(played, teams), min_games=event.board_prize_min_games) if played else ()
    )
    return SimulatedSection(key, name, winners, final, tables)


def _play_pool_stage(
    event: EventDefinition,
    stage: StageDef,
    finals: dict[str, list[list[str]]],
    previous_winners: Sequence[str],
    teams: dict[str, Team],
    rng: Random,
    tick: Progress,
) -> SimulatedStage:
    names = stage_entrants(event, stage.key, finals)
    entrants: list[PoolEntrant] = [entrant_of(teams[name]) for name in names]
    apart = [name for name in previous_winners if name in names] if stage.winners_apart else []
    split = split_pools(entrants, pool_count=stage.pool_count, pool_size=stage.pool_size, apart=apart)
    chain = parse_chain(stage.tiebreaks)
    boards = event.team_format.boards
    pools: list[SimulatedPool] = []
    stage_lots: list[lots.Lot] = []
    for pool in split.pools:
        # Pairing numbers are drawn by lot, as at the real event.
        numbering = lots.run_lot(
            rng.randbytes(32),
            list(pool.teams),
            purpose=f"{stage.name} pool {pool.letter} pairing numbers",
            kind=lots.LotKind.ORDER,
        )
        stage_lots.append(numbering)
        order = list(numbering.outcome)
        matches: list[MatchRecord] = []
        for rnd in berger_table(len(order)):
            for pairing in rnd.pairings:
                first, second = teams[order[pairing.first - 1]], teams[order[pairing.second - 1]]
                results = _play_match(rng, first.main_players, second.main_players, first_white=True)
                gp_a, gp_b = match_game_points(results)
                matches.append(MatchRecord(rnd.number, first.name, second.name, gp_a, gp_b))
            tick(len(rnd.pairings))
        standings = compute_standings(order, matches, chain=chain, boards=boards, scoring=event.match_scoring)
        if standings.unresolved_ties and "LOT" in chain:
            numbers: dict[str, int] = {}
            for group in standings.unresolved_ties:
                lot = lots.run_lot(
                    rng.randbytes(32),
                    list(group),
                    purpose=f"{stage.name} pool {pool.letter} tie-break LOT",
                    kind=lots.LotKind.ORDER,
                )
                stage_lots.append(lot)
                numbers.update({team: place for place, team in enumerate(lot.outcome, start=1)})
            standings = compute_standings(
                order, matches, chain=chain, boards=boards, scoring=event.match_scoring, lots=numbers
            )
        pools.append(SimulatedPool(pool.letter, float(pool.average), standings, tuple(matches)))
    advancing = tuple(team for pool in pools for team in pool.standings.order[: stage.advance])
    return SimulatedStage(stage.key, stage.name, tuple(pools), advancing, tuple(stage_lots))


def _play_match(
    rng: Random, first: Sequence[Player], second: Sequence[Player], *, first_white: bool
) -> tuple[GameResult, ...]:
    """Board results from White's side; ``first_white``: the first team has White on the odd boards."""
    results: list[GameResult] = []
    for index, (a, b) in enumerate(zip(first, second, strict=True)):
        a_white = (index % 2 == 0) == first_white
        white, black = (a, b) if a_white else (b, a)
        results.append(play_game(rng, white.rating, black.rating))
    return tuple(results)


def _play_bracket(
    event: EventDefinition,
    finals: dict[str, list[list[str]]],
    teams: dict[str, Team],
    rng: Random,
    tick: Progress,
) -> tuple[list[SimulatedDuel], tuple[str, ...]]:
    """The duels played, in bracket order, and the champions: the final's winners, the final found as the
    public pages find it (``knockout.champions``: the duel named "Final", else the one whose winner no duel
    takes), so a third-place duel listed after the final never names them."""
    if not event.bracket:
        return [], ()
    places: dict[PoolPlace, str] = {}
    for stage_key, pools in finals.items():
        letters = ("",) if event.stage(stage_key).is_swiss else pool_letters(len(pools))
        for letter, order in zip(letters, pools, strict=True):
            for place, team in enumerate(order, start=1):
                places[PoolPlace(stage_key, letter, place)] = team
    outcomes: dict[str, DuelOutcome] = {}
    played: dict[str, SimulatedDuel] = {}
    while True:
        resolved = resolve_bracket(event.bracket, places, outcomes)
        ready = [duel for duel in resolved if duel.first and duel.second and duel.spec.key not in outcomes]
        if not ready:
            break
        for duel in ready:
            assert duel.first is not None and duel.second is not None
            simulated = _play_duel(
                event, duel.spec.key, duel.spec.round_name, teams[duel.first], teams[duel.second], rng
            )
            tick(2)
            outcomes[duel.spec.key] = simulated.outcome
            played[duel.spec.key] = simulated
    return [played[spec.key] for spec in event.bracket if spec.key in played], bracket_champions(resolved)


def _play_duel(
    event: EventDefinition, key: str, round_name: str, first: Team, second: Team, rng: Random
) -> SimulatedDuel:
    boards = event.team_format.boards
    matches = []
    for match_no in (1, 2):
        first_white = duel_match_colours(match_no, boards)[0] == "W"
        results = _play_match(rng, first.main_players, second.main_players, first_white=first_white)
        matches.append(DuelMatch(results=results))
    record = DuelRecord(key, first.name, second.name, tuple(matches), boards=boards)
    outcome = decide_duel(record, scoring=event.match_scoring)
    if outcome.reason is not DuelReason.ARMAGEDDON_NEEDED:
        return SimulatedDuel(key, round_name, record, outcome, None)
    state = _play_armageddon(event, key, first, second, rng)
    record = DuelRecord(
        key, first.name, second.name, tuple(matches), armageddon=armageddon_result(state), boards=boards
    )
    return SimulatedDuel(key, round_name, record, decide_duel(record, scoring=event.match_scoring), state)


def _play_armageddon(
    event: EventDefinition, key: str, first: Team, second: Team, rng: Random
) -> ArmageddonState:
    now = datetime(2020, 8, 30, 12, 0, tzinfo=UTC)
    state = start_armageddon(
        duel_key=key,
        teams=(first.name, second.name),
        team_format=event.team_format,
        deadline=now + timedelta(minutes=10),
        match2_lineups=(first.main_players, second.main_players),
        clock=event.armageddon,
    )
    state = draw_category(state, rng.randbytes(32))
    category = state.category
    assert category is not None
    for team in (first, second):
        # Each captain nominates the team's highest-rated eligible player of the drawn category.
        eligible = [
            entry.player
            for entry in team.roster
            if is_eligible(entry.player, category, event.team_format.cutoff_year)
        ]
        if eligible:
            best = max(eligible, key=lambda player: (player.rating, player.account))
            state = nominate(state, team, best.account, now)
    state = reveal(state, state.deadline)
    if state.result.is_final:  # decided by forfeit at the reveal
        return state
    state = draw_chooser(state, rng.randbytes(32))
    assert state.chooser is not None
    # With draw odds for Black, the chooser takes Black.
    state = choose_colour(state, state.chooser, Colour.BLACK)
    game = armageddon_game(state)
    # White must win: model White's extra minute as a small edge; a draw counts for Black.
    result = play_game(rng, game.white.rating + 40, game.black.rating)
    return record_armageddon(state, result)
