"""A whole event played in process (domain/simulation.py) with events built by hand, so the results are
known in advance: players rated thousands of points apart win every game (the Elo curve of FIDE B.02 8.1.2
leaves the weaker side a chance below one in ten million), so who meets whom, which colours they have and
who goes through can be worked out without the random generator.

The events: pools then a play-off (docs/rules.md §3, §5), a pool whose every match is drawn 1-1 so that
the tie-break LOT decides (docs/lots.md) and its play-off duel goes to an Armageddon, and two sections
each playing a Swiss stage (docs/sections.md).
"""

from __future__ import annotations

from datetime import UTC, datetime
from itertools import combinations
from typing import Any

import pytest

from orchestrator.domain.bracket import DuelSpec, LoserOf, PoolPlace, WinnerOf
from orchestrator.domain.event import (
    EventDefinition,
    Qualifiers,
    Section,
    SeedRange,
    StageDef,
    StageKind,
    TimeControl,
)
from orchestrator.domain.knockout import ArmageddonClock, DuelReason
from orchestrator.domain.lots import LotKind
from orchestrator.domain.round_robin import berger_table
from orchestrator.domain.scoring import GameResult, MatchScoring
from orchestrator.domain.simulation import SimulationResult, match_count, simulate_event
from orchestrator.domain.swiss.model import SwissState
from orchestrator.domain.swiss.pairing import FIDE_TEAM_SWISS, RoundPairing
from orchestrator.domain.swiss.systems import SystemPairer
from orchestrator.domain.teams import Category, Player, RosterEntry, Sex, Team, TeamFormat

FORMAT = TeamFormat((Category.OPEN, Category.WOMEN), cutoff_year=2000)
GAP = 3000  # rating points between two players: the stronger always wins
W, B = GameResult.WHITE_WINS, GameResult.BLACK_WINS


def team(name: str, seed: int, board1: int, board2: int, *, section: str = "", federation: str = "") -> Team:
    """Board 1 a man (open), board 2 a woman (women's board)."""
    roster = (
        RosterEntry(Player(f"{name} one", f"{name}-1", Sex.MALE, 1990, board1), 1, Category.OPEN),
        RosterEntry(Player(f"{name} two", f"{name}-2", Sex.FEMALE, 1990, board2), 2, Category.WOMEN),
    )
    return Team(name, federation or f"F{seed:02d}", seed, roster, section=section)


def stage(
    key: str,
    name: str,
    kind: StageKind,
    entrants: tuple[SeedRange | Qualifiers, ...],
    *,
    shape: tuple[int, int, int] = (0, 0, 0),
    tiebreaks: tuple[str, ...] = ("MP", "GP"),
    **kw: Any,
) -> StageDef:
    count, size, advance = shape
    return StageDef(key, name, kind, count, size, entrants, advance, tiebreaks, (), **kw)


def event(
    stages: tuple[StageDef, ...], bracket: tuple[DuelSpec, ...], teams: tuple[Team, ...], **kw: Any
) -> EventDefinition:
    return EventDefinition("Cup", "cup", FORMAT, TimeControl(15, 5), stages, bracket, teams, **kw)


# --- pools, then a play-off: the stronger team wins every game ------------------------------------------

# Seed k has both players rated GAP * (10 - k): seed 1 is the strongest.
STRONG = tuple(team(f"T{k}", k, GAP * (10 - k), GAP * (10 - k)) for k in range(1, 9))
PRELIM = stage("pre", "Prelim", StageKind.POOLS, (SeedRange(1, 8),), shape=(2, 4, 2))
PLAYOFF = stage("ko", "Play-off", StageKind.KNOCKOUT, ())
# The third-place duel is listed after the final: the champion is still the final's winner.
BRACKET = (
    DuelSpec("I", "Semi-final", PoolPlace("pre", "A", 1), PoolPlace("pre", "B", 2)),
    DuelSpec("II", "Semi-final", PoolPlace("pre", "B", 1), PoolPlace("pre", "A", 2)),
    DuelSpec("III", "Final", WinnerOf("I"), WinnerOf("II")),
    DuelSpec("IV", "Third place", LoserOf("I"), LoserOf("II")),
)
POOLS_AND_PLAYOFF = event((PRELIM, PLAYOFF), BRACKET, STRONG)


