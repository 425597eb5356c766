"""Score groups worked by hand for the Olympiad Pairing Rules 2022, art. 6 and 7 (the domain only, so the
mutation runs of bench/mutation.sh can copy it): teams are numbers 1..n named A, B, C, ... in art. 3.2 order
with only what art. 6 and 7 read, match points, the teams met and board-1 colours."""

from __future__ import annotations

from collections.abc import Sequence

from orchestrator.domain.swiss.c046 import Team
from orchestrator.domain.swiss.olympiad2022 import pair_score_groups


def entry(tpn: int, mp: int, met: Sequence[int] = (), csq: str = "") -> Team:
    cod = csq.count("w") - csq.count("b")
    return Team(tpn, chr(64 + tpn), mp, 0, 1, len(csq), cod, csq, "", False, False, frozenset(met))


def groups_paired(
    scores: Sequence[int], met: Sequence[tuple[int, int]], median: int, colours: Sequence[str] = ()
) -> set[str]:
    """Teams 1..n with ``scores`` (already in art. 3.2 order), ``met`` pairs and board-1 ``colours``
    (``w``/``b`` per played match; none by default), paired by art. 6 around the median score
    ``median``; the pairs as letters ("AB": team 1 v team 2)."""
    seen: dict[int, set[int]] = {n: set() for n in range(1, len(scores) + 1)}
    for a, b in met:
        seen[a].add(b)
        seen[b].add(a)
    csqs = list(colours) + [""] * len(scores)
    teams = {n: entry(n, mp, sorted(seen[n]), csqs[n - 1]) for n, mp in enumerate(scores, 1)}
    order = list(teams)
    side = {n: (mp > median) - (mp < median) for n, mp in zip(order, scores, strict=True)}
    return {"".join(sorted(chr(64 + a) + chr(64 + b))) for a, b in pair_score_groups(teams, order, side)}
