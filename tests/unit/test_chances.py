"""Chances by Monte Carlo (orchestrator/domain/chances.py, docs/needs.md)."""

from __future__ import annotations

import math
from dataclasses import replace
from random import Random

import pytest

from orchestrator.domain import chances as chances_module
from orchestrator.domain.chances import (
    ChancesError,
    MatchDrawer,
    _extended,
    _groups_of,
    _rank_groups,
    _values_only,
    board_probabilities,
    check_ratings,
    match_distribution,
    pool_chances,
    swiss_chances,
)
from orchestrator.domain.ratings import expected_score
from orchestrator.domain.round_robin import berger_table
from orchestrator.domain.scoring import DEFAULT_SCORING, MatchForfeit, MatchRecord, MatchScoring
from orchestrator.domain.standings import compute_standings
from orchestrator.domain.swiss import ByeValue, SwissTeam, record_round, start_state
from orchestrator.domain.swiss.c046 import C046Pairer
from orchestrator.domain.swiss.pairing import SwissPairingError
from orchestrator.domain.swiss.simulate import swiss_standings
from orchestrator.domain.tiebreaks import PRESETS, build_event

BOARDS = 4
CHAIN = PRESETS["online-2020"]


def _pool(seed: int, played_rounds: int = 6):
    rng = Random(seed)
    teams = [f"T{i}" for i in range(10)]
    lineups = {team: [rng.randint(1900, 2500) for _ in range(BOARDS)] for team in teams}
    played: list[MatchRecord] = []
    fixtures: list[tuple[int, str, str]] = []
    for rnd in berger_table(10):
        for pairing in rnd.pairings:
            a, b = teams[pairing.first - 1], teams[pairing.second - 1]
            if rnd.number <= played_rounds:
                gp = rng.randint(0, 2 * BOARDS)
                played.append(MatchRecord(rnd.number, a, b, gp, 2 * BOARDS - gp))
            else:
                fixtures.append((rnd.number, a, b))
    return teams, lineups, played, fixtures


def _chances(seed: int, simulations: int = 300, sim_seed: int = 7):
    teams, lineups, played, fixtures = _pool(seed)
    return pool_chances(
        teams, played, fixtures, lineups, places=(1, 3), chain=CHAIN, boards=BOARDS,
        simulations=simulations, seed=sim_seed,
    )  # fmt: skip


def test_a_board_follows_the_b02_table_and_keeps_the_expected_score():
    for rating, opponent in [(2000, 2000), (2100, 2000), (2300, 1800), (2700, 2200)]:
        win, draw, loss = board_probabilities(rating, opponent)
        assert win + draw / 2 == pytest.approx(float(expected_score(rating, opponent)))
        assert win + draw + loss == pytest.approx(1.0)
        assert min(win, draw, loss) >= 0
    assert board_probabilities(2000, 2000) == pytest.approx((0.35, 0.30, 0.35))
    assert board_probabilities(2100, 2000)[0] + board_probabilities(2100, 2000)[1] / 2 == pytest.approx(0.64)
    # beyond the table's last band the favourite scores 1 and no draw is left (2650 and up: no 400 cap)
    assert board_probabilities(2700, 1800) == pytest.approx((1.0, 0.0, 0.0))
    # below 2650 a gap of 900 counts as 400 (8.3.1): PD 0.92
    win, draw, _ = board_probabilities(2400, 1500)
    assert win + draw / 2 == pytest.approx(0.92)


def test_a_match_distribution_sums_to_one_and_its_mean_is_the_boards_pd():
    first, second = [2400, 2300, 2200, 2100], [2350, 2350, 2000, 2200]
    dist = match_distribution(first, second)
    assert len(dist) == 2 * BOARDS + 1
    assert sum(dist) == pytest.approx(1.0)
    mean = sum(half * p for half, p in enumerate(dist)) / 2
    expected = sum(float(expected_score(a, b)) for a, b in zip(first, second, strict=True))
    assert mean == pytest.approx(expected)
    with pytest.raises(ChancesError, match="lineups of 1 and 2 boards"):
        match_distribution([2000], [2000, 2000])


