"""Draws by lot with a published commitment, recomputable by anyone (docs/rules.md §7; procedure in
docs/lots.md).

The caller (a service) makes a fresh secret seed, publishes ``commitment(seed)`` together with the
purpose and the candidates, runs the draw, then publishes the seed. Nothing here makes randomness: every
outcome is a pure function of (seed, purpose, candidates).
"""

from __future__ import annotations

import hashlib
import hmac
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum

PROCEDURE = "olympiad-lot-v1"  # name of the procedure in docs/lots.md; bump if it ever changes
MIN_SEED_BYTES = 16  # a shorter seed could be found from its commitment by trying them all
_WORD = 2**256  # one HMAC-SHA256 output read as a big-endian integer


class LotError(ValueError):
    """A draw that cannot be run as asked (bad seed, no or duplicate candidates, bad purpose)."""


class LotKind(StrEnum):
    """What a lot draws; the value is the stored ``lot.kind``."""

    ORDER = "order"  # a full order of the candidates (draw_order)
    ONE = "one"  # one candidate (draw_one)


def commitment(seed: bytes) -> str:
    """SHA-256 of the seed in lowercase hex: published before the draw."""
    return hashlib.sha256(seed).hexdigest()


def verify(seed: bytes, commitment_hex: str) -> bool:
    """True when ``seed`` is the one whose hash was published as ``commitment_hex``."""
    return hmac.compare_digest(commitment(seed), commitment_hex.strip().lower())


def canonical(candidate: str) -> str:
    """The text a candidate is sorted by: Unicode NFC, surrounding spaces removed."""
    return unicodedata.normalize("NFC", candidate).strip()


def canonical_order(candidates: Sequence[str]) -> tuple[str, ...]:
    """Candidates sorted by the UTF-8 bytes of their canonical text (the draw's starting order)."""
    if not candidates:
        raise LotError("a lot needs at least one candidate")
    seen: dict[str, str] = {}
    for candidate in candidates:
        key = canonical(candidate)
        if not key:
            raise LotError("a lot candidate cannot be empty")
        if key in seen:
            raise LotError(f"candidate {candidate!r} is listed twice (as {seen[key]!r})")
        seen[key] = candidate
    return tuple(seen[key] for key in sorted(seen, key=lambda k: k.encode("utf-8")))


def stream_word(seed: bytes, purpose: str, counter: int) -> int:
    """HMAC-SHA256(key=seed, message=UTF-8 of "<purpose>|<counter>") as a 256-bit big-endian integer."""
    message = f"{purpose}|{counter}".encode()
    return int.from_bytes(hmac.new(seed, message, hashlib.sha256).digest(), "big")


def _words(seed: bytes, purpose: str) -> Iterator[int]:
    counter = 0
    while True:
        yield stream_word(seed, purpose, counter)
        counter += 1


def _below(bound: int, words: Iterator[int]) -> int:
    """A uniform integer in [0, bound) by rejection sampling: no modulo bias."""
    limit = _WORD - (_WORD % bound)  # largest multiple of bound that fits in 256 bits
    for word in words:
        if word < limit:
            return word % bound
    raise AssertionError("the word stream is infinite")  # pragma: no cover


def _check(seed: bytes, purpose: str) -> None:
    if len(seed) < MIN_SEED_BYTES:
        raise LotError(f"a lot seed must have at least {MIN_SEED_BYTES} bytes (got {len(seed)})")
    if not purpose.strip():
        raise LotError("a lot needs a purpose (it keeps draws with the same seed apart)")


def draw_order(seed: bytes, candidates: Sequence[str], *, purpose: str) -> tuple[str, ...]:
    """A permutation of the candidates: canonical order, then Fisher–Yates from the last place down."""
    _check(seed, purpose)
    items = list(canonical_order(candidates))
    words = _words(seed, purpose)
    for i in range(len(items) - 1, 0, -1):
        j = _below(i + 1, words)
        items[i], items[j] = items[j], items[i]
    return tuple(items)


def draw_one(seed: bytes, candidates: Sequence[str], *, purpose: str) -> str:
    """One candidate: the canonical order's entry at a uniform index drawn from the same stream."""
    _check(seed, purpose)
    items = canonical_order(candidates)
    return items[_below(len(items), _words(seed, purpose))]


@dataclass(frozen=True, slots=True)
class Lot:
    """A revealed draw as it is published and audited: anyone can recompute ``outcome`` from it."""

    purpose: str
    kind: LotKind
    candidates: tuple[str, ...]
    commitment: str
    seed_hex: str
    outcome: tuple[str, ...]  # the order, or one name for LotKind.ONE

    @property
    def chosen(self) -> str:
        """The drawn candidate of a ONE lot, or the first of an ORDER lot."""
        return self.outcome[0]

    def seed(self) -> bytes:
        return bytes.fromhex(self.seed_hex)


def run_lot(seed: bytes, candidates: Sequence[str], *, purpose: str, kind: LotKind = LotKind.ONE) -> Lot:
    """Draw and record a lot (the caller publishes ``commitment(seed)`` first, the record after)."""
    if kind is LotKind.ORDER:
        outcome = draw_order(seed, candidates, purpose=purpose)
    else:
        outcome = (draw_one(seed, candidates, purpose=purpose),)
    return Lot(purpose, kind, tuple(candidates), commitment(seed), seed.hex(), outcome)


def check_lot(lot: Lot) -> bool:
    """True when the seed matches the commitment and recomputing the draw gives the recorded outcome."""
    try:
        seed = lot.seed()
    except ValueError:
        return False
    if not verify(seed, lot.commitment):
        return False
    try:
        again = run_lot(seed, lot.candidates, purpose=lot.purpose, kind=lot.kind)
    except LotError:
        return False
    return again.outcome == lot.outcome