def seed_of(name: str) -> int:
    return int(name[1:])


# Function-scoped on purpose: mutmut selects the tests to run against a mutant by the functions each test
# called while it ran, and a module-scoped fixture runs inside the first test only.
@pytest.fixture
def played() -> SimulationResult:
    return simulate_event(POOLS_AND_PLAYOFF, seed=7)


def test_match_count_adds_round_robin_swiss_and_two_matches_a_duel() -> None:
    # 2 pools of 4: 3 rounds of 2 matches each = 12; four duels of two matches = 8.
    assert match_count(POOLS_AND_PLAYOFF) == 20
    # An odd pool of 5 plays 5 rounds of 2 matches (one team rests each round, C.05 Annex 1).
    odd = event((stage("p", "P", StageKind.POOLS, (SeedRange(1, 5),), shape=(1, 5, 1)),), (), STRONG[:5])
    assert match_count(odd) == 10
    # A Swiss stage of 6 entrants (4 seeds + the top 2 of the pools) over 3 rounds: 3 matches a round.
    swiss = stage(
        "s",
        "S",
        StageKind.SWISS,
        (Qualifiers("pre", 1), SeedRange(7, 10)),
        round_count=3,
        pairing=FIDE_TEAM_SWISS,
    )
    assert match_count(event((PRELIM, swiss), (), STRONG)) == 12 + 9
    # Of 5 Swiss entrants one has the bye each round: 2 matches a round.
    odd_swiss = stage("s", "S", StageKind.SWISS, (SeedRange(1, 5),), round_count=3, pairing=FIDE_TEAM_SWISS)
    assert match_count(event((odd_swiss,), (), STRONG)) == 6


def test_progress_is_told_every_match_played(played: SimulationResult) -> None:
    told: list[int] = []
    simulate_event(POOLS_AND_PLAYOFF, seed=7, progress=told.append)
    assert told == [2] * 6 + [2] * 4
    assert sum(told) == match_count(POOLS_AND_PLAYOFF)


def test_a_simulation_is_reproducible_from_its_seed(played: SimulationResult) -> None:
    assert simulate_event(POOLS_AND_PLAYOFF, seed=7) == played
    other = simulate_event(POOLS_AND_PLAYOFF, seed=8)
    assert other.seed == 8
    assert [lot.seed_hex for lot in other.stages[0].lots] != [lot.seed_hex for lot in played.stages[0].lots]


def test_every_pool_plays_a_round_robin_in_the_order_its_pairing_lot_drew(played: SimulationResult) -> None:
    (prelim,) = played.stages
    assert (prelim.key, prelim.name) == ("pre", "Prelim")
    assert [pool.letter for pool in prelim.pools] == ["A", "B"]
    assert sorted(name for pool in prelim.pools for name in pool.standings.order) == sorted(
        t.name for t in STRONG
    )
    for pool, lot in zip(prelim.pools, prelim.lots, strict=True):
        assert lot.purpose == f"Prelim pool {pool.letter} pairing numbers"
        assert lot.kind is LotKind.ORDER
        assert sorted(lot.candidates) == sorted(pool.standings.order)
        order = lot.outcome
        expected = [
            (rnd.number, order[p.first - 1], order[p.second - 1])
            for rnd in berger_table(4)
            for p in rnd.pairings
        ]
        assert [(m.round, m.team_a, m.team_b) for m in pool.matches] == expected
        assert {frozenset((m.team_a, m.team_b)) for m in pool.matches} == {
            frozenset(pair) for pair in combinations(order, 2)
        }
        members = [seed_of(name) for name in pool.standings.order]
        assert pool.average == sum(GAP * (10 - k) for k in members) / 4