def test_chances_are_reproducible_from_the_seed_and_change_with_it():
    assert _chances(1) == _chances(1)
    assert _chances(1) != _chances(1, sim_seed=8)


def test_the_places_are_shared_out_exactly():
    chances = _chances(2)
    for index, k in enumerate(chances.places):
        assert sum(row.chances[index] for row in chances.rows) == pytest.approx(k)
        assert all(0 <= row.chances[index] <= 1 for row in chances.rows)
    for row in chances.rows:
        assert row.chances[0] <= row.chances[1]
    assert [row.chances for row in chances.rows] == sorted(
        (row.chances for row in chances.rows), key=lambda c: [-x for x in c]
    )
    assert chances.of(chances.rows[0].team) is chances.rows[0]
    with pytest.raises(KeyError):
        chances.of("nobody")


def test_a_team_far_ahead_is_certain_and_one_far_behind_has_no_chance():
    teams = ["A", "B", "C", "D"]
    played = [
        MatchRecord(1, "A", "B", 8, 0), MatchRecord(1, "C", "D", 4, 4),
        MatchRecord(2, "A", "C", 8, 0), MatchRecord(2, "B", "D", 8, 0),
    ]  # fmt: skip
    lineups = dict.fromkeys(teams, [2000] * BOARDS)
    chances = pool_chances(
        teams, played, [(3, "A", "D"), (3, "B", "C")], lineups, places=(1, 3), chain=CHAIN, boards=BOARDS,
        simulations=200, seed=1,
    )  # fmt: skip
    assert chances.of("A").chances == (1.0, 1.0)
    assert chances.of("D").chances[0] == 0.0
    assert 0 < chances.of("D").chances[1] < 1


@pytest.mark.parametrize("seed", range(6))
def test_the_places_agree_with_the_standings_engine(seed):
    rng = Random(seed)
    teams = [f"T{i}" for i in range(10)]
    matches = []
    for rnd in berger_table(10):
        for pairing in rnd.pairings:
            gp = rng.choice([2, 3, 4, 4, 4, 5, 6])
            matches.append(
                MatchRecord(rnd.number, teams[pairing.first - 1], teams[pairing.second - 1], gp, 8 - gp)
            )
    history = build_event(teams, matches, boards=BOARDS)
    totals = {team: (history.mp(team), history.gp(team)) for team in teams}
    places = (1, 3, 5)
    groups = _rank_groups(totals, ("MP", "GP"), places)
    if groups is None:
        groups = _groups_of(
            teams, matches, places, chain=CHAIN, start=2, boards=BOARDS, scoring=DEFAULT_SCORING
        )
    standings = compute_standings(teams, matches, chain=CHAIN, boards=BOARDS)
    for k in places:
        mine = {team for group in _top(groups, k) for team in group}
        theirs = {row.team for row in standings.rows if row.rank <= k}
        if len(theirs) == k:
            assert mine == theirs


def _top(groups, k):
    taken, out = 0, []
    for group in groups:
        if taken + len(group) > k:
            break
        out.append(group)
        taken += len(group)
    return out


def test_level_teams_straddling_a_place_share_it():
    totals = {"A": (4, 10), "B": (2, 8), "C": (2, 8), "D": (0, 6)}
    assert _rank_groups(totals, ("MP", "GP"), (2,)) is None
    assert _rank_groups(totals, ("MP", "GP"), (1, 3)) == [["A"], ["B", "C"], ["D"]]
    assert _rank_groups(totals, (), (1,)) is None
    assert _rank_groups(totals, ("GP",), (1,)) == [["A"], ["B", "C"], ["D"]]


