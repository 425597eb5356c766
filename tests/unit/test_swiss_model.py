"""Team Swiss state, initial ranking, bye and colours: golden cases computed by hand (docs/swiss.md)."""

from __future__ import annotations

import pytest

from orchestrator.domain.scoring import MatchForfeit, MatchRecord
from orchestrator.domain.swiss import (
    ByeValue,
    RoundPairing,
    SwissError,
    SwissPairingError,
    SwissTeam,
    add_late_entry,
    bye_match,
    check_pairing,
    check_round_can_be_paired,
    initial_ranking,
    mark_absent,
    record_round,
    start_state,
    withdraw_team,
)
from orchestrator.domain.swiss.pairing import Pairing
from orchestrator.domain.trf.swiss import add_round, export_trf


def t(name: str, *ratings: int, **kwargs) -> SwissTeam:  # type: ignore[no-untyped-def]
    return SwissTeam(name, tuple(ratings), **kwargs)


def test_initial_ranking_orders_by_average_of_the_four_best_then_fifth_then_name() -> None:
    teams = [
        t("Zeta", 2600, 2600, 2600, 2600, 2000),  # average 2600, fifth 2000
        t("Beta", 2600, 2600, 2600, 2600, 2100),  # average 2600, fifth 2100: ahead of Zeta
        t("Alpha", 2600, 2600, 2600, 2600, 2000),  # same as Zeta: alphabetically first
        t("Eta", 2700, 2500, 2650, 2550),  # average 2600 without a fifth player: last of the 2600s
        t("Top", 2000, 2800, 2800, 2800, 2800),  # the four highest are 2800: first
        t("Low", 2400, 2400, 2400, 2401, 2900),  # fifth-best is 2400 even though listed last
    ]
    assert [team.name for team in initial_ranking(teams)] == ["Top", "Beta", "Alpha", "Zeta", "Eta", "Low"]


def test_initial_ranking_compares_averages_exactly() -> None:
    # 2501.25 against 2501.0: a quarter-point difference in the average decides.
    a = t("A", 2500, 2500, 2500, 2505)
    b = t("B", 2501, 2501, 2501, 2501)
    assert [team.name for team in initial_ranking([b, a])] == ["A", "B"]


def test_start_state_numbers_teams_by_initial_ranking() -> None:
    state = start_state([t("B", 2000), t("A", 2100)], boards=4, rounds=3)
    assert state.tpn("A") == 1 and state.tpn("B") == 2


def test_bye_scores_a_drawn_match_and_half_the_boards_unless_configured() -> None:
    state = start_state([t("A"), t("B"), t("C")], boards=4, rounds=2)
    assert state.bye_points() == (1, 4)  # 1 MP, 2 game points (4 half-points)
    state = record_round(state, [MatchRecord(1, "A", "B", 5, 3), bye_match(state, "C", 1)])
    assert state.points("C") == (1, 4)
    assert state.points("A") == (2, 5) and state.points("B") == (0, 3)
    custom = start_state([t("A"), t("B"), t("C")], boards=4, rounds=2, bye=ByeValue(mp=2, gp=8))
    assert custom.bye_points() == (2, 8)


def test_trf_export_gives_the_first_named_team_white_on_odd_boards() -> None:
    state = start_state([t("A", 2500), t("B", 2400)], boards=4, rounds=2)
    state = record_round(state, [MatchRecord(1, "B", "A", 4, 4)])
    players = [line for line in export_trf(state).splitlines() if line.startswith("001")]
    # B (TPN 2) is first-named: its boards 1 and 3 are White, 2 and 4 Black.
    b_colours = [line[96] for line in players[4:8]]
    a_colours = [line[96] for line in players[0:4]]
    assert b_colours == ["w", "b", "w", "b"]
    assert a_colours == ["b", "w", "b", "w"]


def test_trf_export_names_the_pairing_system_and_the_stage_length() -> None:
    text = export_trf(start_state([t("A"), t("B")], boards=4, rounds=9, initial_colour="B"))
    assert "192 FIDE_TEAM_TYPEA_MP_GP" in text.splitlines()
    assert "142 9" in text.splitlines() and "152 B" in text.splitlines()
    assert "352 WBWB" in text.splitlines()


def test_trf_export_leaves_out_teams_not_paired_in_the_next_round() -> None:
    state = start_state([t("A"), t("B"), t("C")], boards=1, rounds=2)
    state = mark_absent(state, "C", round_no=1)
    lines = {line[4:8].strip(): line for line in export_trf(state).splitlines() if line.startswith("001")}
    assert lines["3"][91:99] == "0000 - Z"
    assert len(lines["1"].rstrip()) < 92  # A is to be paired: round 1 left blank


