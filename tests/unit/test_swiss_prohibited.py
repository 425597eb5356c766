"""TRF-2026 record 260: teams that may not be paired with each other in a range of rounds, an absolute
criterion like C.04.6 art. 2.1.1's "shall not play each other more than once" (docs/trf.md)."""

from __future__ import annotations

import pytest

from orchestrator.domain.swiss.model import Prohibition, SwissError, SwissState
from orchestrator.domain.swiss.pairing import Pairing, RoundPairing, SwissPairingError, check_pairing
from orchestrator.domain.swiss.systems import pairer_for
from orchestrator.domain.trf.swiss import export_trf
from orchestrator.domain.trf.swiss_read import TrfInvalid, read_team_trf
from tests.support.swiss_systems import TRF_SYSTEMS, rated_field, tpn_pairs


def six(system: str = "fide-team-swiss", *prohibitions: Prohibition) -> SwissState:
    return rated_field(6, system, prohibitions=prohibitions)


@pytest.mark.parametrize("system", TRF_SYSTEMS)
def test_a_prohibited_pair_forces_the_next_pairing_of_the_bracket(system: str) -> None:
    """Six teams in one bracket: 1-4, 2-5, 3-6. Teams 1 and 4 may not meet: the first transposition of the
    bottom half that keeps them apart, 1-5, 2-4, 3-6."""
    assert tpn_pairs(six(system)) == {(1, 4), (2, 5), (3, 6)}
    barred = six(system, Prohibition(1, 3, frozenset({"T1", "T4"})))
    assert tpn_pairs(barred) == {(1, 5), (2, 4), (3, 6)}


def test_a_prohibition_outside_its_rounds_bars_nothing() -> None:
    state = six("fide-team-swiss", Prohibition(2, 3, frozenset({"T1", "T4"})))
    assert tpn_pairs(state) == {(1, 4), (2, 5), (3, 6)}
    assert state.may_meet("T1", "T4", 1) and not state.may_meet("T1", "T4", 2)
    assert state.prohibited("T1", 3) == {"T4"} and state.prohibited("T2", 3) == frozenset()


def test_a_pairing_of_prohibited_teams_is_refused() -> None:
    state = six("fide-team-swiss", Prohibition(1, 1, frozenset({"T1", "T4"})))
    pairing = RoundPairing(1, (Pairing(1, "T1", "T4"), Pairing(2, "T2", "T5"), Pairing(3, "T3", "T6")), None)
    with pytest.raises(SwissPairingError, match="T1 and T4 may not be paired"):
        check_pairing(state, pairing)


def test_a_prohibition_of_unknown_teams_is_refused() -> None:
    with pytest.raises(SwissError, match="unknown teams: T9"):
        six("fide-team-swiss", Prohibition(1, 1, frozenset({"T1", "T9"})))


def test_record_260_is_read_with_its_teams_and_pairs_the_file() -> None:
    text = export_trf(six())
    state, _ = read_team_trf(text + "260   1   3    1    4\r\n260   2   5    2    3\t 5\n")
    assert state.prohibitions == (
        Prohibition(1, 3, frozenset({"T1", "T4"})),
        Prohibition(2, 5, frozenset({"T2", "T3", "T5"})),
    )
    assert tpn_pairs(state) == {(1, 5), (2, 4), (3, 6)}


def test_every_problem_of_a_record_260_is_named_by_line() -> None:
    text = export_trf(six())
    n = len(text.splitlines())
    bad = [
        "260   3   1    1    4",
        "260   1   9    1    4",
        "260   1   1    1    8",
        "260   1   1    1",
        "260   1",
    ]
    with pytest.raises(TrfInvalid) as caught:
        read_team_trf(text + "\n".join(bad) + "\n")
    assert [str(p) for p in caught.value.problems] == [
        f"line {n + 1}: record 260: rounds 3 to 1 are not a range of rounds",
        f"line {n + 2}: record 260: round 9 is after the last round (5)",
        f"line {n + 3}: record 260 names team 8, which the file does not have",
        f"line {n + 4}: record 260 names fewer than two teams (from column 13)",
        f"line {n + 5}: the last round (columns 9-11) is missing",
        f"line {n + 5}: record 260 names fewer than two teams (from column 13)",
    ]


def test_a_round_where_every_pair_is_prohibited_cannot_be_paired() -> None:
    state = rated_field(3, prohibitions=(Prohibition(1, 2, frozenset({"T1", "T2", "T3"})),))
    with pytest.raises(SwissPairingError, match="every remaining pairing is a rematch or prohibited"):
        pairer_for(state.pairing).pair_round(state, 1)