def test_bad_requests_are_refused_with_every_problem():
    teams, lineups, played, fixtures = _pool(3)
    with pytest.raises(ChancesError) as error:
        pool_chances(
            teams, played, fixtures, lineups, places=(0,), chain=CHAIN, boards=BOARDS, simulations=0, seed=1
        )
    assert "simulations must be between 1 and 100000, not 0" in str(error.value)
    assert "places must be between 1 and 10" in str(error.value)
    with pytest.raises(ChancesError, match="no match left"):
        pool_chances(
            teams, played, [], lineups, places=(1,), chain=CHAIN, boards=BOARDS, simulations=5, seed=1
        )
    lineups = {**lineups, "T1": [None, 2000, None, None], "T2": []}
    with pytest.raises(ChancesError) as error:
        pool_chances(
            teams, played, fixtures, lineups, places=(1,), chain=CHAIN, boards=BOARDS, simulations=5, seed=1
        )
    assert "T1 has 1 rated players for 4 boards; T2 has 0 rated players for 4 boards" in str(error.value)


def test_check_ratings_keeps_the_first_rated_players_in_board_order():
    assert check_ratings(["A"], {"A": [None, 2100, 2000, 1900, 1800]}, 3) == {"A": (2100, 2000, 1900)}


def _swiss(played_rounds: int):
    rng = Random(4)
    teams = [SwissTeam(f"S{n:02d}", tuple(rng.randint(1800, 2500) for _ in range(5))) for n in range(11)]
    state = start_state(teams, boards=BOARDS, rounds=5)
    pairer = C046Pairer()
    for round_no in range(1, played_rounds + 1):
        pairing = pairer.pair_round(state, round_no)
        matches = [MatchRecord(round_no, p.first, p.second, *_split(rng)) for p in pairing.pairings]
        bye = pairing.bye_record(state)
        state = record_round(state, [*matches, *([bye] if bye else [])])
    return state, {team.name: list(team.ratings) for team in teams}


def _split(rng):
    gp = rng.randint(0, 2 * BOARDS)
    return gp, 2 * BOARDS - gp


def test_a_swiss_stage_is_paired_by_the_engine_round_after_round():
    state, lineups = _swiss(3)

    def run():
        chain = PRESETS["olympiad-2026"]
        return swiss_chances(
            state, lineups, pairer=C046Pairer(), places=(1, 3), chain=chain, simulations=40, seed=3
        )

    chances = run()
    assert chances == run()
    for index, k in enumerate(chances.places):
        assert sum(row.chances[index] for row in chances.rows) == pytest.approx(k)
    assert {row.team for row in chances.rows} == {team.name for team in state.teams}


def test_a_finished_swiss_stage_is_refused():
    state, lineups = _swiss(5)
    with pytest.raises(ChancesError, match="the stage is finished"):
        swiss_chances(
            state,
            lineups,
            pairer=C046Pairer(),
            places=(1,),
            chain=PRESETS["olympiad-2026"],
            simulations=5,
            seed=1,
        )


class _Refusing:
    def pair_round(self, state, round_no):
        raise SwissPairingError("no pairing", round_no=round_no)


def test_a_simulated_round_the_engine_cannot_pair_is_refused_plainly():
    state, lineups = _swiss(3)
    with pytest.raises(ChancesError, match="round 4 of a simulation cannot be paired: no pairing"):
        swiss_chances(
            state,
            lineups,
            pairer=_Refusing(),
            places=(1,),
            chain=PRESETS["olympiad-2026"],
            simulations=2,
            seed=1,
        )


STRONG, WEAK = [3400] * BOARDS, [2650] * BOARDS  # both 2650 and up: no 400 cap; 750 apart: PD 1.00 and 0


def test_a_board_between_close_ratings_has_the_models_exact_draw_share():
    win, draw, loss = board_probabilities(2100, 2000)
    assert draw == pytest.approx(0.30 * math.exp(-((100 / 400) ** 2)), abs=1e-12)
    assert win == pytest.approx(0.64 - draw / 2, abs=1e-12)
    assert loss == pytest.approx(1 - win - draw, abs=1e-12)


