"""Play a Swiss stage of an event in process (docs/swiss.md): every round paired through the
``SwissPairer`` port, results drawn from the rating model, standings by the stage's tie-break chain after
each round.

The caller passes the random generator, so a simulation is reproducible from one seed. Each team plays its
four (or however many boards) main players in board order; given a second generator (``reserves``) a team
sometimes fields a reserve instead of one of them (``fielded_lineup``). Its initial ranking counts every
player of its roster (Olympiad Pairing Rules 3.1: the four highest-rated, then the fifth).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from random import Random

from orchestrator.domain.event import EventDefinition, StageDef
from orchestrator.domain.game_model import play_game
from orchestrator.domain.scoring import GameResult, MatchRecord, board_colours, match_game_points
from orchestrator.domain.standings import Standings, compute_standings
from orchestrator.domain.swiss.model import SwissState, SwissTeam, record_round, start_state
from orchestrator.domain.swiss.pairing import RoundPairing, SwissPairer
from orchestrator.domain.teams import Category, Player, Team
from orchestrator.domain.tiebreaks import parse_chain

Progress = Callable[[int], None]  # called with the number of matches just played

RESERVE_CHANCE = 0.5  # how often a team with a reserve fields it in a match, when reserves are simulated

Lineup = tuple[Player, ...]  # the players on boards 1, 2, ... of a match


@dataclass(frozen=True, slots=True)
class SwissRound:
    """One round as played: its pairing, its results (the bye included) and the standings after it."""

    pairing: RoundPairing
    matches: tuple[MatchRecord, ...]
    standings: Standings
    boards: tuple[tuple[GameResult, ...], ...] = ()  # each paired match's board results (White's side)
    lineups: tuple[tuple[Lineup, Lineup], ...] = ()  # each paired match's two lineups (empty: the mains)


@dataclass(frozen=True, slots=True)
class SimulatedSwiss:
    key: str
    name: str
    state: SwissState  # after the last round: what the TRF export writes
    rounds: tuple[SwissRound, ...]

    @property
    def standings(self) -> Standings:
        """The final standings (after the last round played)."""
        return self.rounds[-1].standings

    @property
    def winners(self) -> tuple[str, ...]:
        """The teams ranked first (teams still tied after the chain share the place)."""
        return tuple(row.team for row in self.standings.rows if row.rank == 1)


def swiss_team(team: Team) -> SwissTeam:
    """A team as the pairing engine sees it: its name and every rostered player's rating."""
    return SwissTeam(team.name, tuple(entry.player.rating for entry in team.roster))


def swiss_standings(state: SwissState, chain: Sequence[str]) -> Standings:
    """Standings of the rounds recorded, by ``chain`` (a Swiss: no round-robin criteria; the bye scores
    the stage's bye match points)."""
    return compute_standings(
        [team.name for team in state.teams],
        state.matches,
        chain=chain,
        boards=state.boards,
        scoring=state.scoring,
        round_robin=False,
        bye_mp=state.bye_points()[0],
    )


def play_swiss_stage(
    event: EventDefinition,
    stage: StageDef,
    names: Sequence[str],
    *,
    pairer: SwissPairer,
    rng: Random,
    progress: Progress | None = None,
    reserves: Random | None = None,
) -> SimulatedSwiss:
    """Play every round of ``stage`` between the teams ``names``; the initial colour is drawn by lot
    (C.04.6 art. 4.3.1). With ``reserves`` (a generator of its own, so the pairings and results drawn from
    ``rng`` stay reproducible) each team's lineup of each match is drawn by ``fielded_lineup``; without
    it every team plays its main players."""
    teams = {team.name: team for team in event.teams}
    chain = parse_chain(stage.tiebreaks)
    categories = event.team_format.board_categories
    state = start_state(
        [swiss_team(teams[name]) for name in names],
        boards=event.team_format.boards,
        rounds=stage.rounds,
        scoring=event.match_scoring,
        initial_colour=rng.choice("WB"),
        pairing=stage.pairing,
        name=f"{event.name}: {stage.name}",
    )
    played: list[SwissRound] = []
    for round_no in range(1, stage.rounds + 1):
        pairing = pairer.pair_round(state, round_no)
        lineups: list[tuple[Lineup, Lineup]] = []
        boards: list[tuple[GameResult, ...]] = []
        matches: list[MatchRecord] = []
        for p in pairing.pairings:
            # Each generator is drawn in the same order as when all lineups were drawn before all games.
            lineup = (
                _lineup(teams[p.first], categories, reserves),
                _lineup(teams[p.second], categories, reserves),
            )
            results = _play_boards(rng, *lineup)
            lineups.append(lineup)
            boards.append(results)
            matches.append(MatchRecord(round_no, p.first, p.second, *match_game_points(results)))
        bye = pairing.bye_record(state)
        if bye is not None:
            matches.append(bye)
        state = record_round(state, matches)
        standings = swiss_standings(state, chain)
        played.append(SwissRound(pairing, tuple(matches), standings, tuple(boards), tuple(lineups)))
        if progress is not None:
            progress(len(pairing.pairings))
    return SimulatedSwiss(stage.key, stage.name, state, tuple(played))


def _lineup(team: Team, categories: Sequence[Category], reserves: Random | None) -> Lineup:
    return team.main_players if reserves is None else fielded_lineup(team, categories, reserves)


def fielded_lineup(team: Team, categories: Sequence[Category], rng: Random) -> Lineup:
    """The players a team fields in one match: with probability ``RESERVE_CHANCE`` (when it has a reserve)
    one main player, drawn at random, rests and a reserve plays, else the main players on their boards.

    The lineup keeps the board order of the team list (docs/rules.md §10, TRF-2026 record 310): the main
    players by board, then the reserves. So the players listed after the one resting move up a board and
    the reserve, listed after the last main board, plays the last board. A lineup that would seat a player
    on a board of another category (an event whose boards have categories, docs/rules.md §1) is not
    fielded: the main players play."""
    if rng.random() >= RESERVE_CHANCE:
        return team.main_players
    listed = sorted(
        (entry for entry in team.roster if entry.main_board is not None), key=lambda e: e.main_board or 0
    )
    spare = [entry for entry in team.roster if entry.main_board is None]
    if not spare or not listed:
        return team.main_players
    resting = rng.randrange(len(listed))
    reserve = rng.choice(spare)
    fielded = [entry for index, entry in enumerate(listed) if index != resting] + [reserve]
    if any(entry.category is not category for entry, category in zip(fielded, categories, strict=True)):
        return team.main_players
    return tuple(entry.player for entry in fielded)


def _play_boards(rng: Random, first: Lineup, second: Lineup) -> tuple[GameResult, ...]:
    """The board results, White's side; the first-named team has White on the odd boards (Olympiad 2026
    Art. 4.1)."""
    results: list[GameResult] = []
    for a, b, colour in zip(first, second, board_colours(len(first)), strict=True):
        white, black = (a, b) if colour == "W" else (b, a)
        results.append(play_game(rng, white.rating, black.rating))
    return tuple(results)
