"""How the read models print numbers and tie-break headings for people."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from orchestrator.domain.scoring import format_points
from orchestrator.domain.tiebreaks import TIEBREAKS


def tiebreak_label(code: str) -> tuple[str, str]:
    """Short heading and meaning of a tie-break code (``EMGSB/C1`` → ``SB-MG C1``), from the registry."""
    entry = TIEBREAKS.get(code)
    if entry is not None:
        return entry.short, entry.meaning
    base, _, cut = code.partition("/")  # a code stored before it was registered: show it as it is
    known = TIEBREAKS.get(base)
    short, meaning = (known.short, known.meaning) if known else (base, base)
    if cut:
        return f"{short} {cut}", f"{meaning}, least significant value cut"
    return short, meaning


def format_value(value: Fraction) -> str:
    """An exact tie-break value as printed: whole numbers plain, halves as ``.5``, else two decimals."""
    if value.denominator == 1:
        return str(value.numerator)
    if value.denominator == 2:
        return format_points(value.numerator)
    return f"{float(value):.2f}"


def format_score(half: int) -> str:
    """Game points for people: ``4½``, ``3``, ``½``."""
    whole, rest = divmod(half, 2)
    if rest == 0:
        return str(whole)
    return f"{whole}½" if whole else "½"


def game_text(half: int | None, *, forfeit: bool) -> str:
    """One side of one game: ``1``, ``½``, ``0``, ``+``/``−`` for a forfeit, ``*`` until it is final."""
    if half is None:
        return "*"
    if forfeit:
        return "+" if half == 2 else "−"
    return {2: "1", 1: "½", 0: "0"}[half]


def round_half_up(value: Fraction) -> int:
    return (2 * value.numerator + value.denominator) // (2 * value.denominator)


def average(values: Sequence[int | None]) -> int | None:
    """The mean of the known values, rounded half up; None when none is known."""
    known = [v for v in values if v is not None]
    return round_half_up(Fraction(sum(known), len(known))) if known else None
