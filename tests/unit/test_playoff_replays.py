"""Realistic play-offs replayed through the services on SQLite: the bracket builds itself from the Top
division's closed standings, duels are decided from stored board results, Armageddons run from lot to
game, forfeits, withdrawals, rulings and open appeals move (or hold) the bracket."""

from __future__ import annotations

from datetime import timedelta

import pytest

from orchestrator.adapters.tables import Appeal, Armageddon, ArmageddonStatus, DuelStatus, Lot, Role
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.db import utcnow
from orchestrator.domain import lots as domain_lots
from orchestrator.domain.knockout import ArmageddonPhase
from orchestrator.errors import Conflict
from orchestrator.services.accounts.users import AuthUser
from orchestrator.services.playoff.armageddon import (
    choose_colour,
    commit_armageddon_lot,
    nominate,
    reveal_armageddon_lot,
)
from orchestrator.services.playoff.armageddon_game import record_armageddon_result, set_armageddon_game
from orchestrator.services.playoff.commands import build_bracket
from orchestrator.services.playoff.read import DuelInfo, bracket_view
from orchestrator.services.playoff.rulings import forfeit_match, record_ruling, withdraw_team
from tests.support.playoff import (
    SEED_B,
    PlayoffSetup,
    draw_category,
    duel,
    duel_match,
    eligible_accounts,
    play,
    play_duel,
    playoff_event,
    playoff_with_bracket,
)

ARBITER = AuthUser(id=0, username="arbiter", role=Role.ARBITER, team_id=None, session_generation=1)


@pytest.fixture
def setup(uow_factory: UnitOfWorkFactory) -> PlayoffSetup:
    return playoff_with_bracket(uow_factory)


def view(uow_factory: UnitOfWorkFactory, setup: PlayoffSetup) -> dict[str, DuelInfo]:
    with uow_factory() as uow:
        bracket = bracket_view(uow, stage_id=setup.playoff_stage_id)
    return {d.key: d for d in bracket.duels()}


def run_armageddon(
    uow_factory: UnitOfWorkFactory, setup: PlayoffSetup, key: str, *, chooser_takes: str, result: str
) -> DuelInfo:
    """Category lot (hash, then seed), both nominations, colour lot, colour choice, the game's result."""
    duel_id, _category = draw_category(uow_factory, setup, key)
    info = view(uow_factory, setup)[key]
    for team in (info.first, info.second):
        with uow_factory() as uow:
            account = eligible_accounts(uow, setup, key, team)[-1]
            nominate(uow, duel_id=duel_id, team_id=setup.team_ids[team], account=account, actor=ARBITER)
    with uow_factory() as uow:
        commit_armageddon_lot(uow, duel_id=duel_id, which="colour", actor="arbiter", seed=SEED_B)
    with uow_factory() as uow:
        chooser = reveal_armageddon_lot(uow, duel_id=duel_id, which="colour", actor="arbiter")
    with uow_factory() as uow:
        choose_colour(
            uow, duel_id=duel_id, team_id=setup.team_ids[chooser], colour=chooser_takes, actor=ARBITER
        )
    with uow_factory() as uow:
        set_armageddon_game(uow, duel_id=duel_id, game_ref="https://lichess.org/AbCd1234/black", actor="arb")
    with uow_factory() as uow:
        record_armageddon_result(uow, duel_id=duel_id, result=result, actor="arbiter")
    return view(uow_factory, setup)[key]


def test_the_bracket_is_built_from_the_closed_top_standings_with_the_first_round_matches(
    uow_factory: UnitOfWorkFactory, setup: PlayoffSetup
) -> None:
    duels = view(uow_factory, setup)
    assert (duels["I"].first, duels["I"].second) == (setup.place_team["A2"], setup.place_team["B3"])
    assert (duels["IV"].first, duels["IV"].second) == (setup.place_team["D2"], setup.place_team["C3"])
    assert duels["V"].first == setup.place_team["A1"] and not duels["V"].second_known
    assert duels["V"].second == "winner IV"
    assert [len(duels[k].matches) for k in ("I", "II", "III", "IV", "V", "IX", "XI")] == [2, 2, 2, 2, 0, 0, 0]
    # Match 2 reverses the colours: the duel's first team has Black on the odd boards.
    assert [m.first_colour_odd for m in duels["I"].matches] == ["White", "Black"]
    with uow_factory() as uow:
        rounds = uow.rounds.rounds_of_stage(setup.playoff_stage_id)
        assert [(r.number, r.name) for r in rounds] == [
            (1, "First round, match 1"),
            (2, "First round, match 2"),
        ]
        assert rounds[0].scheduled_at is not None and rounds[0].scheduled_at.hour == 10


