"""Brute force for the matchings behind the C.04.6 engine (domain only, so bench/mutation.sh's copies and
bench/mutation_matching_search.py can use it): every perfect matching of a small graph, and the identifier
of C.04.6 art. 3.6.2 that orders them."""

from __future__ import annotations

from collections.abc import Iterator

Pairs = list[tuple[int, int]]


def perfect_matchings(vertices: list[int], edges: set[tuple[int, int]]) -> Iterator[Pairs]:
    """Each perfect matching of ``vertices`` using ``edges`` (pairs ``(low, high)``), lowest first."""
    if not vertices:
        yield []
        return
    first, rest = vertices[0], vertices[1:]
    for other in rest:
        if (first, other) in edges:
            left = [v for v in rest if v != other]
            for tail in perfect_matchings(left, edges):
                yield [(first, other), *tail]


def identifier(pairs: Pairs) -> tuple[int, ...]:
    """Art. 3.6.2: the top members in ascending order, then the bottom members in the order of their tops."""
    ordered = sorted(pairs)
    return tuple(top for top, _ in ordered) + tuple(bottom for _, bottom in ordered)