def test_the_stronger_team_takes_both_boards_and_tops_its_pool(played: SimulationResult) -> None:
    for pool in played.stages[0].pools:
        for match in pool.matches:
            a_stronger = seed_of(match.team_a) < seed_of(match.team_b)
            # Two boards won: four half-points (docs/rules.md §2).
            assert (match.gp_a, match.gp_b) == ((4, 0) if a_stronger else (0, 4))
        order = list(pool.standings.order)
        assert order == sorted(order, key=seed_of)
        assert [row.rank for row in pool.standings.rows] == [1, 2, 3, 4]
    a, b = (pool.standings.order for pool in played.stages[0].pools)
    assert played.stages[0].advancing == (a[0], a[1], b[0], b[1])
    # One lot per pool: no tie for LOT to break (and no LOT in the chain).
    assert len(played.stages[0].lots) == 2


def test_the_play_off_follows_the_bracket_and_the_colours_of_a_duel(played: SimulationResult) -> None:
    a, b = (pool.standings.order for pool in played.stages[0].pools)
    duels = {duel.key: duel for duel in played.duels}
    assert [duel.key for duel in played.duels] == ["I", "II", "III", "IV"]
    assert (duels["I"].record.first, duels["I"].record.second) == (a[0], b[1])
    assert (duels["II"].record.first, duels["II"].record.second) == (b[0], a[1])
    assert duels["III"].round_name == "Final"
    for duel in played.duels:
        first, second = duel.record.first, duel.record.second
        stronger = min(first, second, key=seed_of)
        assert duel.outcome.winners == (stronger,)
        assert duel.outcome.reason is not DuelReason.ARMAGEDDON_NEEDED
        assert duel.armageddon is None
        assert duel.record.boards == 2
        # Match 1: the first-named team has White on board 1; match 2: Black (docs/rules.md §5).
        one, two = (match.results for match in duel.record.matches)
        if stronger == first:
            assert (one, two) == ((W, B), (B, W))
        else:
            assert (one, two) == ((B, W), (W, B))
    assert duels["III"].outcome.winners == ("T1",)
    assert {duels["IV"].record.first, duels["IV"].record.second} == {
        duels["I"].outcome.loser,
        duels["II"].outcome.loser,
    }


def test_the_champion_is_the_final_s_winner_even_with_a_third_place_duel_after_it(
    played: SimulationResult,
) -> None:
    assert played.champions == ("T1",)
    (section,) = played.sections
    assert (section.key, section.name, section.champions) == ("", "Cup", ("T1",))
    assert (section.final, section.board_tables) == ((), ())
    assert played.swiss == ()
    assert played.combined == ()


def test_every_lot_is_drawn_from_a_256_bit_seed(played: SimulationResult) -> None:
    # As the staff's draws (32 bytes, docs/lots.md): pairing numbers, tie-break LOT, Armageddon lots.
    lots = [*played.stages[0].lots]
    level = simulate_event(level_event(("MP", "GP", "LOT")), seed=5)
    lots += level.stages[0].lots
    state = level.duels[0].armageddon
    assert state is not None and state.category_lot is not None and state.chooser_lot is not None
    lots += [state.category_lot, state.chooser_lot]
    assert [len(bytes.fromhex(lot.seed_hex)) for lot in lots] == [32] * 6


def test_the_event_s_match_scoring_counts_in_pools_and_duels() -> None:
    # 3 points a win (C.07 11.1.1 allows any scoring the event states): the duel winner's two wins are 6.
    three = event((PRELIM, PLAYOFF), BRACKET, STRONG, match_scoring=MatchScoring(3, 1, 0))
    result = simulate_event(three, seed=7)
    for pool in result.stages[0].pools:
        assert [row.values["MP"] for row in pool.standings.rows] == [9, 6, 3, 0]
    for duel in result.duels:
        assert sorted(duel.outcome.mp) == [0, 6]


def test_an_event_of_pools_only_has_no_duels_and_no_champion() -> None:
    result = simulate_event(event((PRELIM,), (), STRONG), seed=1)
    assert result.duels == ()
    assert result.champions == ()
    assert result.sections[0].champions == ()