def _certain_pool(first_round: list[MatchRecord]):
    """Round 3 of a pool of four whose results are certain: D–A (A wins 8-0), B–C (B wins 6-2)."""
    lineups = {"A": STRONG, "B": [3400, 3400, 3400, 2650], "C": [2650, 2650, 2650, 3400], "D": WEAK}
    return pool_chances(
        ["A", "B", "C", "D"], first_round, [(3, "D", "A"), (3, "B", "C")], lineups,
        places=(1, 2, 3), chain=("MP", "GP", "DE:MP"), boards=BOARDS, simulations=7, seed=5,
    )  # fmt: skip


def test_certain_results_give_certain_places_from_the_running_totals():
    played = [
        MatchRecord(1, "A", "B", 4, 4), MatchRecord(1, "C", "D", 4, 4),
        MatchRecord(2, "A", "C", 5, 3), MatchRecord(2, "B", "D", 5, 3),
    ]  # fmt: skip
    chances = _certain_pool(played)  # A 5 MP 17 GP, B 5 MP 15 GP, C 1 MP 9 GP, D 1 MP 7 GP
    assert [row.team for row in chances.rows] == ["A", "B", "C", "D"]
    assert [row.chances for row in chances.rows] == [(1, 1, 1), (0, 1, 1), (0, 0, 1), (0, 0, 0)]
    assert (chances.simulations, chances.seed, chances.full_rankings) == (7, 5, 0)


def test_certain_results_level_on_the_totals_go_to_the_whole_chain():
    played = [
        MatchRecord(1, "A", "B", 5, 3), MatchRecord(1, "C", "D", 4, 4),
        MatchRecord(2, "A", "C", 2, 6), MatchRecord(2, "B", "D", 6, 2),
    ]  # fmt: skip
    # A 4 MP 15 GP, B 4 MP 15 GP: A won their match (DE:MP); C 3 MP 12 GP; D 1 MP 6 GP
    chances = _certain_pool(played)
    assert chances.of("A").chances == (1, 1, 1)
    assert chances.of("B").chances == (0, 1, 1)
    assert chances.of("C").chances == (0, 0, 1)
    assert chances.full_rankings == 7


@pytest.mark.parametrize(("rating", "opponent"), [(1800, 2700), (2000, 2100), (2300, 2750), (1500, 2400)])
def test_a_board_has_the_same_chances_whichever_side_is_named_first(rating, opponent):
    win, draw, loss = board_probabilities(rating, opponent)
    assert board_probabilities(opponent, rating) == pytest.approx((loss, draw, win), abs=1e-12)
    higher = float(expected_score(opponent, rating))  # the higher-rated player's PD (table 8.1.2, 8.3.1)
    assert win + draw / 2 == pytest.approx(1 - higher, abs=1e-12)


def _certain(first: int, second: int) -> tuple[int, int]:
    return (8, 0) if first > second else (0, 8)


def _certain_swiss_round(state, pairer, round_no):
    """The engine's pairing with certain results: the higher-rated team wins 8-0 (ratings 750 apart)."""
    pairing = pairer.pair_round(state, round_no)
    strength = {team.name: team.ratings[0] for team in state.teams}
    matches = [
        MatchRecord(round_no, p.first, p.second, *_certain(strength[p.first], strength[p.second]))
        for p in pairing.pairings
    ]
    bye = pairing.bye_record(state)
    return record_round(state, [*matches, *([bye] if bye else [])])


def test_a_swiss_stage_with_certain_results_gives_the_engines_final_standings():
    teams = [SwissTeam(f"S{n}", (2650 + 750 * n,) * 5) for n in range(7)]  # any two: PD 1.00 and 0
    state = start_state(teams, boards=BOARDS, rounds=4)
    pairer = C046Pairer()
    for round_no in (1, 2):
        state = _certain_swiss_round(state, pairer, round_no)
    final = state
    for round_no in (3, 4):
        final = _certain_swiss_round(final, pairer, round_no)
    chain = PRESETS["olympiad-2026"]
    standings = swiss_standings(final, chain)
    lineups = {team.name: list(team.ratings) for team in teams}
    chances = swiss_chances(
        state, lineups, pairer=pairer, places=(1, 2, 3, 6), chain=chain, simulations=3, seed=2
    )
    for row in standings.rows:
        level = [r for r in standings.rows if r.rank == row.rank]
        expected = tuple(min(max(k - row.rank + 1, 0), len(level)) / len(level) for k in (1, 2, 3, 6))
        assert chances.of(row.team).chances == pytest.approx(expected), row.team
    assert (chances.simulations, chances.seed) == (3, 2)


