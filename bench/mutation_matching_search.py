"""Search for a graph on which a mutant of ``orchestrator/domain/swiss/matching.py`` answers differently from
brute force (docs/mutation.md, "swiss/matching.py"): every graph of up to six members, then random graphs
of 7 to 12. For each mutant named in the list (one per line, as in a run's ``survivors.txt``) it switches
the mutant on with ``MUTANT_UNDER_TEST`` and compares ``can_be_paired`` (a perfect matching exists),
``dirac`` (only when one exists) and ``first_pairing`` (the smallest identifier of C.04.6 art. 3.6.2) with
an enumeration of the perfect matchings. Prints ``<mutant> None`` when no graph tells it apart,
``<mutant> timeout`` when the search ran out of time (a mutant that never ends, or a slow search), else
what differed and the graph (members, edges).

    cd bench/out/mutation/swiss/matching/mutants
    ../../../../../../.venv/bin/python ../../../../../mutation_matching_search.py ../survivors.txt 600
"""

from __future__ import annotations

import os
import random
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

Edges = set[tuple[int, int]]


def graphs(seed: int = 1, randoms: int = 30000) -> Iterator[tuple[int, Edges]]:
    for n in range(7):
        pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
        for mask in range(1 << len(pairs)):
            yield n, {pair for k, pair in enumerate(pairs) if mask >> k & 1}
    rnd = random.Random(seed)
    for _ in range(randoms):
        n = rnd.choice([7, 8, 8, 9, 10, 10, 12])
        density = rnd.uniform(0.15, 0.9)
        yield n, {(i, j) for i in range(n) for j in range(i + 1, n) if rnd.random() < density}


def differs(n: int, edges: Edges) -> str | None:
    from orchestrator.domain.swiss.matching import can_be_paired, dirac, first_pairing
    from tests.support.matchings import identifier, perfect_matchings

    met = {v: {w for w in range(n) if w != v and (min(v, w), max(v, w)) not in edges} for v in range(n)}
    candidates = list(perfect_matchings(list(range(n)), edges)) if n % 2 == 0 else []
    if can_be_paired(list(range(n)), met) != bool(candidates):
        return "can_be_paired"
    if n and dirac(list(range(n)), met) and not candidates:
        return "dirac"
    if n % 2 == 0:
        adj = [[j for j in range(n) if (min(i, j), max(i, j)) in edges] for i in range(n)]
        found = first_pairing(adj)
        want = min(candidates, key=identifier) if candidates else None
        if (found is None) != (want is None) or (found is not None and sorted(found) != want):
            return "first_pairing"
    return None


class _OutOfTime(Exception):
    pass


def _out_of_time(*_: object) -> None:
    raise _OutOfTime


def main(names: str, seconds: int) -> None:
    sys.path.insert(0, os.getcwd())  # the mutated orchestrator and the copied tests/support of the run
    signal.signal(signal.SIGALRM, _out_of_time)
    for mutant in Path(names).read_text().split():
        os.environ["MUTANT_UNDER_TEST"] = mutant
        signal.alarm(seconds)
        result: object = None
        try:
            for n, edges in graphs():
                try:
                    what = differs(n, edges)
                except _OutOfTime:
                    raise
                except Exception as error:  # a mutant that raises is told apart too
                    what = f"raises {type(error).__name__}"
                if what:
                    result = (what, n, sorted(edges))
                    break
        except _OutOfTime:
            result = "timeout"
        signal.alarm(0)
        print(mutant, result, flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 600)