@pytest.mark.parametrize("apart", [True, False])
def test_winners_of_the_previous_stage_s_pools_are_kept_apart_when_the_stage_asks(apart: bool) -> None:
    # docs/rules.md §3. Seeds 2-9 play two pools of 4: the winners are T2 and T3 (the strongest of each).
    # The next stage takes them with seeds 1 and 10: by strength T1, T2, T3, T10, whose serpentine puts
    # T1 with T10 and T2 with T3, and no swap improves on it: only moving the winners apart separates them.
    ten = tuple(team(f"T{k}", k, GAP * (10 - k), GAP * (10 - k)) for k in range(1, 11))
    first = stage("pre", "Prelim", StageKind.POOLS, (SeedRange(2, 9),), shape=(2, 4, 1))
    entrants = (Qualifiers("pre", 1), SeedRange(1, 1), SeedRange(10, 10))
    second = stage("two", "Second", StageKind.POOLS, entrants, shape=(2, 2, 1), winners_apart=apart)
    result = simulate_event(event((first, second), (), ten), seed=3)
    assert {pool.standings.order[0] for pool in result.stages[0].pools} == {"T2", "T3"}
    pools = [set(pool.standings.order) for pool in result.stages[1].pools]
    assert ({"T2", "T3"} in pools) is not apart


# --- a pool of draws: the tie-break LOT, and an Armageddon ----------------------------------------------

# Seed k: board 1 rated GAP * k, board 2 GAP * (15 - k). Board 1 goes to the higher seed number, board 2
# to the lower: every match ends 1-1 whatever the colours, and every team is level on MP and GP.
LEVEL = tuple(team(f"L{k}", k, GAP * k, GAP * (15 - k)) for k in range(1, 5))
FINAL = (DuelSpec("F", "Final", PoolPlace("lot", "A", 1), PoolPlace("lot", "A", 2)),)


def level_event(chain: tuple[str, ...]) -> EventDefinition:
    pool = stage("lot", "Level", StageKind.POOLS, (SeedRange(1, 4),), shape=(1, 4, 2), tiebreaks=chain)
    return event((pool, PLAYOFF), FINAL, LEVEL)


def test_a_tie_left_by_the_chain_is_broken_by_a_recorded_lot() -> None:
    result = simulate_event(level_event(("MP", "GP", "LOT")), seed=5)
    (pool,) = result.stages[0].pools
    assert all((m.gp_a, m.gp_b) == (2, 2) for m in pool.matches)
    numbering, tie = result.stages[0].lots
    assert numbering.purpose == "Level pool A pairing numbers"
    assert tie.purpose == "Level pool A tie-break LOT"
    assert tie.kind is LotKind.ORDER
    assert sorted(tie.candidates) == ["L1", "L2", "L3", "L4"]
    assert pool.standings.order == tie.outcome
    assert [row.rank for row in pool.standings.rows] == [1, 2, 3, 4]
    assert result.stages[0].advancing == tie.outcome[:2]


def test_without_lot_in_the_chain_the_tied_teams_share_the_place() -> None:
    result = simulate_event(level_event(("MP", "GP")), seed=5)
    (pool,) = result.stages[0].pools
    assert len(result.stages[0].lots) == 1
    assert [row.rank for row in pool.standings.rows] == [1, 1, 1, 1]


def test_a_level_duel_goes_to_an_armageddon_won_by_the_stronger_nominee() -> None:
    result = simulate_event(level_event(("MP", "GP", "LOT")), seed=5)
    (duel,) = result.duels
    first, second = duel.record.first, duel.record.second
    assert [match.results for match in duel.record.matches] != []
    state = duel.armageddon
    assert state is not None
    assert state.category in (Category.OPEN, Category.WOMEN)
    # Each captain nominates the team's highest-rated eligible player: the woman of board 2, rated
    # GAP * (15 - k), is eligible for both categories and outrates board 1.
    nominees = [n.player for n in state.sealed if n is not None]
    assert [p.account for p in nominees if p is not None] == [f"{first}-2", f"{second}-2"]
    assert all(n is not None and not n.by_default for n in state.sealed)
    # The simulated Armageddon is dated on the day of the 2020 final (30 August 2020, 12:00 UTC): both
    # captains nominate at once, ten minutes before the deadline.
    assert state.duel_key == "F"
    assert state.deadline == datetime(2020, 8, 30, 12, 10, tzinfo=UTC)
    assert [n.submitted_at for n in state.sealed if n is not None] == [
        datetime(2020, 8, 30, 12, 0, tzinfo=UTC)
    ] * 2
    assert state.chooser_lot is not None
    # The chooser takes Black (draw odds); the lower seed number's woman is rated 3000 higher and wins.
    assert state.white is not None and state.white != state.chooser_lot.chosen
    stronger = min(first, second, key=lambda name: int(name[1:]))
    assert duel.outcome.reason is DuelReason.ARMAGEDDON
    assert duel.outcome.winners == (stronger,)
    assert duel.record.armageddon is not None
    assert result.champions == (stronger,)