def test_a_request_at_the_limits_is_accepted_and_a_bad_one_names_every_problem(monkeypatch):
    played = [MatchRecord(1, "A", "B", 4, 4), MatchRecord(1, "C", "D", 4, 4)]
    lineups = {"A": STRONG, "B": WEAK, "C": STRONG, "D": WEAK}

    def run(fixtures, places, simulations):
        return pool_chances(
            ["A", "B", "C", "D"], played, fixtures, lineups, places=places, chain=("MP", "GP"), boards=BOARDS,
            simulations=simulations, seed=1,
        )  # fmt: skip

    fixtures = [(2, "A", "B"), (2, "C", "D")]
    one = run(fixtures, (4,), 1)  # every team is in the top 4 of 4; one simulation is enough
    assert one.simulations == 1 and one.places == (4,)
    assert all(row.chances == (1.0,) for row in one.rows)
    monkeypatch.setattr("orchestrator.domain.chances.MAX_SIMULATIONS", 2)
    assert run(fixtures, (1,), 2).simulations == 2  # the limit itself is allowed
    with pytest.raises(ChancesError) as error:
        run(fixtures, (5,), 3)
    assert str(error.value) == (
        "simulations must be between 1 and 2, not 3; places must be between 1 and 4, not [5]"
    )
    with pytest.raises(ChancesError) as error:
        run([], (1,), 1)
    assert str(error.value) == "the pool has no match left to play"


def test_a_team_without_a_lineup_has_no_rated_player():
    with pytest.raises(ChancesError) as error:
        check_ratings(["A", "B"], {"A": [2000, 2000]}, 2)
    assert str(error.value) == "no ratings to simulate with: B has 0 rated players for 2 boards"


def test_an_unknown_team_is_a_key_error_naming_it():
    chances = _chances(2, simulations=5)
    with pytest.raises(KeyError, match="nobody"):
        chances.of("nobody")


def test_a_draw_share_capped_by_the_weaker_players_expected_score():
    # 3210 against 2650 (no 400 cap): PD 0.98 and 0.02; the model's draw share 0.042 is above 2 × 0.02
    assert board_probabilities(2650, 3210) == pytest.approx((0.0, 0.04, 0.96), abs=1e-12)
    assert board_probabilities(3210, 2650) == pytest.approx((0.96, 0.04, 0.0), abs=1e-12)


class _Fixed(Random):
    """A generator whose every draw is ``value``."""

    def __init__(self, value: float) -> None:
        super().__init__(0)
        self.value = value

    def random(self) -> float:
        return self.value


def test_a_match_is_drawn_from_the_whole_cumulative_distribution():
    drawer = MatchDrawer({"A": [2000] * BOARDS, "B": [2000] * BOARDS, "S": STRONG, "W": WEAK}, BOARDS)
    assert drawer.draw(_Fixed(0.999999), "A", "B") == (8, 0)  # the top of the range: every board won
    assert drawer.draw(_Fixed(0.0), "A", "B") == (0, 8)
    assert drawer.draw(_Fixed(0.5), "A", "B") == (4, 4)
    assert drawer.draw(_Fixed(0.3), "S", "W") == (8, 0)
    assert drawer.draw(_Fixed(0.3), "W", "S") == (0, 8)


