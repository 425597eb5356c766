"""``olympiad demo --swiss-engine own`` (and the benchmarks built on the demo) pairs a C.04.6 stage by our
engine and any other stage by the engine of the system it names (docs/swiss.md, "Pairing systems"): the
2026 files name the Olympiad Pairing Rules."""

from __future__ import annotations

from pathlib import Path

from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.demo.staff import swiss_pairer
from orchestrator.domain.swiss.c046 import C046Pairer
from orchestrator.domain.swiss.systems import SystemPairer
from orchestrator.services.setup import stage_start
from orchestrator.services.swiss import rounds as swiss_rounds
from tests.support.factories import make_event, stage_id_of

SMALL = Path(__file__).resolve().parents[2] / "events" / "olympiad-2026-small.yaml"


def test_our_engine_is_the_c046_choice_and_other_systems_keep_their_own() -> None:
    pairer = swiss_pairer("own")
    assert isinstance(pairer, SystemPairer) and isinstance(pairer.fide, C046Pairer)
    assert swiss_pairer("gacrux") is None  # the server's default: SystemPairer with gacrux for C.04.6


def test_the_server_pairs_a_round_of_the_small_2026_file_with_our_engine_chosen(
    uow_factory: UnitOfWorkFactory,
) -> None:
    # The demo hands its pairer to pair_next_round: the bare C.04.6 engine refused this stage
    # ("the stage is paired by 'olympiad-2022', not by the 'fide-team-swiss' engine") and the demo waited.
    text = SMALL.read_text()
    assert "pairing: olympiad-2022" in text
    with uow_factory() as uow:
        stage_id = stage_id_of(uow, make_event(uow, text), "open")
        stage_start.start_stage(uow, stage_id=stage_id, actor="test", initial_colour="W")
    with uow_factory() as uow:
        draft = swiss_rounds.pair_next_round(uow, stage_id=stage_id, actor="test", pairer=swiss_pairer("own"))
    assert len(draft.pairings) == 12  # 24 teams