# --- two sections, each a Swiss stage -------------------------------------------------------------------

OPEN_TEAMS = tuple(team(f"O{k}", k, GAP * (10 - k), GAP * (10 - k)) for k in range(1, 5))
# The same four federations enter both sections (the combined classification adds their places).
WOMEN_TEAMS = tuple(
    team(f"X{k}", k + 4, GAP * (10 - k), GAP * (10 - k), section="w", federation=f"F{k:02d}")
    for k in range(1, 5)
)


def sections_event(min_games: int = 3) -> EventDefinition:
    swiss = ("MP", "GP")
    return event(
        (
            stage(
                "o",
                "Open Swiss",
                StageKind.SWISS,
                (SeedRange(1, 4),),
                tiebreaks=swiss,
                round_count=3,
                pairing=FIDE_TEAM_SWISS,
            ),
            stage(
                "w",
                "Women Swiss",
                StageKind.SWISS,
                (SeedRange(5, 8),),
                tiebreaks=swiss,
                round_count=3,
                pairing=FIDE_TEAM_SWISS,
                section="w",
            ),
        ),
        (),
        OPEN_TEAMS + WOMEN_TEAMS,
        sections=(Section("", "Open"), Section("w", "Women", "female")),
        board_prize_min_games=min_games,
    )


@pytest.fixture
def sections_played() -> SimulationResult:
    return simulate_event(sections_event(), seed=11)


def test_each_section_s_swiss_ranks_its_own_teams(sections_played: SimulationResult) -> None:
    assert [s.key for s in sections_played.swiss] == ["o", "w"]
    open_swiss, women_swiss = sections_played.swiss
    # Four teams, three rounds, the stronger always winning: everyone meets everyone once.
    assert open_swiss.standings.order == ("O1", "O2", "O3", "O4")
    assert women_swiss.standings.order == ("X1", "X2", "X3", "X4")
    assert [len(s.rounds) for s in sections_played.swiss] == [3, 3]
    assert sections_played.stages == ()
    assert sections_played.duels == ()


def test_each_section_ends_with_its_champions_final_lines_and_board_tables(
    sections_played: SimulationResult,
) -> None:
    open_section, women = sections_played.sections
    assert (open_section.key, open_section.name, open_section.champions) == ("", "Open", ("O1",))
    assert (women.key, women.name, women.champions) == ("w", "Women", ("X1",))
    # Three wins of 2-0: 6 match points and 6 game points (C.07 11.1.1; docs/rules.md §2).
    first = open_section.final[0]
    assert (first.federation, first.team, first.place, first.mp, first.tiebreaks) == ("F01", "O1", 1, 6, (6,))
    assert [(line.team, line.place, line.mp) for line in women.final] == [
        ("X1", 1, 6),
        ("X2", 2, 4),
        ("X3", 3, 2),
        ("X4", 4, 0),
    ]
    for section, prefix in ((open_section, "O"), (women, "X")):
        assert [table.board for table in section.board_tables] == [1, 2]
        for table in section.board_tables:
            assert {row.player.team for row in table.rows} == {f"{prefix}{k}" for k in range(1, 5)}
            assert [row.place for row in table.rows] == [1, 2, 3, 4]  # three games each: eligible
            assert all(row.player.board == table.board for row in table.rows)
    # With no bracket the event's last Swiss names the champions (the Olympiad's last stage).
    assert sections_played.champions == ("X1",)


def test_the_board_tables_need_the_event_s_games(sections_played: SimulationResult) -> None:
    strict = simulate_event(sections_event(min_games=4), seed=11)
    rows = [row for table in strict.sections[0].board_tables for row in table.rows]
    assert rows and all(not row.eligible and row.games_needed == 1 for row in rows)