def test_match_points_rank_before_game_points_and_use_the_events_scoring():
    # Round 3 certain: D–A (A wins 8-0), B–C (B wins 6-2). Scoring 3-1-0.
    played = [
        MatchRecord(1, "A", "B", 4, 4), MatchRecord(1, "C", "D", 3, 5),
        MatchRecord(2, "A", "C", 4, 4), MatchRecord(2, "B", "D", 3, 5),
    ]  # fmt: skip
    # After round 3: D 6 MP 10 GP, A 5 MP 16 GP, B 4 MP 13 GP, C 1 MP 9 GP. Under 2-1-0, A (4 MP, 16 GP)
    # would be ahead of D (4 MP, 10 GP); on game points alone the order would be A, B, D, C.
    lineups = {"A": STRONG, "B": [3400, 3400, 3400, 2650], "C": [2650, 2650, 2650, 3400], "D": WEAK}
    for chain in (("MP", "GP", "DE:MP"), ("DE:MP", "MP", "GP")):
        chances = pool_chances(
            ["A", "B", "C", "D"], played, [(3, "D", "A"), (3, "B", "C")], lineups, places=(1, 2, 3),
            chain=chain, boards=BOARDS, scoring=MatchScoring(win=3, draw=1, loss=0), simulations=4, seed=5,
        )  # fmt: skip
        assert [row.team for row in chances.rows] == ["D", "A", "B", "C"], chain
        assert [row.chances for row in chances.rows] == [(1, 1, 1), (0, 1, 1), (0, 0, 1), (0, 0, 0)]
    assert chances.full_rankings == 4  # no total leads the chain: the whole chain every time


def test_a_swiss_stage_with_one_round_left_is_simulated():
    teams = [SwissTeam(f"S{n}", (2650 + 750 * n,) * 5) for n in range(6)]
    state = start_state(teams, boards=BOARDS, rounds=3)
    pairer = C046Pairer()
    for round_no in (1, 2):
        state = _certain_swiss_round(state, pairer, round_no)
    lineups = {team.name: list(team.ratings) for team in teams}
    chances = swiss_chances(
        state, lineups, pairer=pairer, places=(1,), chain=("MP", "GP"), simulations=2, seed=2
    )
    assert chances.of("S5").chances == (1.0,)
    state = _certain_swiss_round(state, pairer, 3)
    with pytest.raises(ChancesError) as error:
        swiss_chances(state, lineups, pairer=pairer, places=(1,), chain=("MP", "GP"), simulations=2, seed=2)
    assert str(error.value) == "the stage is finished: every round has been played"


def _mixed_lineups(count: int, seed: int) -> dict[str, tuple[int, ...]]:
    """Each board's ratings 750 apart across the teams in a shuffled order: every board's result is
    certain (PD 1.00 and 0), and a match can end 8-0, 6-2, 4-4 and so on."""
    rng = Random(seed)
    levels = [list(range(count)) for _ in range(BOARDS)]
    for board in levels:
        rng.shuffle(board)
    return {f"S{n}": tuple(2650 + 750 * board[n] for board in levels) for n in range(count)}


def _mixed_round(state, pairer, round_no, lineups):
    pairing = pairer.pair_round(state, round_no)
    matches = []
    for p in pairing.pairings:
        first = sum(2 for a, b in zip(lineups[p.first], lineups[p.second], strict=True) if a > b)
        matches.append(MatchRecord(round_no, p.first, p.second, first, 2 * BOARDS - first))
    bye = pairing.bye_record(state)
    return record_round(state, [*matches, *([bye] if bye else [])])


@pytest.mark.parametrize("seed", [1, 4, 5, 12, 19, 24, 26])  # all but 1: GP splits teams level on MP
def test_a_swiss_stage_ranked_from_its_running_totals_gives_the_engines_final_standings(seed):
    lineups = _mixed_lineups(7, seed)
    teams = [SwissTeam(name, (*ratings, 2650)) for name, ratings in lineups.items()]
    state = start_state(teams, boards=BOARDS, rounds=4)
    pairer = C046Pairer()
    state = _mixed_round(state, pairer, 1, lineups)
    final = state
    for round_no in (2, 3, 4):
        final = _mixed_round(final, pairer, round_no, lineups)
    chain = ("MP", "GP")
    standings = swiss_standings(final, chain)
    places = tuple(k for k in range(1, 7) if sum(1 for row in standings.rows if row.rank <= k) == k)
    chances = swiss_chances(state, lineups, pairer=pairer, places=places, chain=chain, simulations=2, seed=2)
    for row in standings.rows:
        expected = tuple(1.0 if row.rank <= k else 0.0 for k in places)
        assert chances.of(row.team).chances == expected, row.team
    assert chances.full_rankings == 0


