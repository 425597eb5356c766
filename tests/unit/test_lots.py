"""Draws by lot (docs/rules.md §7): commitment, reproducibility, permutation, uniformity."""

import hashlib
from collections import Counter
from itertools import permutations

import pytest

from orchestrator.domain import lots
from orchestrator.domain.lots import (
    LotError,
    LotKind,
    canonical_order,
    check_lot,
    commitment,
    draw_one,
    draw_order,
    run_lot,
    verify,
)
from tests.support.lots import chi_square, hmac_word, seed_number

SEED = bytes.fromhex("8f" * 8 + "11" * 8 + "a0" * 16)
TEAMS = ("Russia", "India", "USA", "China", "Ukraine", "Poland")


def test_commitment_is_the_sha256_hex_of_the_seed_and_verifies_only_that_seed() -> None:
    assert commitment(SEED) == hashlib.sha256(SEED).hexdigest()
    assert verify(SEED, commitment(SEED))
    assert verify(SEED, commitment(SEED).upper() + "\n")
    assert not verify(SEED[:-1] + b"\x00", commitment(SEED))


def test_the_revealed_seed_reproduces_the_draw_and_the_recorded_lot_checks_out() -> None:
    lot = run_lot(SEED, TEAMS, purpose="Top B tie-break (g)", kind=LotKind.ORDER)
    assert lot.outcome == draw_order(bytes.fromhex(lot.seed_hex), TEAMS, purpose="Top B tie-break (g)")
    assert verify(lot.seed(), lot.commitment)
    assert check_lot(lot)


def test_a_lot_with_a_changed_outcome_or_a_different_seed_fails_the_check() -> None:
    lot = run_lot(SEED, TEAMS, purpose="Top B tie-break (g)", kind=LotKind.ORDER)
    swapped = (lot.outcome[1], lot.outcome[0], *lot.outcome[2:])
    assert not check_lot(lot.__class__(**{**_fields(lot), "outcome": swapped}))
    other = seed_number(1)
    assert not check_lot(lot.__class__(**{**_fields(lot), "seed_hex": other.hex()}))
    assert not check_lot(lot.__class__(**{**_fields(lot), "seed_hex": "not hex"}))


def _fields(lot: lots.Lot) -> dict[str, object]:
    return {name: getattr(lot, name) for name in lot.__slots__}


def test_the_order_candidates_are_typed_in_does_not_change_the_draw() -> None:
    reordered = tuple(reversed(TEAMS))
    assert draw_order(SEED, TEAMS, purpose="p") == draw_order(SEED, reordered, purpose="p")
    assert draw_one(SEED, TEAMS, purpose="p") == draw_one(SEED, reordered, purpose="p")


def test_the_purpose_separates_draws_made_with_the_same_seed() -> None:
    orders = {draw_order(SEED, TEAMS, purpose=f"draw {n}") for n in range(20)}
    assert len(orders) > 10


def test_draw_order_returns_every_candidate_exactly_once() -> None:
    for n in range(30):
        order = draw_order(seed_number(n), TEAMS, purpose="permutation")
        assert sorted(order) == sorted(TEAMS)


def test_candidates_are_sorted_by_canonical_text_and_duplicates_are_refused() -> None:
    assert canonical_order(["Türkiye", "Turkmenistan", "Austria"]) == ("Austria", "Turkmenistan", "Türkiye")
    decomposed = "Tu\u0308rkiye"  # the same name typed with a combining diaeresis
    with pytest.raises(LotError, match="listed twice"):
        canonical_order(["Türkiye", decomposed])
    with pytest.raises(LotError, match="at least one"):
        draw_one(SEED, [], purpose="p")


def test_short_seeds_and_empty_purposes_are_refused() -> None:
    with pytest.raises(LotError, match="at least 16 bytes"):
        draw_order(b"short", TEAMS, purpose="p")
    with pytest.raises(LotError, match="purpose"):
        draw_one(SEED, TEAMS, purpose="  ")


def test_a_single_candidate_is_always_drawn() -> None:
    assert draw_order(SEED, ["India"], purpose="p") == ("India",)
    assert draw_one(SEED, ["India"], purpose="p") == "India"


def test_rejection_sampling_discards_words_above_the_last_full_multiple() -> None:
    bound = 3
    limit = 2**256 - (2**256 % bound)
    # The first word would map to 0 by modulo but lies in the biased tail: it must be skipped.
    assert limit % bound == 0 and (2**256 - 1) % bound == 0
    assert lots._below(bound, iter([2**256 - 1, 7])) == 7 % bound
    assert lots._below(bound, iter([limit - 1])) == (limit - 1) % bound


def test_every_order_of_four_teams_comes_up_about_equally_often_over_fixed_seeds() -> None:
    teams = ("A", "B", "C", "D")
    draws = 4800
    counts = Counter(draw_order(seed_number(n), teams, purpose="uniformity") for n in range(draws))
    assert set(counts) == set(permutations(teams))
    spread = chi_square(counts, permutations(teams), draws)
    # 23 degrees of freedom: the 99.9th percentile is 49.7; a biased shuffle lands far above it.
    assert spread < 49.7, spread


def test_each_category_is_drawn_about_equally_often_over_fixed_seeds() -> None:
    categories = ("open", "women", "junior", "girl")
    draws = 4000
    counts = Counter(
        draw_one(seed_number(n), categories, purpose="Armageddon category") for n in range(draws)
    )
    spread = chi_square(counts, categories, draws)
    assert spread < 16.3, spread  # 3 degrees of freedom, 99.9th percentile


def test_a_modulo_biased_shuffle_would_fail_the_uniformity_check() -> None:
    """The check above can fail: a naive 'swap with any position' shuffle is visibly biased."""
    teams = ("A", "B", "C")
    counts: Counter[tuple[str, ...]] = Counter()
    for n in range(6000):
        items = list(teams)
        for i in range(3):
            j = hmac_word(seed_number(n), "naive", i) % 3
            items[i], items[j] = items[j], items[i]
        counts[tuple(items)] += 1
    spread = chi_square(counts, permutations(teams), 6000)
    assert spread > 20.5  # 5 degrees of freedom, 99.9th percentile
