"""A Swiss stage played in process (domain/swiss/simulate.py) with teams built by hand, without FIDE's
engine: players rated thousands of points apart win every game (the Elo curve of FIDE B.02 8.1.2 leaves the
weaker side a chance below one in ten million), so every result and standing is known in advance.

What is checked: the stage the pairing engine is handed (its name, boards, rounds, scoring, system and the
initial colour drawn by lot, C.04.6 art. 4.3.1), each round's match records, board results (White's side:
the first-named team has White on the odd boards, Olympiad 2026 Art. 4.1) and standings, the bye's record,
the winners sharing first place, and the lineup a team fields when a reserve plays (docs/rules.md §10)."""

from __future__ import annotations

from dataclasses import replace
from random import Random
from typing import Any

from orchestrator.domain.event import EventDefinition, SeedRange, StageDef, StageKind, TimeControl
from orchestrator.domain.scoring import GameResult, MatchRecord, MatchScoring
from orchestrator.domain.standings import compute_standings
from orchestrator.domain.swiss.model import ByeValue, SwissState, SwissTeam, start_state
from orchestrator.domain.swiss.pairing import FIDE_TEAM_SWISS, SCORE_GROUP_HALVES, RoundPairing
from orchestrator.domain.swiss.simulate import (
    RESERVE_CHANCE,
    SimulatedSwiss,
    SwissRound,
    fielded_lineup,
    play_swiss_stage,
    swiss_standings,
    swiss_team,
)
from orchestrator.domain.swiss.systems import SystemPairer
from orchestrator.domain.teams import Category, Player, RosterEntry, Sex, Team, TeamFormat

FORMAT = TeamFormat((Category.OPEN, Category.WOMEN), cutoff_year=2000)
GAP = 3000  # rating points between two teams' players: the stronger always wins
W, B = GameResult.WHITE_WINS, GameResult.BLACK_WINS


def player(account: str, rating: int, sex: Sex = Sex.MALE) -> Player:
    return Player(account.title(), account, sex, 1990, rating)


def team(name: str, seed: int, rating: int, *reserves: RosterEntry) -> Team:
    """Board 1 a man (open), board 2 a woman (women's board), both rated ``rating``."""
    roster = (
        RosterEntry(player(f"{name}-1", rating), 1, Category.OPEN),
        RosterEntry(player(f"{name}-2", rating, Sex.FEMALE), 2, Category.WOMEN),
        *reserves,
    )
    return Team(name, f"F{seed:02d}", seed, roster)


# Seed k rated GAP * (10 - k): T1 the strongest.
TEAMS = tuple(team(f"T{k}", k, GAP * (10 - k)) for k in range(1, 6))
STAGE = StageDef(
    "sw",
    "Swiss",
    StageKind.SWISS,
    0,
    0,
    (SeedRange(1, 5),),
    0,
    ("MP", "GP"),
    (),
    round_count=3,
    pairing=FIDE_TEAM_SWISS,
)
SCORING = MatchScoring(3, 1, 0)
EVENT = EventDefinition("Cup", "cup", FORMAT, TimeControl(15, 5), (STAGE,), (), TEAMS, match_scoring=SCORING)
NAMES = [t.name for t in TEAMS]


class RecordingPairer:
    """The engine the simulation would use, keeping every stage it is handed."""

    def __init__(self) -> None:
        self.states: list[SwissState] = []
        self.engine = SystemPairer()

    def pair_round(self, state: SwissState, round_no: int) -> RoundPairing:
        self.states.append(state)
        return self.engine.pair_round(state, round_no)


class Rolls(Random):
    """A generator whose ``random()`` is ``roll``, ``randrange`` gives ``index`` and ``choice`` the
    element at ``pick``."""

    def __init__(self, roll: float, index: int = 0, pick: int = 0) -> None:
        super().__init__(0)
        self.roll, self.index, self.pick = roll, index, pick

    def random(self) -> float:
        return self.roll

    def randrange(self, *args: Any, **kwargs: Any) -> int:
        return self.index

    def choice(self, seq: Any) -> Any:
        return seq[self.pick]


def stronger(a: str, b: str) -> str:
    return a if int(a[1:]) < int(b[1:]) else b


def test_the_engine_is_handed_the_stage_with_its_name_boards_rounds_scoring_system_and_drawn_colour() -> None:
    pairer = RecordingPairer()
    halves = replace(STAGE, pairing=SCORE_GROUP_HALVES)
    result = play_swiss_stage(EVENT, halves, NAMES, pairer=pairer, rng=Random(5))
    assert [s.rounds_played for s in pairer.states] == [0, 1, 2]
    first = pairer.states[0]
    assert first.name == "Cup: Swiss"
    assert (first.boards, first.rounds, first.scoring, first.pairing) == (2, 3, SCORING, SCORE_GROUP_HALVES)
    assert first.initial_colour == Random(5).choice("WB")
    assert {t.name: t.ratings for t in first.teams} == {
        t.name: (t.roster[0].player.rating,) * 2 for t in TEAMS
    }
    assert (result.key, result.name) == ("sw", "Swiss")
    assert result.state.matches == tuple(m for rnd in result.rounds for m in rnd.matches)
    # The initial colour is drawn from the generator: both colours come up over a few seeds.
    drawn = {
        play_swiss_stage(EVENT, STAGE, NAMES, pairer=SystemPairer(), rng=Random(s)).state.initial_colour
        for s in range(8)
    }
    assert drawn == {"W", "B"}