OLYMPIAD, BUCHHOLZ = PRESETS["olympiad-2026"], ("MP", "BH:GP", "BH:MP")  # Buchholz: a bye meets the dummy


@pytest.mark.parametrize(
    ("seed", "bye", "chain"),
    [
        (1, ByeValue(), OLYMPIAD),
        (2, ByeValue(), OLYMPIAD),
        (3, ByeValue(mp=2, gp=6), OLYMPIAD),
        (4, ByeValue(mp=2), OLYMPIAD),
        (5, ByeValue(), OLYMPIAD),
        (1, ByeValue(), BUCHHOLZ),
        (2, ByeValue(), BUCHHOLZ),
        (3, ByeValue(), BUCHHOLZ),
        (3, ByeValue(mp=2, gp=6), ("MP", "DE:MP", "BH:MP")),  # a direct encounter: the standings engine
    ],
)
def test_a_swiss_stage_ranked_by_its_whole_chain_gives_the_engines_final_standings(seed, bye, chain):
    lineups = _mixed_lineups(7, seed)
    teams = [SwissTeam(name, (*ratings, 2650)) for name, ratings in lineups.items()]
    state = start_state(teams, boards=BOARDS, rounds=4, bye=bye)
    pairer = C046Pairer()
    state = _mixed_round(state, pairer, 1, lineups)
    final = state
    for round_no in (2, 3, 4):
        final = _mixed_round(final, pairer, round_no, lineups)
    standings = swiss_standings(final, chain)
    places = tuple(range(1, 7))
    chances = swiss_chances(state, lineups, pairer=pairer, places=places, chain=chain, simulations=2, seed=2)
    for row in standings.rows:
        level = [r for r in standings.rows if r.rank == row.rank]
        expected = tuple(min(max(k - row.rank + 1, 0), len(level)) / len(level) for k in places)
        assert chances.of(row.team).chances == pytest.approx(expected), row.team
    assert chances.full_rankings == 2


def test_a_pool_s_whole_chain_reads_a_forfeit_as_a_round_robin_does():
    # A beat B by forfeit in round 1. Round 3 certain: D–A (A wins 8-0), B–C (B wins 6-2). B, C and D end
    # on 2 match points; in a round robin B's Buchholz counts A as a played opponent (C.07 15.2), so the
    # three stay level (a Swiss reading would give B the dummy instead and put it fourth).
    played = [
        MatchRecord(1, "A", "B", 8, 0, MatchForfeit.A_WINS), MatchRecord(1, "C", "D", 8, 0),
        MatchRecord(2, "A", "C", 8, 0), MatchRecord(2, "B", "D", 0, 8),
    ]  # fmt: skip
    lineups = {"A": STRONG, "B": [3400, 3400, 3400, 2650], "C": [2650, 2650, 2650, 3400], "D": WEAK}
    chances = pool_chances(
        ["A", "B", "C", "D"], played, [(3, "D", "A"), (3, "B", "C")], lineups, places=(1, 2, 3),
        chain=("MP", "BH:MP"), boards=BOARDS, simulations=3, seed=1,
    )  # fmt: skip
    assert chances.of("A").chances == (1, 1, 1)
    for team in "BCD":
        assert chances.of(team).chances == pytest.approx((0, 1 / 3, 2 / 3)), team
    assert chances.full_rankings == 3


class _Counting:
    """The C.04.6 engine, the rounds it pairs counted."""

    def __init__(self) -> None:
        self.engine = C046Pairer()
        self.rounds: list[int] = []

    def pair_round(self, state, round_no):
        self.rounds.append(round_no)
        return self.engine.pair_round(state, round_no)