def test_two_sections_make_a_combined_classification(sections_played: SimulationResult) -> None:
    rows = sections_played.combined
    # Each federation's two teams finish at the same place: place sums 2, 4, 6, 8 (Appendix 2.II).
    assert [(row.place, row.federation, row.place_sum) for row in rows] == [
        (1, "F01", 2),
        (2, "F02", 4),
        (3, "F03", 6),
        (4, "F04", 8),
    ]
    assert all(row.complete for row in rows)


def test_one_section_of_several_makes_no_combined_classification() -> None:
    one = event(
        sections_event().stages[:1],
        (),
        OPEN_TEAMS,
        sections=(Section("", "Open"),),
    )
    result = simulate_event(one, seed=2)
    assert result.combined == ()
    assert result.sections[0].champions == ("O1",)


def test_a_section_ending_in_pools_has_no_champion_and_no_final_lines() -> None:
    women_pool = stage("wp", "Women pool", StageKind.POOLS, (SeedRange(5, 8),), shape=(1, 4, 1), section="w")
    mixed = event(
        (sections_event().stages[0], women_pool),
        (),
        OPEN_TEAMS + WOMEN_TEAMS,
        sections=(Section("", "Open"), Section("w", "Women", "female")),
    )
    result = simulate_event(mixed, seed=4)
    open_section, women = result.sections
    assert open_section.champions == ("O1",)
    assert (women.champions, women.final, women.board_tables) == ((), (), ())
    assert result.stages[0].pools[0].standings.order == ("X1", "X2", "X3", "X4")


# --- an Armageddon of junior boards ---------------------------------------------------------------------

JUNIORS = TeamFormat((Category.JUNIOR, Category.JUNIOR), cutoff_year=2000)


def junior_team(name: str, seed: int, board1: int, board2: int, *, juniors: bool = True) -> Team:
    """Two main players (juniors, born 2005, unless ``juniors`` is False) and an adult reserve rated far
    above both, who may not play a junior Armageddon."""
    born = 2005 if juniors else 1990
    roster = (
        RosterEntry(Player(f"{name} one", f"{name}-1", Sex.MALE, born, board1), 1, Category.JUNIOR),
        RosterEntry(Player(f"{name} two", f"{name}-2", Sex.MALE, born, board2), 2, Category.JUNIOR),
        RosterEntry(Player(f"{name} adult", f"{name}-r", Sex.MALE, 1990, 40000), None, Category.JUNIOR),
    )
    return Team(name, f"J{seed}", seed, roster)


def junior_event(second: Team) -> EventDefinition:
    # J1 takes board 2, J2 board 1: two 1-1 matches in the pool and in both matches of the final.
    teams = (junior_team("J1", 1, GAP, 4 * GAP), second)
    pool = stage("p", "Pool", StageKind.POOLS, (SeedRange(1, 2),), shape=(1, 2, 2))
    final = (DuelSpec("F", "Final", PoolPlace("p", "A", 1), PoolPlace("p", "A", 2)),)
    clock = ArmageddonClock(white_seconds=360, black_seconds=300)
    return EventDefinition(
        "Juniors", "juniors", JUNIORS, TimeControl(15, 5), (pool, PLAYOFF), final, teams, armageddon=clock
    )


def test_a_junior_armageddon_nominates_the_best_junior_not_the_adult_reserve() -> None:
    result = simulate_event(junior_event(junior_team("J2", 2, 2 * GAP, 3 * GAP)), seed=9)
    (duel,) = result.duels
    state = duel.armageddon
    assert state is not None and state.category is Category.JUNIOR
    assert state.clock == ArmageddonClock(white_seconds=360, black_seconds=300)  # the event's clock
    nominees = {n.team: n.player.account for n in state.sealed if n is not None and n.player is not None}
    assert nominees == {"J1": "J1-2", "J2": "J2-2"}
    # J1's junior (4 x GAP) outrates J2's (3 x GAP) by GAP: J1 wins the Armageddon.
    assert duel.outcome.winners == ("J1",)


