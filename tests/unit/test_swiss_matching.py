"""The matchings behind our C.04.6 engine against brute force on small random graphs (docs/swiss.md): whether
teams can be paired ([C3]), the first pairing of a bracket by the identifier of art. 3.6.2, and, when the
quality criteria cannot all be met, the pairing with the fewest [C8] then [C10] failures first."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from orchestrator.domain.swiss.c046 import bracket_weights
from orchestrator.domain.swiss.matching import can_be_paired, dirac, first_pairing, min_weight_pairing
from tests.support.matchings import Pairs, identifier, perfect_matchings


@st.composite
def graphs(draw: st.DrawFn, *, even: bool = True) -> tuple[int, set[tuple[int, int]]]:
    size = draw(st.integers(0, 5)) * 2 if even else draw(st.integers(0, 11))
    density = draw(st.floats(0.2, 1.0))
    seeds = draw(st.lists(st.floats(0, 1), min_size=size * size, max_size=size * size))
    edges = {(i, j) for i in range(size) for j in range(i + 1, size) if seeds[i * size + j] < density}
    return size, edges


def adjacency(size: int, edges: set[tuple[int, int]]) -> list[list[int]]:
    return [[j for j in range(size) if (min(i, j), max(i, j)) in edges] for i in range(size)]


@settings(max_examples=200, deadline=None)
@given(graphs(even=False))
def test_can_be_paired_is_true_exactly_when_a_perfect_matching_exists(graph) -> None:
    size, edges = graph
    met = {v: {w for w in range(size) if w != v and (min(v, w), max(v, w)) not in edges} for v in range(size)}
    expected = next(perfect_matchings(list(range(size)), edges), None) is not None
    assert can_be_paired(list(range(size)), met) == expected
    if dirac(list(range(size)), met):
        assert expected


@settings(max_examples=200, deadline=None)
@given(graphs())
def test_the_first_pairing_has_the_smallest_identifier(graph) -> None:
    size, edges = graph
    candidates = list(perfect_matchings(list(range(size)), edges))
    found = first_pairing(adjacency(size, edges))
    if not candidates:
        assert found is None
    else:
        assert found is not None and sorted(found) == min(candidates, key=identifier)


@settings(max_examples=150, deadline=None)
@given(graphs(), st.data())
def test_with_costs_the_fewest_c8_then_c10_failures_come_before_the_identifier(graph, data) -> None:
    size, edges = graph
    costs = {edge: data.draw(st.sampled_from([0, 0, 1, 2, 1000, 1001])) for edge in sorted(edges)}

    def key(pairs: Pairs) -> tuple[int, int, tuple[int, ...]]:
        total = sum(costs[p] for p in pairs)
        return total // 1000, total % 1000, identifier(pairs)

    candidates = list(perfect_matchings(list(range(size)), edges))
    found = min_weight_pairing(size, bracket_weights(size, costs))
    if not candidates:
        assert found is None
    else:
        assert found == sorted(min(candidates, key=key))