def test_each_round_s_records_boards_and_lineups_follow_the_pairing_and_the_stronger_team_wins() -> None:
    told: list[int] = []
    result = play_swiss_stage(EVENT, STAGE, NAMES, pairer=SystemPairer(), rng=Random(3), progress=told.append)
    assert told == [2, 2, 2]
    assert [rnd.pairing.round for rnd in result.rounds] == [1, 2, 3]
    mains = {t.name: t.main_players for t in TEAMS}
    for number, rnd in enumerate(result.rounds, 1):
        pairs = [(p.first, p.second) for p in rnd.pairing.pairings]
        assert len(pairs) == 2 and rnd.pairing.bye is not None
        expected = [
            MatchRecord(number, a, b, 4 if stronger(a, b) == a else 0, 0 if stronger(a, b) == a else 4)
            for a, b in pairs
        ]
        # The bye: a drawn match's points and half the boards' game points (docs/swiss.md).
        expected.append(MatchRecord(number, rnd.pairing.bye, None, 2, 0))
        assert list(rnd.matches) == expected
        # White's side: the first-named team has White on board 1, Black on board 2.
        assert list(rnd.boards) == [(W, B) if stronger(a, b) == a else (B, W) for a, b in pairs]
        assert list(rnd.lineups) == [(mains[a], mains[b]) for a, b in pairs]
        assert rnd.standings == swiss_standings(start_state_after(result, number), ("MP", "GP"))
    # 3/1/0: T1 and T2 win every match they play (three, or two and the bye's draw).
    assert result.standings == result.rounds[-1].standings
    assert result.standings.order[0] in ("T1", "T2")
    assert result.winners == (result.standings.order[0],)


def start_state_after(result: SimulatedSwiss, number: int) -> SwissState:
    """The stage's state after round ``number``, rebuilt from the records."""
    state = result.state
    kept = tuple(m for m in state.matches if m.round <= number)
    return SwissState(state.teams, state.boards, state.rounds, kept, state.scoring, pairing=state.pairing)


def test_the_swiss_standings_score_the_bye_with_the_stage_s_bye_points_and_the_swiss_reading() -> None:
    # Two boards, 3/1/0, a bye worth a won match. B and C have the bye in round 3.
    matches = (
        MatchRecord(1, "A", "B", 4, 0),
        MatchRecord(1, "C", "D", 3, 1),
        MatchRecord(2, "A", "C", 1, 3),
        MatchRecord(2, "B", "D", 2, 2),
        MatchRecord(3, "A", "D", 4, 0),
        MatchRecord(3, "B", None, 2, 0),
        MatchRecord(3, "C", None, 2, 0),
    )
    teams = tuple(SwissTeam(n) for n in "ABCD")
    state = SwissState(teams, 2, 3, matches, SCORING, bye=ByeValue(mp=3))
    chain = ("MP", "BH:GP")
    standings = swiss_standings(state, chain)
    assert standings.chain == chain
    # C 3 + 3 + 3 (the bye), A 3 + 0 + 3, B 0 + 1 + 3 (the bye), D 0 + 1 + 0.
    assert [(r.team, r.rank, r.values["MP"]) for r in standings.rows] == [
        ("C", 1, 9),
        ("A", 2, 6),
        ("B", 3, 4),
        ("D", 4, 1),
    ]

    def standings_of(boards: int, round_robin: bool, bye_mp: int | None) -> object:
        return compute_standings(
            "ABCD",
            matches,
            chain=chain,
            boards=boards,
            scoring=SCORING,
            round_robin=round_robin,
            bye_mp=bye_mp,
        )

    assert standings == standings_of(2, False, 3)
    # Each of the stage's facts counts: the boards (a bye's dummy opponent in BH:GP, C.07 16.4), the Swiss
    # reading of unplayed rounds (C.07 16 rather than 15.2) and the bye's match points.
    assert standings != standings_of(6, False, 3)
    assert standings != standings_of(2, True, 3)
    assert standings != standings_of(2, False, None)


def test_teams_sharing_first_place_are_all_winners() -> None:
    teams = [SwissTeam("A"), SwissTeam("B")]
    state = start_state(teams, boards=2, rounds=1)
    state = SwissState(state.teams, 2, 1, (MatchRecord(1, "A", "B", 2, 2),))
    rnd = SwissRound(RoundPairing(1, ()), state.matches, swiss_standings(state, ("MP", "GP")))
    assert SimulatedSwiss("s", "S", state, (rnd,)).winners == ("A", "B")


