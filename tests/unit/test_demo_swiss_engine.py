"""``olympiad demo --swiss-engine own`` (and the benchmarks built on the demo) pairs a C.04.6 stage by our
engine and any other stage by the engine of the system it names (docs/swiss.md, "Pairing systems"): the
2026 files name the Olympiad Pairing Rules."""

from __future__ import annotations

from pathlib import Path

from orchestrator.demo.staff import swiss_pairer
from orchestrator.domain.simulation import simulate_event
from orchestrator.domain.swiss.c046 import C046Pairer
from orchestrator.domain.swiss.systems import SystemPairer
from orchestrator.eventfile import parse_event

SMALL = Path(__file__).resolve().parents[2] / "events" / "olympiad-2026-small.yaml"


def test_our_engine_is_the_c046_choice_and_other_systems_keep_their_own() -> None:
    pairer = swiss_pairer("own")
    assert isinstance(pairer, SystemPairer) and isinstance(pairer.fide, C046Pairer)
    assert swiss_pairer("gacrux") is None  # the server's default: SystemPairer with gacrux for C.04.6


def test_the_small_2026_file_is_played_through_with_our_engine_chosen() -> None:
    event = parse_event(SMALL.read_text())
    assert event.stages[0].pairing == "olympiad-2022"
    result = simulate_event(event, seed=5, pairer=swiss_pairer("own"))
    assert result.champions and len(result.swiss[0].state.matches) > 0
