"""Matchings for the team Swiss engine (docs/swiss.md, "The engines").

C.04.6 asks two questions of a graph whose vertices are teams and whose edges are the pairs [C1] allows:

- whether the teams left can all be paired ([C3] art. 2.2.1, and the tests of arts. 3.4.1, 3.5.5 and
  [C6] art. 2.3.3): a perfect matching exists. In a field where each team has met only a few others the
  answer is nearly always yes, and Dirac's theorem (every vertex adjacent to at least half of the others)
  proves it by counting; otherwise Edmonds' blossom algorithm decides it.
- which pairing of a bracket comes first (art. 3.6): the perfect matching that minimises the quality
  criteria [C8]-[C10] (arts. 2.3.5-2.3.7), then has the lexicographically smallest identifier
  (art. 3.6.2). When the criteria can all be met (no pair costs anything), the identifier is built
  greedily, one team at a time, each choice kept only if the teams left can still be paired; otherwise
  one minimum-weight perfect matching with the weights of FIDE's reference implementation decides.
  Either way the answer is unique, because the identifier orders every pairing strictly.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Collection, Mapping, Sequence

import networkx as nx

Usable = Callable[[int, int], bool]
TOP, BOTTOM = 1, 2


def dirac(nodes: Collection[int], met: Mapping[int, Collection[int]]) -> bool:
    """Whether an even set of teams can be paired by Dirac's theorem: each team can meet at least half of
    the others (a Hamiltonian cycle then exists, and every other edge of it is a perfect matching)."""
    size = len(nodes)
    if size % 2:
        return False
    need = size / 2
    members = set(nodes)
    for node in members:
        blocked = sum(1 for other in met[node] if other in members)
        if size - 1 - blocked < need:
            return False
    return True


def can_be_paired(nodes: Sequence[int], met: Mapping[int, Collection[int]]) -> bool:
    """Whether the teams ``nodes`` have a perfect matching, no two that have met paired together."""
    if not nodes:
        return True
    if len(nodes) % 2:
        return False
    if dirac(nodes, met):
        return True
    adj = [[j for j, other in enumerate(nodes) if other not in met[node] and other != node] for node in nodes]
    match = [-1] * len(nodes)
    _greedy(adj, match)
    return all(match[v] != -1 or _augment(v, adj, match, lambda a, b: True) for v in range(len(nodes)))


def _greedy(adj: Sequence[Sequence[int]], match: list[int]) -> None:
    """A first matching: each free vertex in turn takes its first free neighbour."""
    for v, neighbours in enumerate(adj):
        if match[v] < 0:  # free (-1)
            for w in neighbours:
                if match[w] < 0:
                    match[v], match[w] = w, v
                    break


def _augment(root: int, adj: Sequence[Sequence[int]], match: list[int], usable: Usable) -> bool:
    """Edmonds' search for an augmenting path from the free vertex ``root`` over the usable edges;
    applies it to ``match`` and says whether it found one."""
    n = len(adj)
    base = list(range(n))
    parent = [-1] * n
    used = [v == root for v in range(n)]  # the outer (even) vertices queued so far
    queue = deque([root])

    def lca(a: int, b: int) -> int:
        seen = [False] * n
        while True:
            a = base[a]
            seen[a] = True
            if match[a] == -1:
                break
            a = parent[match[a]]
        while True:
            b = base[b]
            if seen[b]:
                return b
            b = parent[match[b]]

    def mark(v: int, stem: int, child: int, blossom: list[bool]) -> None:
        while base[v] != stem:
            blossom[base[v]] = blossom[base[match[v]]] = True
            parent[v] = child
            child = match[v]
            v = parent[match[v]]

    while queue:
        v = queue.popleft()
        for to in adj[v]:
            if base[v] == base[to] or match[v] == to or not usable(v, to):
                continue
            if to == root or (match[to] != -1 and parent[match[to]] != -1):
                stem = lca(v, to)
                blossom = [False] * n
                mark(v, stem, to, blossom)
                mark(to, stem, v, blossom)
                for i in range(n):
                    if blossom[base[i]]:
                        base[i] = stem
                        if not used[i]:
                            used[i] = True
                            queue.append(i)
            elif parent[to] == -1:
                parent[to] = v
                if match[to] == -1:
                    while to != -1:
                        via = parent[to]
                        after = match[via]
                        match[to], match[via] = via, to
                        to = after
                    return True
                used[match[to]] = True
                queue.append(match[to])
    return False


def first_pairing(adj: Sequence[Sequence[int]]) -> list[tuple[int, int]] | None:
    """The perfect matching of vertices ``0..n-1`` (bracket sequence numbers minus one, art. 3.6.1) with
    the smallest identifier of art. 3.6.2: the top members (the smaller number of each pair) as small as
    possible in ascending order, then the bottom members in the order of their top members. None when the
    graph has no perfect matching. ``adj`` lists each vertex's neighbours in ascending order."""
    n = len(adj)
    match = [-1] * n
    half = n // 2
    for top in range(half):  # start from the fold (1 v half+1, ...), which is often the answer
        for w in adj[top]:
            if w >= half and match[w] < 0:
                match[top], match[w] = w, top
                break
    _greedy(adj, match)
    if not all(match[v] != -1 or _augment(v, adj, match, lambda a, b: True) for v in range(n)):
        return None
    role = _choose_tops(adj, match)
    return _choose_bottoms(adj, match, role)


