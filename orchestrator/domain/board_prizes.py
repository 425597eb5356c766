"""Board prizes (Olympiad 2026 regulations 4.6.3 and Appendix 2.III; docs/board-prizes.md).

Players listed at the same board number of their team lists compete with each other. They are ranked by
their tournament performance rating (TPR, FIDE C.07 Art. 10.2 with the B.02 table 8.1.1, over games
played over the board: ``domain/performance.py``). A player needs at least ``min_games`` such games to
be eligible (8 in 2026, 4.6.3.1). Equal TPRs: more games played first (Appendix 2.III TB1), then a
drawing of lots (TB2): ``lot_order`` gives the order a recorded lot drew for a group of tied players;
until it is drawn the group shares its place and is reported in ``ties``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from orchestrator.domain.performance import Performance, PlayedGame, performance

MEDALS = ("gold", "silver", "bronze")


@dataclass(frozen=True, slots=True)
class BoardPlayer:
    """A player at a board number of the team list, with the games played over the board."""

    key: str  # unique, stable (e.g. the player's id); lots are drawn over these keys
    name: str
    team: str
    board: int
    games: tuple[PlayedGame, ...]


@dataclass(frozen=True, slots=True)
class BoardPrizeRow:
    """One player's line: ``place`` among the eligible players (None while not yet eligible), shared
    while a tie waits for its lot; ``medal`` for places 1-3, none for a tied group whose lot is pending."""

    player: BoardPlayer
    performance: Performance | None
    eligible: bool
    place: int | None
    medal: str | None
    games_needed: int  # games still to play to become eligible (0 when eligible)


@dataclass(frozen=True, slots=True)
class BoardTable:
    board: int
    rows: tuple[BoardPrizeRow, ...]
    ties: tuple[tuple[str, ...], ...]  # groups of tied eligible players whose lot is not drawn yet


def _sort_key(player: BoardPlayer, perf: Performance | None) -> tuple[int, int, str]:
    rating = perf.rating if perf is not None else -10_000
    games = perf.games if perf is not None else 0
    return (-rating, -games, player.key)


def board_table(
    board: int,
    players: Sequence[BoardPlayer],
    *,
    min_games: int = 8,
    lot_order: Mapping[frozenset[str], Sequence[str]] | None = None,
) -> BoardTable:
    """The ranking of one board number: eligible players by TPR, then games played, then the lot;
    players below ``min_games`` follow, unranked, by TPR."""
    if min_games < 1:
        raise ValueError("a board prize needs at least one game")
    lots = lot_order or {}
    scored = [(p, performance(p.games)) for p in players if p.board == board]
    eligible = sorted(
        ((p, perf) for p, perf in scored if perf is not None and perf.games >= min_games),
        key=lambda item: _sort_key(*item),
    )
    groups: list[list[tuple[BoardPlayer, Performance]]] = []
    for item in eligible:
        perf = item[1]
        if groups and (groups[-1][0][1].rating, groups[-1][0][1].games) == (perf.rating, perf.games):
            groups[-1].append(item)
        else:
            groups.append([item])
    rows: list[BoardPrizeRow] = []
    ties: list[tuple[str, ...]] = []
    place = 1
    for group in groups:
        keys = frozenset(p.key for p, _ in group)
        drawn = lots.get(keys) if len(group) > 1 else [group[0][0].key]
        if drawn is not None and frozenset(drawn) != keys:
            raise ValueError(
                f"board {board}: the lot's order {list(drawn)} is not the tied group {sorted(keys)}"
            )
        if drawn is None:
            ties.append(tuple(sorted(keys)))
            ordered = [(place, item) for item in group]
        else:
            position = {key: i for i, key in enumerate(drawn)}
            ordered = [
                (place + position[p.key], (p, perf))
                for p, perf in sorted(group, key=lambda x: position[x[0].key])
            ]
        for at, (p, perf) in ordered:
            medal = MEDALS[at - 1] if at <= len(MEDALS) and not (drawn is None and len(group) > 1) else None
            rows.append(BoardPrizeRow(p, perf, True, at, medal, 0))
        place += len(group)
    waiting = sorted(
        ((p, perf) for p, perf in scored if perf is None or perf.games < min_games),
        key=lambda item: _sort_key(*item),
    )
    for unranked, partial in waiting:
        played = partial.games if partial is not None else 0
        rows.append(BoardPrizeRow(unranked, partial, False, None, None, min_games - played))
    return BoardTable(board, tuple(rows), tuple(ties))


def board_tables(
    players: Sequence[BoardPlayer],
    *,
    min_games: int = 8,
    lot_order: Mapping[frozenset[str], Sequence[str]] | None = None,
) -> tuple[BoardTable, ...]:
    """Every board number's table, board 1 first."""
    boards = sorted({p.board for p in players})
    return tuple(board_table(b, players, min_games=min_games, lot_order=lot_order) for b in boards)