def test_the_engine_sees_every_rostered_player_s_rating_in_roster_order() -> None:
    reserve = RosterEntry(player("r", 1500), None, Category.OPEN)
    assert swiss_team(team("X", 1, 2000, reserve)) == SwissTeam("X", (2000, 2000, 1500))


def test_rule_10_a_reserve_plays_the_last_board_and_the_players_after_the_one_resting_move_up() -> None:
    assert RESERVE_CHANCE == 0.5
    three = (Category.OPEN, Category.OPEN, Category.OPEN)
    roster = tuple(RosterEntry(player(f"m{b}", 2000 - b), b, Category.OPEN) for b in (3, 1, 2))
    spares = (
        RosterEntry(player("r1", 1500), None, Category.OPEN),
        RosterEntry(player("r2", 1400), None, Category.OPEN),
    )
    squad = Team("X", "F01", 1, roster + spares)
    accounts = lambda lineup: [p.account for p in lineup]  # noqa: E731
    # Board 1 rests: boards 2 and 3 move up, the reserve drawn plays board 3.
    assert accounts(fielded_lineup(squad, three, Rolls(0.0, index=0, pick=0))) == ["m2", "m3", "r1"]
    assert accounts(fielded_lineup(squad, three, Rolls(0.25, index=1, pick=1))) == ["m1", "m3", "r2"]
    assert accounts(fielded_lineup(squad, three, Rolls(0.4999, index=2, pick=0))) == ["m1", "m2", "r1"]
    # At the chance or above, the main players play.
    assert accounts(fielded_lineup(squad, three, Rolls(0.5, index=0))) == ["m1", "m2", "m3"]
    assert accounts(fielded_lineup(squad, three, Rolls(0.9, index=0))) == ["m1", "m2", "m3"]


def test_rule_10_no_reserve_or_no_main_player_means_the_main_players_play() -> None:
    no_spare = team("X", 1, 2000)
    assert fielded_lineup(no_spare, FORMAT.board_categories, Rolls(0.0)) == no_spare.main_players
    only_reserves = Team("Y", "F02", 2, (RosterEntry(player("r", 1500), None, Category.OPEN),))
    assert fielded_lineup(only_reserves, FORMAT.board_categories, Rolls(0.0)) == ()


def test_rule_1_a_reserve_is_not_fielded_when_a_player_would_sit_on_a_board_of_another_category() -> None:
    woman = RosterEntry(player("rw", 1500, Sex.FEMALE), None, Category.WOMEN)
    squad = team("X", 1, 2000, woman)
    mains = [p.account for p in squad.main_players]
    fielded = lambda rolls: [p.account for p in fielded_lineup(squad, FORMAT.board_categories, rolls)]  # noqa: E731
    # The women's board rests: the women's reserve takes it.
    assert fielded(Rolls(0.0, index=1)) == ["X-1", "rw"]
    # Board 1 rests: the woman of board 2 would move to the open board, so the main players play.
    assert fielded(Rolls(0.0, index=0)) == mains
    opener = team("Z", 1, 2000, RosterEntry(player("ro", 1500), None, Category.OPEN))
    # The women's board rests and an open reserve would take it: the main players play.
    assert [p.account for p in fielded_lineup(opener, FORMAT.board_categories, Rolls(0.0, index=1))] == [
        "Z-1",
        "Z-2",
    ]


def test_reserves_are_drawn_from_their_own_generator_and_play_in_the_lineups() -> None:
    woman = RosterEntry(player("rw", 100, Sex.FEMALE), None, Category.WOMEN)
    teams = tuple(team(f"T{k}", k, GAP * (10 - k), woman) for k in range(1, 6))
    event = EventDefinition("Cup", "cup", FORMAT, TimeControl(15, 5), (STAGE,), (), teams)
    one = play_swiss_stage(event, STAGE, NAMES, pairer=SystemPairer(), rng=Random(2), reserves=Random(9))
    two = play_swiss_stage(event, STAGE, NAMES, pairer=SystemPairer(), rng=Random(2), reserves=Random(9))
    assert one == two
    # Each side of a match draws its own lineup: the first-named team and its opponent both field it.
    firsts = [first for rnd in one.rounds for first, _ in rnd.lineups]
    seconds = [second for rnd in one.rounds for _, second in rnd.lineups]
    assert any(p.account == "rw" for side in firsts for p in side)
    assert any(p.account == "rw" for side in seconds for p in side)
    # A reserve rated 100 on board 2 loses that board: the match is 2-2 or worse for its team.
    for rnd in one.rounds:
        for (first, second), results in zip(rnd.lineups, rnd.boards, strict=True):
            for board, (a, b) in enumerate(zip(first, second, strict=True)):
                white_first = board % 2 == 0
                white, black = (a, b) if white_first else (b, a)
                assert results[board] is (W if white.rating > black.rating else B)
