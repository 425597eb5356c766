"""Draws by lot recomputed without the code under test (docs/lots.md, steps 3-6), and the fixed seeds and
chi-square sum the statistical lot tests use (tests/unit/test_lots.py, tests/unit/test_lots_rules.py).

    hmac_word(seed, "Top pool A tie-break LOT", 0)    # step 4's first word, from hmac and hashlib only
    fisher_yates(seed, purpose, names)                # step 6's order, from the end, one word a step
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Mapping


def hmac_word(seed: bytes, purpose: str, k: int) -> int:
    """Step 4: the k-th word, HMAC-SHA256(seed, "<purpose>|<k>") as a big-endian integer (a rejection
    practically never happens with 256-bit words)."""
    return int.from_bytes(hmac.new(seed, f"{purpose}|{k}".encode(), hashlib.sha256).digest(), "big")


def fisher_yates(seed: bytes, purpose: str, names: Iterable[str]) -> tuple[str, ...]:
    """Step 6: the names in their starting order (step 3: sorted; ASCII names sort as their UTF-8 bytes),
    shuffled from the end with one word a step."""
    items = sorted(names)
    for k, i in enumerate(range(len(items) - 1, 0, -1)):
        j = hmac_word(seed, purpose, k) % (i + 1)
        items[i], items[j] = items[j], items[i]
    return tuple(items)


def seed_number(n: int) -> bytes:
    """Fixed, distinct seeds for statistical checks (no flakiness: the same every run)."""
    return hashlib.sha256(f"test seed {n}".encode()).digest()


def chi_square(counts: Mapping[object, int], outcomes: Iterable[object], draws: int) -> float:
    """Pearson's sum over ``outcomes`` (each expected equally often in ``draws``) of the counts seen."""
    every = list(outcomes)
    expected = draws / len(every)
    return sum((counts.get(outcome, 0) - expected) ** 2 / expected for outcome in every)