def _choose_tops(adj: Sequence[Sequence[int]], match: list[int]) -> list[int]:
    """Art. 3.6.2, first part: each vertex in turn is a top member if the rest can still be paired."""
    n = len(adj)
    role = [0] * n

    def usable(a: int, b: int) -> bool:
        low, high = min(a, b), max(a, b)
        return role[low] != BOTTOM and role[high] != TOP

    for j in range(n):
        partner = match[j]
        if partner > j:
            role[j] = TOP
            continue
        if role.count(TOP) == n // 2:  # every top found: the rest are bottoms
            role[j] = BOTTOM
            continue
        role[j] = TOP
        match[partner] = match[j] = -1
        if _augment(partner, adj, match, usable):
            continue
        match[partner], match[j] = j, partner
        role[j] = BOTTOM
    return role


def _choose_bottoms(adj: Sequence[Sequence[int]], match: list[int], role: list[int]) -> list[tuple[int, int]]:
    """Art. 3.6.2, second part: each top member in turn takes the smallest bottom member that still lets
    the rest be paired."""
    fixed = [False] * len(adj)

    def usable(a: int, b: int) -> bool:
        return not fixed[a] and not fixed[b] and role[a] != role[b]

    pairs = []
    for top in (v for v in range(len(adj)) if role[v] == TOP):
        current = match[top]
        for bottom in adj[top]:  # in ascending order, and ``current`` is among them
            if bottom == current:
                break
            if fixed[bottom]:  # an earlier top or its partner (so is every member below ``top``)
                continue
            if role[bottom] != BOTTOM:
                continue
            other_top = match[bottom]
            match[top], match[bottom] = bottom, top
            match[other_top] = match[current] = -1
            fixed[top] = fixed[bottom] = True
            if _augment(other_top, adj, match, usable):
                break
            match[top], match[current] = current, top
            match[bottom], match[other_top] = other_top, bottom
            fixed[top] = fixed[bottom] = False
        fixed[top] = fixed[match[top]] = True
        pairs.append((top, match[top]))
    return pairs


def min_weight_pairing(size: int, weights: Mapping[tuple[int, int], int]) -> list[tuple[int, int]] | None:
    """The perfect matching of ``0..size-1`` with the smallest total weight (None without a perfect
    matching), pairs as (smaller, larger)."""
    graph = nx.Graph()
    graph.add_nodes_from(range(size))
    graph.add_weighted_edges_from((a, b, w) for (a, b), w in weights.items())
    found = nx.min_weight_matching(graph)
    if 2 * len(found) != size:
        return None
    return sorted((min(a, b), max(a, b)) for a, b in found)


def bye_and_rest(
    order: list[int],
    met: Mapping[int, Collection[int]],
    eligible: Callable[[int], bool],
    fail: Callable[[str], Exception],
) -> int | None:
    """With an odd number of teams, take out of ``order`` the lowest-ranked eligible team whose bye leaves
    the others pairable without a rematch, and return it (None with an even number); raise ``fail(why)``
    when no such team exists, or when an even field cannot be paired at all (C.04.6 art. 3.2; Olympiad
    Pairing Rules 2022, art. 4.1)."""
    if len(order) % 2 == 0:
        if not can_be_paired(order, met):
            raise fail("every way of pairing them repeats a match already played")
        return None
    bye = next(
        (n for n in reversed(order) if eligible(n) and can_be_paired([m for m in order if m != n], met)), None
    )
    if bye is None:
        raise fail("no team may receive the bye and leave the others pairable without a rematch")
    order.remove(bye)
    return bye
