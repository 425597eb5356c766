"""One-letter builders for tie-break and standings tests."""

from __future__ import annotations

from collections.abc import Mapping

from orchestrator.domain.round_robin import berger_table
from orchestrator.domain.scoring import MatchForfeit, MatchRecord, no_show, parse_points


def m(rnd: int, a: str, b: str, score: str, boards: int = 4) -> MatchRecord:
    """A match: ``m(1, "A", "B", "2.5-1.5")``; whole-match forfeits ``"+-"``, ``"-+"``, ``"--"``."""
    if score in FORFEITS:
        return f(rnd, a, b, score, boards)
    left, right = score.split("-")
    return MatchRecord(rnd, a, b, parse_points(left), parse_points(right))


FORFEITS = {"+-": "-+", "-+": "+-", "--": "--"}


def f(rnd: int, a: str, b: str, code: str, boards: int = 4) -> MatchRecord:
    """A whole-match forfeit: ``+-`` a wins, ``-+`` b wins, ``--`` both lose (0 MP, 0 GP)."""
    absent = {"+-": b, "-+": a, "--": None}[code]
    return no_show(round=rnd, team_a=a, team_b=b, absent=absent, boards=boards)


def y(rnd: int, team: str, boards: int = 4) -> MatchRecord:
    """A pairing-allocated bye worth half the boards in game points."""
    return MatchRecord(rnd, team, None, boards, 0)


def flip(score: str) -> str:
    """The same result from the other team's side."""
    if score in FORFEITS:
        return FORFEITS[score]
    left, right = score.split("-")
    return f"{right}-{left}"


def rr(teams: str, results: Mapping[str, str], *, boards: int = 4) -> list[MatchRecord]:
    """A single round robin on the Berger table; ``results["AB"] = "2.5-1.5"`` from A's side.

    Odd fields give the Berger bye team a pairing-allocated bye each round.
    """
    out: list[MatchRecord] = []
    for rnd in berger_table(len(teams)):
        for p in rnd.pairings:
            a, b = teams[p.first - 1], teams[p.second - 1]
            score = results[a + b] if a + b in results else flip(results[b + a])
            out.append(m(rnd.number, a, b, score, boards))
        if rnd.bye is not None:
            out.append(y(rnd.number, teams[rnd.bye - 1], boards))
    return out


__all__ = ["MatchForfeit", "f", "flip", "m", "rr", "y"]
