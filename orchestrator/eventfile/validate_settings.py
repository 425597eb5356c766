"""The event file's settings: team format, clocks, match scoring, Armageddon (docs/event-file.md)."""

from __future__ import annotations

import re

import yaml

from orchestrator.domain.event import TimeControl
from orchestrator.domain.knockout import ArmageddonClock
from orchestrator.domain.scoring import MatchScoring
from orchestrator.domain.teams import BoardOrder, Category, TeamFormat
from orchestrator.eventfile.nodes import NodeReader

_TIME_RE = re.compile(r"^(\d+)\s*\+\s*(\d+)$")


def read_category(reader: NodeReader, node: yaml.Node, path: str) -> Category | None:
    value = reader.text(node, path)
    if value is None:
        return None
    try:
        return Category(value.lower())
    except ValueError:
        names = ", ".join(c.value for c in Category)
        reader.report(path, f"unknown category {value!r}: use one of {names}", node=node)
        return None


def read_team_format(reader: NodeReader, node: yaml.Node) -> TeamFormat | None:
    fields = reader.mapping(
        node, "team_format", required=("boards", "cutoff_year"), optional=("reserves", "board_order")
    )
    if fields is None:
        return None
    boards: list[Category] = []
    ok = True
    if "boards" in fields:
        items = reader.sequence(fields["boards"], "team_format.boards")
        if items is None:
            ok = False
        else:
            if not items:
                reader.report("team_format.boards", "a team needs at least one board", node=fields["boards"])
                ok = False
            for index, item in enumerate(items):
                category = read_category(reader, item, f"team_format.boards[{index}]")
                if category is None:
                    ok = False
                else:
                    boards.append(category)
    cutoff = (
        reader.integer(fields["cutoff_year"], "team_format.cutoff_year", minimum=1900, maximum=2100)
        if "cutoff_year" in fields
        else None
    )
    reserves: list[tuple[Category, int]] = []
    if "reserves" in fields:
        entries = reader.mapping(
            fields["reserves"], "team_format.reserves", optional=tuple(c.value for c in Category)
        )
        if entries is None:
            ok = False
        else:
            for key, value_node in entries.items():
                count = reader.integer(value_node, f"team_format.reserves.{key}", minimum=0)
                if count is None:
                    ok = False
                else:
                    reserves.append((Category(key), count))
    order = read_board_order(reader, fields["board_order"]) if "board_order" in fields else BoardOrder()
    if not ok or cutoff is None or not boards or order is None:
        return None
    return TeamFormat(
        board_categories=tuple(boards), cutoff_year=cutoff, reserves=tuple(reserves), board_order=order
    )


def read_board_order(reader: NodeReader, node: yaml.Node) -> BoardOrder | None:
    """``board_order: fixed`` (the team's fixed order), ``rating`` (strict rating order), or ``{fixed: true,
    rating_tolerance: 100}`` (rating order within a tolerance, with or without the fixed order);
    docs/event-file.md "Team format"."""
    path = "team_format.board_order"
    if isinstance(node, yaml.ScalarNode):
        word = reader.text(node, path)
        if word is None:
            return None
        if word not in ("fixed", "rating"):
            reader.report(
                path,
                f"board_order is 'fixed', 'rating' or a mapping such as {{rating_tolerance: 100}}, "
                f"found {word!r}",
                node=node,
            )
            return None
        return BoardOrder(fixed=True) if word == "fixed" else BoardOrder(rating_tolerance=0)
    fields = reader.mapping(node, path, optional=("fixed", "rating_tolerance"))
    if fields is None:
        return None
    fixed = reader.boolean(fields["fixed"], f"{path}.fixed") if "fixed" in fields else False
    tolerance = (
        reader.integer(fields["rating_tolerance"], f"{path}.rating_tolerance", minimum=0, maximum=3500)
        if "rating_tolerance" in fields
        else None
    )
    if fixed is None or ("rating_tolerance" in fields and tolerance is None):
        return None
    if not fixed and tolerance is None:
        reader.report(path, "give 'fixed: true', a 'rating_tolerance', or both", node=node)
        return None
    return BoardOrder(fixed=fixed, rating_tolerance=tolerance)


# A clock's bounds: a game's longest duration (dashboard, demo plan) is computed from them, and a number of
# minutes past these would overflow `timedelta` there.
MAX_CLOCK_MINUTES = 24 * 60  # a period, or an Armageddon side
MAX_INCREMENT_SECONDS = 3600
MAX_MOVES = 500  # the first period's moves