def test_add_round_writes_the_pairing_into_the_players_and_the_bye_into_record_320() -> None:
    state = start_state([t("A"), t("B"), t("C")], boards=2, rounds=2)
    text = add_round(export_trf(state), round_no=1, pairs=[(2, 1), (3, 0)])
    players = {line[4:8].strip(): line for line in text.splitlines() if line.startswith("001")}
    assert players["3"][91:97] == "   1 w"  # B board 1 against A board 1, White
    assert players["2"][91:97] == "   4 w"  # A board 2 against B board 2 (B Black on board 2)
    assert players["5"][91:97] == "0000 -"
    assert "320  1.0  1.0 003" in text.splitlines()


def test_late_entry_gets_the_next_pairing_number_and_joins_in_its_round() -> None:
    state = start_state([t("A", 2500), t("C", 2300)], boards=4, rounds=5)
    state = record_round(state, [MatchRecord(1, "A", "C", 4, 4)])
    state = add_late_entry(state, t("B", 2400, joined=2))
    assert [team.name for team in state.teams] == ["A", "C", "B"]  # numbers already given stay
    assert state.available(1) == ("A", "C") and state.available(2) == ("A", "C", "B")
    with pytest.raises(SwissError, match="already paired"):
        add_late_entry(state, t("D", 2000, joined=1))


def test_withdrawn_and_absent_teams_are_not_paired() -> None:
    state = start_state([t("A"), t("B"), t("C"), t("D")], boards=4, rounds=5)
    state = withdraw_team(state, "D", from_round=2)
    state = mark_absent(state, "B", round_no=3)
    assert state.available(1) == ("A", "B", "C", "D")
    assert state.available(2) == ("A", "B", "C")
    assert state.available(3) == ("A", "C")


def test_a_round_with_too_few_teams_is_refused_naming_round_and_teams() -> None:
    state = start_state([t("A"), t("B")], boards=4, rounds=3)
    state = mark_absent(state, "B", round_no=1)
    with pytest.raises(SwissPairingError, match=r"round 1 cannot be paired: too few teams to pair \(A\)"):
        check_round_can_be_paired(state, 1)


def test_a_round_where_every_pairing_is_a_rematch_is_refused_naming_the_teams() -> None:
    state = start_state([t("A"), t("B")], boards=4, rounds=3)
    state = record_round(state, [MatchRecord(1, "A", "B", 4, 4)])
    with pytest.raises(SwissPairingError, match=r"round 2 .* every remaining pairing is a rematch \(A, B\)"):
        check_round_can_be_paired(state, 2)


def test_a_forfeited_match_does_not_count_as_played() -> None:
    state = start_state([t("A"), t("B")], boards=4, rounds=3)
    state = record_round(state, [MatchRecord(1, "A", "B", 8, 0, MatchForfeit.A_WINS)])
    assert not state.have_played("A", "B")
    assert check_round_can_be_paired(state, 2) == ("A", "B")


def test_only_the_next_round_can_be_paired_and_unknown_systems_are_named() -> None:
    state = start_state([t("A"), t("B")], boards=4, rounds=3)
    with pytest.raises(SwissPairingError, match="the next round is 1"):
        check_round_can_be_paired(state, 2)
    for system, word in (("olympiad-2022", "not by the 'fide-team-swiss' engine"), ("dutch", "unknown")):
        other = start_state([t("A"), t("B")], boards=4, rounds=3, pairing=system)
        with pytest.raises(SwissPairingError, match=word):
            check_round_can_be_paired(other, 1)


def test_check_pairing_refuses_rematches_second_byes_and_missing_teams() -> None:
    state = start_state([t("A"), t("B"), t("C")], boards=4, rounds=3)
    state = record_round(state, [MatchRecord(1, "A", "B", 4, 4), bye_match(state, "C", 1)])
    with pytest.raises(SwissPairingError, match="A and B have already played"):
        check_pairing(state, RoundPairing(2, (Pairing(1, "A", "B"),), "C"))
    with pytest.raises(SwissPairingError, match="B left out"):
        check_pairing(state, RoundPairing(2, (Pairing(1, "A", "C"),), None))
    check_pairing(state, RoundPairing(2, (Pairing(1, "C", "A"),), "B"))


def test_check_pairing_refuses_a_second_bye() -> None:
    state = start_state([t("A"), t("B"), t("C"), t("D"), t("E")], boards=4, rounds=3)
    state = record_round(
        state, [MatchRecord(1, "A", "B", 4, 4), MatchRecord(1, "C", "D", 4, 4), bye_match(state, "E", 1)]
    )
    with pytest.raises(SwissPairingError, match="E cannot receive the pairing-allocated bye"):
        check_pairing(state, RoundPairing(2, (Pairing(1, "A", "C"), Pairing(2, "B", "D")), "E"))