def test_the_first_round_left_is_paired_once_and_the_others_in_every_simulation():
    state, lineups = _swiss(2)
    pairer = _Counting()
    chances = swiss_chances(
        state, lineups, pairer=pairer, places=(1, 3), chain=PRESETS["olympiad-2026"], simulations=6, seed=3
    )
    assert sorted(pairer.rounds) == [3] + [4] * 6 + [5] * 6
    again = swiss_chances(
        state,
        lineups,
        pairer=C046Pairer(),
        places=(1, 3),
        chain=PRESETS["olympiad-2026"],
        simulations=6,
        seed=3,
    )
    assert chances == again


@pytest.mark.parametrize(
    "chain",
    [
        PRESETS["olympiad-2026"],
        ("MP", "BH:GP", "BH:MP"),
        ("OLY-TB1", "MP", "GP"),
        ("MP", "LOT", "GP"),
        ("MP", "MPvGP", "BH:MP"),  # MPvGP reads the primary score: game points here
        ("GP", "MPvGP", "BH:GP"),  # and match points here
    ],
)
@pytest.mark.parametrize("seed", [1, 2])
def test_splitting_only_the_groups_on_a_place_gives_the_whole_chains_chances(monkeypatch, chain, seed):
    state, lineups = _swiss(seed)
    teams, pool_lineups, played, fixtures = _pool(seed)

    def both():
        swiss = swiss_chances(
            state, lineups, pairer=C046Pairer(), places=(1, 3, 6), chain=chain, simulations=12, seed=seed
        )
        pool = pool_chances(
            teams, played, fixtures, pool_lineups, places=(1, 3), chain=chain, boards=BOARDS,
            simulations=40, seed=seed,
        )  # fmt: skip
        return swiss, pool

    quick = both()
    monkeypatch.setattr(chances_module, "_values_only", lambda codes: False)  # the whole chain each time
    whole = both()
    assert quick == whole
    assert quick[0].full_rankings > 0 and quick[1].full_rankings > 0


def test_only_a_chain_without_a_direct_encounter_is_split_value_by_value():
    assert _values_only(PRESETS["olympiad-2026"]) and _values_only(("MP", "BH:GP", "LOT"))
    assert not _values_only(PRESETS["online-2020"]) and not _values_only(("MP", "DE:GP"))


def test_the_rounds_simulated_extend_the_history_played_as_if_built_at_once():
    state, _lineups = _swiss(5)
    bye_mp = state.bye_points()[0]
    played = [m for m in state.matches if m.round <= 3]
    simulated = [m for m in state.matches if m.round > 3]
    teams = [team.name for team in state.teams]
    base = build_event(teams, played, boards=BOARDS, round_robin=False, bye_mp=bye_mp)
    whole = build_event(teams, state.matches, boards=BOARDS, round_robin=False, bye_mp=bye_mp)
    extended = _extended(base, simulated, bye_mp)
    assert extended == whole
    assert any(m.team_b is None for m in simulated)  # a bye among the rounds simulated


def test_the_criteria_split_value_by_value_count_the_events_match_points(monkeypatch):
    scoring = MatchScoring(win=3, draw=1, loss=0)
    state, lineups = _swiss(2)
    state = replace(state, scoring=scoring)
    teams, pool_lineups, played, fixtures = _pool(2)
    chain = ("MP", "BH:MP", "OLY-TB1")

    def both():
        swiss = swiss_chances(
            state, lineups, pairer=C046Pairer(), places=(1, 3, 6), chain=chain, simulations=12, seed=2
        )
        pool = pool_chances(
            teams, played, fixtures, pool_lineups, places=(1, 3), chain=chain, boards=BOARDS, scoring=scoring,
            simulations=40, seed=2,
        )  # fmt: skip
        return swiss, pool

    quick = both()
    monkeypatch.setattr(chances_module, "_values_only", lambda codes: False)
    assert quick == both()