def read_time_control(reader: NodeReader, node: yaml.Node, path: str = "time_control") -> TimeControl | None:
    """``15+5`` or ``{minutes: 15, increment_seconds: 5}`` at ``path`` (the event's, a stage's, a round's);
    two periods as ``{minutes: 90, moves: 40, then_minutes: 30, increment_seconds: 30}``."""
    if isinstance(node, yaml.ScalarNode):
        match = _TIME_RE.match(str(node.value))
        if match is None:
            reader.report(path, f"expected minutes+increment such as 15+5, found {node.value!r}", node=node)
            return None
        base, added = int(match[1]), int(match[2])
        if not 1 <= base <= MAX_CLOCK_MINUTES or added > MAX_INCREMENT_SECONDS:
            reader.report(
                path,
                f"expected 1–{MAX_CLOCK_MINUTES} minutes and at most {MAX_INCREMENT_SECONDS} seconds a move, "
                f"found {node.value!r}",
                node=node,
            )
            return None
        return TimeControl(base, added)
    fields = reader.mapping(
        node, path, required=("minutes", "increment_seconds"), optional=("moves", "then_minutes")
    )
    if fields is None:
        return None
    if ("moves" in fields) != ("then_minutes" in fields):
        reader.report(
            path,
            "give both 'moves' (of the first period) and 'then_minutes' (for the rest), or neither",
            node=node,
        )
        return None
    minutes = (
        reader.integer(fields["minutes"], f"{path}.minutes", minimum=1, maximum=MAX_CLOCK_MINUTES)
        if "minutes" in fields
        else None
    )
    increment = (
        reader.integer(
            fields["increment_seconds"], f"{path}.increment_seconds", minimum=0, maximum=MAX_INCREMENT_SECONDS
        )
        if "increment_seconds" in fields
        else None
    )
    if minutes is None or increment is None:
        return None
    if "moves" in fields:
        moves = reader.integer(fields["moves"], f"{path}.moves", minimum=1, maximum=MAX_MOVES)
        then = reader.integer(
            fields["then_minutes"], f"{path}.then_minutes", minimum=1, maximum=MAX_CLOCK_MINUTES
        )
        if moves is None or then is None:
            return None
        return TimeControl(minutes, increment, moves=moves, then_minutes=then)
    return TimeControl(minutes, increment)


def read_scoring(reader: NodeReader, node: yaml.Node) -> MatchScoring:
    fields = reader.mapping(node, "match_scoring", required=("win", "draw", "loss"))
    if fields is None:
        return MatchScoring()
    values = {
        key: reader.integer(fields[key], f"match_scoring.{key}", minimum=0)
        for key in ("win", "draw", "loss")
        if key in fields
    }
    win, draw, loss = values.get("win"), values.get("draw"), values.get("loss")
    if win is None or draw is None or loss is None:
        return MatchScoring()
    if not win > draw >= loss:
        reader.report(
            "match_scoring",
            f"a win must score more than a draw, a draw no less than a loss (found {win}/{draw}/{loss})",
            node=node,
        )
    return MatchScoring(win=win, draw=draw, loss=loss)


def read_armageddon(reader: NodeReader, node: yaml.Node) -> ArmageddonClock:
    fields = reader.mapping(
        node, "armageddon", required=("white_minutes", "black_minutes"), optional=("increment_seconds",)
    )
    if fields is None:
        return ArmageddonClock()
    white = (
        reader.integer(
            fields["white_minutes"], "armageddon.white_minutes", minimum=1, maximum=MAX_CLOCK_MINUTES
        )
        if "white_minutes" in fields
        else None
    )
    black = (
        reader.integer(
            fields["black_minutes"], "armageddon.black_minutes", minimum=1, maximum=MAX_CLOCK_MINUTES
        )
        if "black_minutes" in fields
        else None
    )
    increment = 0
    if "increment_seconds" in fields:
        increment = (
            reader.integer(
                fields["increment_seconds"],
                "armageddon.increment_seconds",
                minimum=0,
                maximum=MAX_INCREMENT_SECONDS,
            )
            or 0
        )
    if white is None or black is None:
        return ArmageddonClock()
    if white <= black:
        reader.report(
            "armageddon", f"White must have more time than Black (found {white} v {black} minutes)", node=node
        )
    return ArmageddonClock(white * 60, black * 60, increment)  # the file gives minutes


_DURATION_RE = re.compile(r"^(\d+)\s*(s|m|h)$")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600}
MAX_LOT_PUBLICATION_DELAY_S = 7 * 24 * 3600  # a week: a longer wait would hold a stage up


def read_lot_publication_delay(reader: NodeReader, node: yaml.Node) -> int:
    """``lot_publication_delay: 10m`` (seconds ``s``, minutes ``m`` or hours ``h``; ``0`` for none): how
    long a lot's commitment is public before it may be drawn (docs/lots.md). 0 when unreadable (the
    problem is listed)."""
    path = "lot_publication_delay"
    raw = str(node.value).strip() if isinstance(node, yaml.ScalarNode) else None
    if raw == "0":
        return 0
    match = _DURATION_RE.match(raw or "")
    if match is None:
        shown = repr(raw) if raw is not None else "a list or mapping"
        reader.report(path, f"expected a duration such as 10m, 90s or 1h (or 0), found {shown}", node=node)
        return 0
    seconds = int(match.group(1)) * _UNIT_SECONDS[match.group(2)]
    if seconds > MAX_LOT_PUBLICATION_DELAY_S:
        reader.report(path, f"at most a week (168h), found {raw}", node=node)
        return 0
    return seconds
