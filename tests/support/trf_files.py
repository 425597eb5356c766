"""TRF-2026 team files for the reader's tests: the fixtures of tests/fixtures/trf and files made from them
(a record 001's points made consistent, a fifth player who plays a board)."""

from __future__ import annotations

from pathlib import Path

from orchestrator.domain.trf.records import put, put_round

FIXTURES = Path(__file__).parents[1] / "fixtures" / "trf"


def fixture(name: str) -> str:
    return (FIXTURES / name).read_bytes().decode("latin-1")


def fix_points(line: str) -> str:
    """A record 001 with its points (81-84) the sum of its results, and a record 310 left out of the check."""
    if line.startswith("310 "):
        return line[:54] + " " * 13 + line[67:]
    if not line.startswith("001 "):
        return line
    halves = {"1": 2, "+": 2, "W": 2, "F": 2, "U": 2, "=": 1, "D": 1, "H": 1}
    total = sum(
        halves.get(line[98 + 10 * r], 0) for r in range((len(line) - 91) // 10 + 1) if 98 + 10 * r < len(line)
    )
    return line[:80] + f"{total / 2:4.1f}" + line[84:]


def with_reserve(lineup: bool) -> str:
    """The 802 file without its 802 records, Armenia with a fifth player who plays board 2 in round 1."""
    lines = [line for line in fixture("informative-802.trf").splitlines() if line[:3] not in ("802", "###")]

    def cell(line: str, rnd: int, text: str) -> str:
        column = 91 + 10 * (rnd - 1)
        return line[:column] + text + line[column + 8 :]

    out = []
    for line in lines:
        number = int(line[4:8]) if line.startswith("001 ") else 0
        if number == 2:
            line = cell(line[:80] + " 0.5" + line[84:], 1, "0000 - -")
        elif number == 14:
            line = cell(line, 1, "  25 w 0")
        elif line.startswith("062 "):
            line = "062 25"
        elif line.startswith("310   1 "):
            line = line + "   25"
        out.append(line)
    reserve: list[str] = []
    for column, text in ((1, "001"), (5, "  25"), (15, "Armenia, Reserve"), (49, "2660"), (81, " 1.0")):
        put(reserve, column, text)
    put_round(reserve, 1, (14, "b", "1"))
    out.insert(next(i for i, line in enumerate(out) if line.startswith("310 ")), "".join(reserve))
    if lineup:
        out.append("300   1   1   4    1   25    3    4")
    return "\n".join(out) + "\n"