def test_the_bracket_is_refused_while_the_top_standings_are_provisional(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        built = playoff_event(uow, close_top=False)
    with uow_factory() as uow, pytest.raises(Conflict, match="standings are not closed"):
        build_bracket(uow, stage_id=built.playoff_stage_id, actor="arbiter")


def test_a_duel_won_two_nil_sends_its_winner_to_the_quarter_final(
    uow_factory: UnitOfWorkFactory, setup: PlayoffSetup
) -> None:
    play_duel(uow_factory, setup, "I", "WWWDDD", "WWWWDD")
    duels = view(uow_factory, setup)
    assert duels["I"].status == DuelStatus.DECIDED.value
    assert duels["I"].reason == "match_points" and duels["I"].mp == (4, 0)
    assert duels["I"].winners == (setup.place_team["A2"],)
    assert [(m.first_gp, m.second_gp) for m in duels["I"].matches] == [("4.5", "1.5"), ("5.0", "1.0")]
    # Quarter-final VIII is Top D 1st – winner I: its teams and both matches now exist.
    assert (duels["VIII"].first, duels["VIII"].second) == (setup.place_team["D1"], setup.place_team["A2"])
    assert len(duels["VIII"].matches) == 2
    with uow_factory() as uow:
        assert [r.number for r in uow.rounds.rounds_of_stage(setup.playoff_stage_id)] == [1, 2, 3, 4]


def test_a_win_and_a_draw_win_the_duel_three_one_on_match_points(
    uow_factory: UnitOfWorkFactory, setup: PlayoffSetup
) -> None:
    play_duel(uow_factory, setup, "II", "LLLWDD", "DDDDDD")
    duels = view(uow_factory, setup)
    assert duels["II"].mp == (1, 3) and duels["II"].winners == (setup.place_team["A3"],)
    assert duels["VII"].second == setup.place_team["A3"]


def test_a_win_each_goes_to_an_armageddon_that_black_wins_with_a_draw(
    uow_factory: UnitOfWorkFactory, setup: PlayoffSetup
) -> None:
    play_duel(uow_factory, setup, "III", "WWWWDD", "LLLLDD")
    assert view(uow_factory, setup)["III"].status == DuelStatus.ARMAGEDDON.value
    info = run_armageddon(uow_factory, setup, "III", chooser_takes="W", result="½-½")
    arm = info.armageddon
    assert arm is not None and arm.result == "½-½" and arm.white is not None
    assert info.reason == "armageddon" and info.winners == (arm.black,)
    assert arm.white == arm.chooser  # the chooser took White
    assert [n.by_default for n in arm.nominees] == [False, False]
    # Quarter-final VI is Top B 1st – winner III.
    assert view(uow_factory, setup)["VI"].second == arm.black
    # Both lots are public and recomputable from their seeds.
    assert arm.category_lot is not None and arm.colour_lot is not None
    for lot in (arm.category_lot, arm.colour_lot):
        assert lot.seed_hex is not None
        assert domain_lots.commitment(bytes.fromhex(lot.seed_hex)) == lot.commitment
        recomputed = domain_lots.draw_one(bytes.fromhex(lot.seed_hex), lot.candidates, purpose=lot.purpose)
        assert recomputed == lot.outcome


def test_two_drawn_matches_go_to_an_armageddon_that_white_wins(
    uow_factory: UnitOfWorkFactory, setup: PlayoffSetup
) -> None:
    play_duel(uow_factory, setup, "IV", "WDDDDL", "DDDDDD")
    duels = view(uow_factory, setup)
    assert duels["IV"].mp == (2, 2) and duels["IV"].reason == "armageddon_needed"
    assert [(m.first_gp, m.second_gp) for m in duels["IV"].matches] == [("3.0", "3.0"), ("3.0", "3.0")]
    info = run_armageddon(uow_factory, setup, "IV", chooser_takes="B", result="1-0")
    arm = info.armageddon
    assert arm is not None and arm.white != arm.chooser
    assert info.winners == (arm.white,)
    assert view(uow_factory, setup)["V"].second == arm.white


def duel_i_with_match_two_forfeited(
    uow_factory: UnitOfWorkFactory, setup: PlayoffSetup, *, absent_place: str, reason: str = ""
) -> DuelInfo:
    """Duel I: A2 wins match 1 4-2, then the team on ``absent_place`` does not play match 2."""
    with uow_factory() as uow:
        play(uow, duel_match(uow, setup, "I", 1), "WWWWDD")
    with uow_factory() as uow:
        match = duel_match(uow, setup, "I", 2)
        absent = setup.team_ids[setup.place_team[absent_place]]
        forfeit_match(uow, match_id=match.id or 0, absent_team_id=absent, actor="arbiter", reason=reason)
    return view(uow_factory, setup)["I"]


def test_a_team_that_lost_match_one_and_defaults_match_two_loses_the_duel_by_forfeit(
    uow_factory: UnitOfWorkFactory, setup: PlayoffSetup
) -> None:
    info = duel_i_with_match_two_forfeited(uow_factory, setup, absent_place="B3", reason="no show")
    assert info.reason == "forfeit" and info.winners == (setup.place_team["A2"],)
    assert (info.matches[1].first_gp, info.matches[1].second_gp, info.matches[1].forfeit) == (
        "6.0",
        "0.0",
        "-+",
    )


def test_a_team_that_won_match_one_and_defaults_match_two_is_level_and_goes_to_armageddon(
    uow_factory: UnitOfWorkFactory, setup: PlayoffSetup
) -> None:
    info = duel_i_with_match_two_forfeited(uow_factory, setup, absent_place="A2")
    assert info.mp == (2, 2) and info.status == DuelStatus.ARMAGEDDON.value


def test_a_withdrawal_before_a_quarter_final_sends_the_opponent_through_by_forfeit(
    uow_factory: UnitOfWorkFactory, setup: PlayoffSetup
) -> None:
    play_duel(uow_factory, setup, "II", "WWWWDD", "WWWDDD")  # Top B 2nd wins duel II
    winner = setup.place_team["B2"]
    assert view(uow_factory, setup)["VII"].second == winner
    with uow_factory() as uow:
        withdraw_team(uow, team_id=setup.team_ids[winner], actor="arbiter", reason="travel ban")
    duels = view(uow_factory, setup)
    assert duels["II"].winners == (winner,)  # a duel already won keeps its result
    assert duels["VII"].reason == "withdrawal" and duels["VII"].winners == (setup.place_team["C1"],)
    assert duels["VII"].status == DuelStatus.DECIDED.value
    # Its quarter-final matches were already paired: both are forfeited 6–0, no game is played.
    assert [(m.first_gp, m.second_gp, m.forfeit is not None) for m in duels["VII"].matches] == [
        ("6.0", "0.0", True),
        ("6.0", "0.0", True),
    ]
    assert duels["X"].first == setup.place_team["C1"]


def test_a_withdrawal_in_the_middle_of_a_duel_forfeits_its_unplayed_match(
    uow_factory: UnitOfWorkFactory, setup: PlayoffSetup
) -> None:
    with uow_factory() as uow:
        play(uow, duel_match(uow, setup, "III", 1), "WWWWDD")
    gone = setup.place_team["C2"]
    with uow_factory() as uow:
        withdraw_team(uow, team_id=setup.team_ids[gone], actor="arbiter", reason="illness")
    info = view(uow_factory, setup)["III"]
    assert info.reason == "withdrawal" and info.winners == (setup.place_team["D3"],)
    assert info.matches[1].forfeit is not None


def test_an_open_appeal_keeps_the_winner_provisional_and_the_next_duel_waiting(
    uow_factory: UnitOfWorkFactory, setup: PlayoffSetup
) -> None:
    with uow_factory() as uow:
        play(uow, duel_match(uow, setup, "I", 1), "WWWWDD")
        match2 = duel_match(uow, setup, "I", 2)
        uow.rounds.insert(Appeal(match_id=match2.id or 0, deadline_at=utcnow() + timedelta(minutes=15)))
    with uow_factory() as uow:
        play(uow, duel_match(uow, setup, "I", 2), "WWWDDD")
    duels = view(uow_factory, setup)
    assert duels["I"].winners == (setup.place_team["A2"],) and duels["I"].provisional
    assert duels["I"].status != DuelStatus.DECIDED.value
    assert not duels["VIII"].second_known


def test_staff_record_joint_winners_with_a_reason_and_the_next_slot_stays_empty(
    uow_factory: UnitOfWorkFactory, setup: PlayoffSetup
) -> None:
    with uow_factory() as uow:
        d = duel(uow, setup, "I")
        both = [d.first_team_id or 0, d.second_team_id or 0]
        with pytest.raises(Exception, match="reason"):
            record_ruling(uow, duel_id=d.id or 0, winner_team_ids=both, reason=" ", actor="arbiter")
    with uow_factory() as uow:
        record_ruling(
            uow, duel_id=d.id or 0, winner_team_ids=both, reason="disconnection appeal upheld", actor="owner"
        )
    duels = view(uow_factory, setup)
    assert duels["I"].reason == "joint_winners" and "disconnection appeal upheld" in (
        duels["I"].sentence or ""
    )
    assert not duels["VIII"].second_known
    with uow_factory() as uow:
        record_ruling(
            uow, duel_id=d.id or 0, winner_team_ids=both[:1], reason="organiser decision", actor="owner"
        )
    assert view(uow_factory, setup)["VIII"].second == setup.place_team["A2"]


def test_a_whole_play_off_replayed_crowns_a_champion(
    uow_factory: UnitOfWorkFactory, setup: PlayoffSetup
) -> None:
    for key in ("I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI"):
        play_duel(uow_factory, setup, key, "WWWDDD", "DDDDDW")
    with uow_factory() as uow:
        bracket = bracket_view(uow, stage_id=setup.playoff_stage_id)
    # The first-named team wins every duel: A1 beats winner IV (D2), ..., the final is IX's v X's winner.
    assert bracket.champions == (setup.place_team["A1"],)
    assert [name for name, _ in bracket.rounds] == ["First round", "Quarter-final", "Semi-final", "Final"]
    with uow_factory() as uow:
        assert len(uow.rounds.rounds_of_stage(setup.playoff_stage_id)) == 8


def test_the_category_lot_publishes_its_hash_before_the_seed(
    uow_factory: UnitOfWorkFactory, setup: PlayoffSetup
) -> None:
    play_duel(uow_factory, setup, "IV", "DDDDDD", "DDDDDD")
    with uow_factory() as uow:
        duel_id = duel(uow, setup, "IV").id or 0
        lot_id = commit_armageddon_lot(uow, duel_id=duel_id, which="category", actor="arbiter")
    info = view(uow_factory, setup)["IV"]
    assert info.pending_lot is not None and info.pending_lot.seed_hex is None and info.armageddon is None
    with uow_factory() as uow:
        lot = uow.lots.get_or_raise(Lot, lot_id)
        assert lot.sealed_seed_hex is not None and lot.outcome is None
        # Asking again keeps the published hash (no second seed to choose from).
        assert commit_armageddon_lot(uow, duel_id=duel_id, which="category", actor="arbiter") == lot_id
    with uow_factory() as uow:
        category = reveal_armageddon_lot(uow, duel_id=duel_id, which="category", actor="arbiter")
    with uow_factory() as uow:
        lot = uow.lots.get_or_raise(Lot, lot_id)
        assert lot.sealed_seed_hex is None and lot.seed_hex is not None and lot.outcome == [category]
        arm = uow.playoff.armageddon_of_duel(duel_id)
        assert isinstance(arm, Armageddon) and arm.category == category


def test_an_armageddon_row_stores_each_phase_under_the_columns_own_codes_and_reads_it_back() -> None:
    stored = {}
    for phase in ArmageddonPhase:
        if phase is ArmageddonPhase.DRAW_CATEGORY:
            continue  # no row before the category is drawn
        row = Armageddon(
            duel_id=1, category="open", chooser_lot_id=7 if phase is ArmageddonPhase.CHOOSE_COLOUR else None
        )
        row.enter(phase)
        assert row.phase is phase
        stored[phase.value] = row.status
    assert set(stored.values()) == {s.value for s in ArmageddonStatus}  # the CHECK constraint's values


def test_a_bracket_rounds_matches_are_numbered_by_the_duels_place_whichever_is_known_first(
    uow_factory: UnitOfWorkFactory, setup: PlayoffSetup
) -> None:
    """The quarter-final of duel VIII (winner of I) is known before that of duel V (winner of IV): its
    matches still sit at table 4 of their rounds and V's at table 1, as the bracket lists them, so two
    runs whose duels end in another order number the same matches alike."""
    for key in ("I", "IV"):
        play_duel(uow_factory, setup, key, "WWWWDD", "DDWWWW")
    with uow_factory() as uow:
        numbers = {
            (key, m.leg): m.match_no
            for key in ("V", "VIII")
            for m in uow.playoff.matches_of_duels([duel(uow, setup, key).id])[duel(uow, setup, key).id or 0]
        }
    assert numbers == {("V", 1): 1, ("V", 2): 1, ("VIII", 1): 4, ("VIII", 2): 4}