def test_a_team_without_an_eligible_player_gets_its_default_nominee_at_the_deadline() -> None:
    # J2's players are adults: no eligible nomination, so at the deadline the default applies, the
    # player of the category's first board in match 2 (docs/rules.md §5).
    result = simulate_event(junior_event(junior_team("J2", 2, 2 * GAP, 3 * GAP, juniors=False)), seed=9)
    state = result.duels[0].armageddon
    assert state is not None and state.revealed
    by_team = {n.team: n for n in state.sealed if n is not None}
    assert by_team["J2"].by_default and by_team["J2"].player is not None
    assert by_team["J2"].player.account == "J2-1"
    assert not by_team["J1"].by_default
    assert result.duels[0].outcome.winners == ("J1",)


# --- stages after a Swiss, a pairer of the caller's, reserves, sections with a play-off ---------------


class CountingPairer:
    """The engine the simulation would use, counting the rounds it is asked to pair."""

    def __init__(self) -> None:
        self.rounds: list[int] = []
        self.engine = SystemPairer()

    def pair_round(self, state: SwissState, round_no: int) -> RoundPairing:
        self.rounds.append(round_no)
        return self.engine.pair_round(state, round_no)


def swiss_then_pools() -> EventDefinition:
    # A Swiss of seeds 1-8 (3 rounds), then its top 4 in two pools of 2 with its winner kept apart from
    # nobody (one winner), then a final between the pools' winners.
    sw = stage("sw", "Swiss", StageKind.SWISS, (SeedRange(1, 8),), round_count=3, pairing=FIDE_TEAM_SWISS)
    fin = stage("fin", "Final pools", StageKind.POOLS, (Qualifiers("sw", 4),), shape=(2, 2, 1))
    final = (DuelSpec("F", "Final", PoolPlace("fin", "A", 1), PoolPlace("fin", "B", 1)),)
    return event((sw, fin, PLAYOFF), final, STRONG)


def test_stages_after_a_swiss_take_its_standings_and_the_caller_s_pairer_pairs_it() -> None:
    pairer = CountingPairer()
    told: list[int] = []
    result = simulate_event(swiss_then_pools(), seed=4, pairer=pairer, progress=told.append)
    assert pairer.rounds == [1, 2, 3]
    (swiss,) = result.swiss
    top = swiss.standings.order[:4]
    assert top == ("T1", "T2", "T3", "T4")  # the stronger team always wins
    (fin,) = result.stages
    assert sorted(team for pool in fin.pools for team in pool.standings.order) == sorted(top)
    # The Swiss winner is the previous stage's one winner: alone, it needs no moving apart.
    assert result.champions == ("T1",)
    assert told == [4, 4, 4, 1, 1, 2]  # three Swiss rounds of 4 matches, two pools of 2, the final
    assert sum(told) == match_count(swiss_then_pools())


def test_swiss_reserves_are_drawn_from_a_generator_of_the_seed() -> None:
    with_reserves = tuple(
        Team(
            t.name,
            t.federation,
            t.seed,
            (
                *t.roster,
                RosterEntry(
                    Player(f"{t.name} r", f"{t.name}-r", Sex.FEMALE, 1990, 100), None, Category.WOMEN
                ),
            ),
        )
        for t in STRONG
    )
    sw = stage("sw", "Swiss", StageKind.SWISS, (SeedRange(1, 8),), round_count=3, pairing=FIDE_TEAM_SWISS)
    resting = event((sw,), (), with_reserves)
    one, two = simulate_event(resting, seed=6), simulate_event(resting, seed=6)
    assert one == two
    fielded = {
        p.account for rnd in one.swiss[0].rounds for pair in rnd.lineups for side in pair for p in side
    }
    assert any(account.endswith("-r") for account in fielded)


def two_section_event(women: StageDef) -> EventDefinition:
    open_pool = stage("op", "Open pool", StageKind.POOLS, (SeedRange(1, 4),), shape=(1, 4, 2))
    final = (DuelSpec("F", "Final", PoolPlace("op", "A", 1), PoolPlace("op", "A", 2)),)
    return event(
        (open_pool, PLAYOFF, women),
        final,
        OPEN_TEAMS + WOMEN_TEAMS,
        sections=(Section("", "Open"), Section("w", "Women", "female")),
    )


