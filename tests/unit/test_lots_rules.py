"""Draws by lot recomputed independently from docs/lots.md steps 3-6 (HMAC-SHA256 words "<purpose>|<k>"
for k = 0, 1, 2, ..., Fisher-Yates from the end), and the refusals with their sentences."""

from __future__ import annotations

import pytest

from orchestrator.domain.lots import (
    MIN_SEED_BYTES,
    Lot,
    LotError,
    LotKind,
    canonical_order,
    check_lot,
    commitment,
    draw_one,
    draw_order,
    run_lot,
)
from tests.support.lots import fisher_yates, hmac_word

SEED = bytes(range(32))
PURPOSE = "Top pool A tie-break LOT"


def test_one_candidate_is_the_first_word_modulo_the_count() -> None:
    names = ["Norway", "India", "China", "USA", "Ukraine"]
    start = sorted(names)  # step 3: ASCII names sort as their UTF-8 bytes
    assert draw_one(SEED, names, purpose=PURPOSE) == start[hmac_word(SEED, PURPOSE, 0) % 5]
    other = "Another purpose"
    assert draw_one(SEED, names, purpose=other) == start[hmac_word(SEED, other, 0) % 5]


def test_an_order_is_fisher_yates_from_the_end_with_one_word_a_step() -> None:
    names = ["E", "D", "C", "B", "A", "F"]
    assert draw_order(SEED, names, purpose=PURPOSE) == fisher_yates(SEED, PURPOSE, names)


def test_refusals_are_sentences() -> None:
    with pytest.raises(LotError, match=r"^a lot needs at least one candidate$"):
        canonical_order([])
    with pytest.raises(LotError, match=r"^a lot candidate cannot be empty$"):
        canonical_order(["A", "  "])
    with pytest.raises(
        LotError, match=r"^a lot needs a purpose \(it keeps draws with the same seed apart\)$"
    ):
        draw_one(SEED, ["A", "B"], purpose=" ")
    with pytest.raises(LotError, match=r"^a lot seed must have at least 16 bytes \(got 15\)$"):
        draw_one(bytes(15), ["A", "B"], purpose=PURPOSE)
    # Exactly the minimum is enough.
    assert draw_one(bytes(MIN_SEED_BYTES), ["A", "B"], purpose=PURPOSE) in ("A", "B")


def test_a_record_whose_candidates_cannot_be_drawn_does_not_check() -> None:
    lot = run_lot(SEED, ["A", "B"], purpose=PURPOSE, kind=LotKind.ORDER)
    assert check_lot(lot)
    broken = Lot(lot.purpose, lot.kind, ("A", "A"), commitment(SEED), SEED.hex(), lot.outcome)
    assert check_lot(broken) is False
