"""One duel's use cases read that duel's rows only (``load_duel``), and read them as the whole stage's
context has them: the same matches, boards, Armageddon, teams and lots."""

from __future__ import annotations

import pytest

from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.services.playoff._context import StageContext, load_duel, load_stage
from orchestrator.services.playoff.armageddon import commit_armageddon_lot
from orchestrator.services.playoff.storage import lot_purpose
from tests.support.playoff import SEED_B, PlayoffSetup, draw_category, duel, play_duel, playoff_with_bracket


@pytest.fixture
def setup(uow_factory: UnitOfWorkFactory) -> PlayoffSetup:
    built = playoff_with_bracket(uow_factory)
    play_duel(uow_factory, built, "I", "WWWLLL", "DDDDDD")  # level: an Armageddon, its category lot
    play_duel(uow_factory, built, "II", "WWWWWW", "LLLLLL")  # level too, with a lot of its own
    draw_category(uow_factory, built, "I")  # its Armageddon exists once its category is drawn
    with uow_factory() as uow:
        commit_armageddon_lot(
            uow, duel_id=duel(uow, built, "II").id or 0, which="category", actor="arbiter", seed=SEED_B
        )
    return built


def _rows_of(ctx: StageContext, key: str) -> tuple[object, ...]:
    """What ``ctx`` holds of duel ``key``, as comparable values."""
    found = ctx.duels[key]
    matches = ctx.matches[found.id or 0]
    return (
        found.id,
        [(m.id, m.leg) for m in matches],
        [[(b.id, b.board_no, b.result) for b in ctx.boards[m.id or 0]] for m in matches],
        ctx.armageddons.get(found.id or 0),
        ctx.name(found.first_team_id),
        ctx.name(found.second_team_id),
        {
            p: lot.id
            for p, lot in ctx.lots.items()
            if p in (lot_purpose(key, "category"), lot_purpose(key, "colour"))
        },
    )


@pytest.mark.parametrize("key", ["I", "II", "III"])
def test_a_duel_is_read_alone_as_the_whole_stage_reads_it(
    uow_factory: UnitOfWorkFactory, setup: PlayoffSetup, key: str
) -> None:
    with uow_factory() as uow:
        whole = load_stage(uow, setup.playoff_stage_id)
        alone, found = load_duel(uow, duel(uow, setup, key).id or 0)
        assert found is whole.duels[key]
        assert list(alone.duels) == [key]  # no other duel of the bracket
        assert set(alone.matches) == {found.id}
        assert set(alone.boards) == {m.id for m in whole.matches[found.id or 0]}
        assert set(alone.armageddons) <= {found.id}
        assert set(alone.teams) == {found.first_team_id, found.second_team_id}
        assert set(alone.lots) <= {lot_purpose(key, "category"), lot_purpose(key, "colour")}
        assert _rows_of(alone, key) == _rows_of(whole, key)
        assert alone.specs == whole.specs  # the bracket's shape stays whole
    assert (_rows_of(alone, key)[3] is not None) == (key == "I")  # its Armageddon, once drawn
    if key in ("I", "II"):
        assert set(alone.lots) == {lot_purpose(key, "category")}  # its own lot, not the other duel's