def test_a_section_with_a_play_off_is_won_in_its_final_and_a_pool_section_has_no_champion() -> None:
    women = stage("wp", "Women pool", StageKind.POOLS, (SeedRange(5, 8),), shape=(1, 4, 1), section="w")
    result = simulate_event(two_section_event(women), seed=8)
    assert result.champions == ("O1",)
    open_section, women_section = result.sections
    assert open_section.champions == ("O1",)
    assert women_section.champions == ()


def test_the_play_off_names_the_event_s_champions_even_when_a_swiss_section_is_listed_last() -> None:
    women = stage(
        "ws",
        "Women Swiss",
        StageKind.SWISS,
        (SeedRange(5, 8),),
        round_count=3,
        pairing=FIDE_TEAM_SWISS,
        section="w",
    )
    result = simulate_event(two_section_event(women), seed=8)
    assert result.champions == ("O1",)
    assert [s.champions for s in result.sections] == [("O1",), ("X1",)]


def test_a_section_without_stages_ends_with_nothing() -> None:
    empty = event(
        sections_event().stages[:1],
        (),
        OPEN_TEAMS,
        sections=(Section("", "Open"), Section("w", "Women", "female")),
    )
    result = simulate_event(empty, seed=2)
    assert [(s.key, s.champions, s.final, s.board_tables) for s in result.sections][1] == ("w", (), (), ())


FOUR = TeamFormat((Category.OPEN,) * 4, cutoff_year=2000)


def test_four_boards_alternate_colours_board_by_board() -> None:
    # docs/rules.md §1, §5: the first-named team has White on boards 1 and 3 in match 1, on 2 and 4 in
    # match 2; the stronger team wins every game.
    teams = tuple(
        Team(
            f"Q{k}",
            f"Q{k}",
            k,
            tuple(
                RosterEntry(Player(f"Q{k}{b}", f"q{k}{b}", Sex.MALE, 1990, GAP * (5 - k)), b, Category.OPEN)
                for b in range(1, 5)
            ),
        )
        for k in (1, 2)
    )
    pool = stage("p", "Pool", StageKind.POOLS, (SeedRange(1, 2),), shape=(1, 2, 2))
    final = (DuelSpec("F", "Final", PoolPlace("p", "A", 2), PoolPlace("p", "A", 1)),)
    four = EventDefinition("Cup", "cup", FOUR, TimeControl(15, 5), (pool, PLAYOFF), final, teams)
    (duel,) = simulate_event(four, seed=1).duels
    assert (duel.record.first, duel.record.second, duel.record.key) == ("Q2", "Q1", "F")
    one, two = (match.results for match in duel.record.matches)
    assert (one, two) == ((B, W, B, W), (W, B, W, B))  # Q2, the weaker, named first
    assert simulate_event(four, seed=1).stages[0].pools[0].matches[0].gp_a in (0, 8)


def test_an_armageddon_duel_keeps_its_key_round_and_the_event_s_scoring() -> None:
    # Match points 3 a win, 2 a draw: the two drawn matches are worth 4 to each team.
    result = simulate_event(
        event(level_event(("MP", "GP", "LOT")).stages, FINAL, LEVEL, match_scoring=MatchScoring(3, 2, 0)),
        seed=5,
    )
    (duel,) = result.duels
    assert (duel.key, duel.round_name, duel.record.key) == ("F", "Final", "F")
    assert duel.outcome.mp == (4, 4)
    assert duel.armageddon is not None
    (pool,) = result.stages[0].pools
    assert [row.values["MP"] for row in pool.standings.rows] == [6, 6, 6, 6]  # three draws, after the LOT


def test_a_play_off_can_take_its_teams_from_a_swiss_table() -> None:
    # A Swiss has one table and no pool letter: its places are PoolPlace(stage, "", place).
    sw = stage("sw", "Swiss", StageKind.SWISS, (SeedRange(1, 8),), round_count=3, pairing=FIDE_TEAM_SWISS)
    final = (DuelSpec("F", "Final", PoolPlace("sw", "", 2), PoolPlace("sw", "", 1)),)
    result = simulate_event(event((sw, PLAYOFF), final, STRONG), seed=4)
    (duel,) = result.duels
    assert (duel.record.first, duel.record.second) == ("T2", "T1")
    assert result.champions == ("T1",)
