"""The pairing systems a Swiss stage can name (docs/swiss.md, "Pairing systems"): each system's engine is
chosen by the stage's ``pairing`` value; over random events every round of ``olympiad-2022`` and
``score-group-halves`` pairs each team once or gives it the bye, repeats no match, never gives a team the
bye twice and is the same when paired again; a round is refused only when no legal round exists (brute
force), naming the round and teams;
the small Olympiad event plays to the end with either system; the TRF names the system in record 192 and
``olympiad pair`` pairs such a file with the same engine."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from orchestrator.cli import app
from orchestrator.domain.scoring import MatchForfeit, MatchRecord
from orchestrator.domain.simulation import simulate_event
from orchestrator.domain.swiss import (
    SwissPairingError,
    SwissState,
    SwissTeam,
    halves,
    mark_absent,
    olympiad2022,
    record_round,
    start_state,
)
from orchestrator.domain.swiss.c046 import C046Pairer
from orchestrator.domain.swiss.olympiad2022 import Olympiad2022Pairer
from orchestrator.domain.swiss.score_group_halves import ScoreGroupHalvesPairer
from orchestrator.domain.swiss.systems import SystemPairer, pairer_for
from orchestrator.domain.trf.swiss import export_trf
from orchestrator.domain.trf.swiss_read import read_team_trf
from orchestrator.eventfile import parse_event
from tests.support.swiss_systems import play, play_event

EVENTS = Path(__file__).resolve().parents[2] / "events"
SMALL = EVENTS / "olympiad-2026-small.yaml"
SYSTEMS = ("olympiad-2022", "score-group-halves")
CODES = {"olympiad-2022": "CUSTOM_TEAM_OLYMPIAD_2022", "score-group-halves": "CUSTOM_TEAM_SCORE_GROUP_HALVES"}


@pytest.mark.parametrize("system", SYSTEMS)
@pytest.mark.parametrize(
    ("size", "rounds", "seed"), [(5, 2, 1), (7, 3, 2), (12, 5, 3), (23, 9, 4), (60, 11, 5)]
)
def test_every_round_of_a_random_event_pairs_each_team_once_without_a_rematch(
    system, size, rounds, seed
) -> None:
    play_event(system, size, rounds, seed, absent_round=2)


@settings(max_examples=30, deadline=None)
@given(
    system=st.sampled_from(SYSTEMS),
    size=st.integers(5, 60),
    rounds=st.integers(1, 11),
    seed=st.integers(0, 2**32),
    absent_round=st.integers(0, 11),
)
def test_any_event_of_five_to_sixty_teams_is_paired_by_the_rules(
    system, size, rounds, seed, absent_round
) -> None:
    # With at most (teams - 1) / 2 rounds a legal round always exists: each team can still meet at least
    # half of the others (Dirac's theorem), whichever team has the bye.
    play_event(system, size, min(rounds, (size - 1) // 2), seed, absent_round)


def legal_round_exists(state: SwissState, round_no: int) -> bool:
    """Brute force: some team may have the bye (when the number is odd) and the rest can be paired without
    a rematch. Bye eligibility: no earlier bye; for olympiad-2022 also no match won by default."""
    names = list(state.available(round_no))

    def pairable(rest: list[str]) -> bool:
        if not rest:
            return True
        first = rest[0]
        return any(
            not state.have_played(first, other) and pairable([t for t in rest[1:] if t != other])
            for other in rest[1:]
        )

    def may_have_bye(team: str) -> bool:
        won_by_default = any(
            (m.forfeit is MatchForfeit.A_WINS and m.team_a == team)
            or (m.forfeit is MatchForfeit.B_WINS and m.team_b == team)
            for m in state.matches
        )
        return not state.had_bye(team) and not (state.pairing == "olympiad-2022" and won_by_default)

    if len(names) % 2 == 0:
        return pairable(names)
    return any(may_have_bye(n) and pairable([t for t in names if t != n]) for n in names)


@settings(max_examples=40, deadline=None)
@given(system=st.sampled_from(SYSTEMS), size=st.integers(4, 10), seed=st.integers(0, 2**32))
def test_a_round_is_refused_only_when_no_legal_round_exists(system: str, size: int, seed: int) -> None:
    # Small events played until a round cannot be paired (a round robin's worth of rounds and more).
    rng = Random(seed)
    state = start_state([SwissTeam(f"T{n}") for n in range(size)], boards=4, rounds=size, pairing=system)
    for round_no in range(1, size + 1):
        try:
            pairing = pairer_for(system).pair_round(state, round_no)
        except SwissPairingError as refused:
            assert refused.round_no == round_no
            assert not legal_round_exists(state, round_no), f"round {round_no} refused: {refused}"
            return
        state = play(state, pairing, rng)


@pytest.mark.parametrize("system", SYSTEMS)
def test_an_unpairable_round_is_refused_naming_the_round_and_the_teams(system: str) -> None:
    # Six teams; in rounds 1-3 A met B, C and D. E and F are absent from round 4, so A, B, C, D are to be
    # paired and A can meet none of them (B-C, B-D, C-D have not met, so not every pair is a rematch).
    names = "ABCDEF"
    rounds = [("AB", "CE", "DF"), ("AC", "BF", "DE"), ("AD", "BE", "CF")]
    state = SwissState(tuple(SwissTeam(n) for n in names), boards=4, rounds=5, pairing=system)
    for number, pairs in enumerate(rounds, 1):
        state = record_round(state, [MatchRecord(number, a, b, 4, 4) for a, b in pairs])
    state = mark_absent(mark_absent(state, "E", round_no=4), "F", round_no=4)
    with pytest.raises(SwissPairingError) as refused:
        pairer_for(system).pair_round(state, 4)
    assert str(refused.value) == (
        f"round 4 cannot be paired by {system}: every way of pairing them repeats a match already played; "
        "teams to pair: A, B, C, D"
    )
    assert (refused.value.round_no, refused.value.teams) == (4, ("A", "B", "C", "D"))


def test_each_system_is_paired_by_its_own_engine_and_no_other() -> None:
    state = start_state([SwissTeam(n) for n in "ABCD"], boards=4, rounds=3, pairing="olympiad-2022")
    assert isinstance(pairer_for("olympiad-2022"), Olympiad2022Pairer)
    assert isinstance(pairer_for("score-group-halves"), ScoreGroupHalvesPairer)
    assert isinstance(pairer_for("fide-team-swiss"), C046Pairer)
    with pytest.raises(SwissPairingError, match="paired by 'olympiad-2022', not by the 'fide-team-swiss'"):
        C046Pairer().pair_round(state, 1)
    with pytest.raises(SwissPairingError, match="not by the 'score-group-halves' engine"):
        ScoreGroupHalvesPairer().pair_round(state, 1)
    assert SystemPairer().pair_round(state, 1) == Olympiad2022Pairer().pair_round(state, 1)


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_small_olympiad_plays_to_the_end_with_the_system(system: str) -> None:
    event = parse_event(SMALL.read_text(), source=SMALL.name)
    event = replace(
        event, stages=tuple(replace(s, pairing=system) if s.is_swiss else s for s in event.stages)
    )
    result = simulate_event(event, seed=7)
    (swiss,) = result.swiss
    assert swiss.state.pairing == system
    assert len(swiss.rounds) == swiss.state.rounds == 11
    met: set[frozenset[str]] = set()
    entrants = sorted(team.name for team in swiss.state.teams)
    for rnd in swiss.rounds:
        named = sorted(t for p in rnd.pairing.pairings for t in (p.first, p.second))
        assert named == entrants  # 24 teams: no bye
        pairs = {frozenset((p.first, p.second)) for p in rnd.pairing.pairings}
        assert not pairs & met
        met |= pairs
    assert result.champions == swiss.winners
    assert f"192 {CODES[system]}" in export_trf(swiss.state).splitlines()


def test_olympiad_simulate_plays_a_copy_of_the_small_event_with_another_system(tmp_path: Path) -> None:
    copy = tmp_path / "small.yaml"
    copy.write_text(SMALL.read_text().replace("pairing: olympiad-2022", "pairing: score-group-halves"))
    done = CliRunner().invoke(app, ["simulate", str(copy), "--seed", "3", "--trf-dir", str(tmp_path)])
    assert done.exit_code == 0, done.output
    assert "standings after round 11" in done.output
    (trf,) = tmp_path.glob("*.trf")
    assert "192 CUSTOM_TEAM_SCORE_GROUP_HALVES" in trf.read_text(encoding="latin-1").splitlines()


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_trf_of_a_stage_reads_back_and_olympiad_pair_pairs_it_with_the_same_engine(system: str) -> None:
    pytest.importorskip("gacrux")
    from orchestrator.adapters.gacrux_pairing import TrfPairingError, pair_trf_file

    state = replace(play_event(system, 9, 3, 21), rounds=5)  # three rounds of five played
    trf = export_trf(state)
    read, next_round = read_team_trf(trf)
    assert (read.pairing, next_round) == (system, 4)
    expected = pairer_for(system).pair_round(state, 4)
    found = pair_trf_file(trf)
    pairs = [(state.tpn(p.first), state.tpn(p.second)) for p in expected.pairings]
    pairs += [(state.tpn(expected.bye), 0)] if expected.bye else []
    assert (found.round, list(found.pairs)) == (4, pairs)
    with pytest.raises(TrfPairingError, match=f"record 192 names {CODES[system]}, not a FIDE team Swiss"):
        pair_trf_file(trf, engine="gacrux")


@pytest.mark.parametrize("system", SYSTEMS)
def test_when_too_many_sets_of_floaters_would_be_tried_one_matching_chooses_them(
    system: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With the limit at no set at all, every bracket is decided by the weighted matching; the rounds must
    # still be legal (play_event checks each one).
    monkeypatch.setattr(halves, "MAX_FLOAT_SETS", 0)
    monkeypatch.setattr(olympiad2022, "MAX_FLOAT_SETS", 0)
    for size, rounds, seed in ((9, 4, 31), (24, 11, 32), (41, 11, 33)):
        play_event(system, size, rounds, seed, absent_round=3)
    # Round 1: A beat D 5-3, B beat E 6-2, C beat F 7-1. score-group-halves ranks the winners C, B, A by
    # game points (7, 6, 5) and floats A, which heads the losers' bracket, paired 1 v 3, 2 v 4: the
    # matching floats the same team. olympiad-2022 ranks the winners A, B, C by number and floats C down
    # and the losers' highest, D, up (Olympiad Pairing Rules 2022, art. 6): they meet in the median.
    matches = [MatchRecord(1, a, b, gp, 8 - gp) for a, b, gp in (("A", "D", 5), ("B", "E", 6), ("C", "F", 7))]
    state = SwissState(tuple(SwissTeam(n) for n in "ABCDEF"), 4, 5, tuple(matches), pairing=system)
    found = pairer_for(system).pair_round(state, 2)
    expected = {"score-group-halves": ["BC", "AE", "DF"], "olympiad-2022": ["AB", "CD", "EF"]}[system]
    assert [frozenset((p.first, p.second)) for p in found.pairings] == [frozenset(p) for p in expected]


def test_the_pairings_do_not_depend_on_the_process_string_hashing() -> None:
    # Sets of team names iterate in an order that changes with PYTHONHASHSEED; the rounds must not.
    script = (
        "from tests.support.swiss_systems import play_event\n"
        "for system in ('olympiad-2022', 'score-group-halves'):\n"
        "    state = play_event(system, 33, 11, 5, absent_round=4)\n"
        "    print([(m.round, m.team_a, m.team_b) for m in state.matches])\n"
    )
    root = Path(__file__).resolve().parents[2]
    outputs = [
        subprocess.run(
            [sys.executable, "-c", script],
            cwd=root,
            env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(root)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2")
    ]
    assert outputs[0] == outputs[1] and outputs[0].count("T") > 100
