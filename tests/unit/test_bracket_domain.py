"""Bracket slots as the bracket and the records write them (docs/rules.md §3 play-off table)."""

from __future__ import annotations

from orchestrator.domain.bracket import LoserOf, PoolPlace, WinnerOf


def test_slots_are_written_stage_pool_place_or_winner_and_loser_of_a_duel() -> None:
    assert str(PoolPlace("top", "A", 2)) == "top A 2"
    assert str(PoolPlace("swiss", "", 1)) == "swiss 1"  # a Swiss stage has one table, no pool letter
    assert str(WinnerOf("IV")) == "winner IV"
    assert str(LoserOf("V")) == "loser V"
