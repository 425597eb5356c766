"""Walking the composed YAML nodes of an event file: values converted, problems collected with their lines."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

import yaml

from orchestrator.domain.names import name_problem
from orchestrator.eventfile.problems import Problem

FIRST_YEAR, LAST_YEAR = 1900, 2100  # event times; the schedule of a start near 9999 overflows `datetime`


def node_line(node: yaml.Node | None) -> int | None:
    return node.start_mark.line + 1 if node is not None else None


def describe(node: yaml.Node) -> str:
    if isinstance(node, yaml.MappingNode):
        return "a mapping"
    if isinstance(node, yaml.SequenceNode):
        return "a list"
    return f"{node.value!r}" if node.value != "" else "nothing"


class NodeReader:
    """Walks the composed YAML nodes, converting values and collecting problems with their lines."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.problems: list[Problem] = []
        self.lines: dict[str, int] = {}
        self.subjects: dict[str, str] = {}
        self._constructor = yaml.constructor.SafeConstructor()

    # reporting

    def report(self, path: str, message: str, *, node: yaml.Node | None = None) -> None:
        line = node_line(node) if node is not None else self._line_of(path)
        self.problems.append(Problem(line, path, message, self.source, self._subject_of(path)))

    def _line_of(self, path: str) -> int | None:
        while path:
            if path in self.lines:
                return self.lines[path]
            cut = max(path.rfind("."), path.rfind("["))
            path = path[:cut] if cut > 0 else ""
        return None

    def _subject_of(self, path: str) -> str:
        best = ""
        for prefix in self.subjects:
            if (path == prefix or path.startswith(prefix + ".") or path.startswith(prefix + "[")) and len(
                prefix
            ) > len(best):
                best = prefix
        return self.subjects.get(best, "")

    # node readers

    def mapping(
        self, node: yaml.Node, path: str, *, required: Sequence[str] = (), optional: Sequence[str] = ()
    ) -> dict[str, yaml.Node] | None:
        self.lines.setdefault(path, node_line(node) or 0)
        if not isinstance(node, yaml.MappingNode):
            self.report(path, f"expected a mapping (key: value), found {describe(node)}", node=node)
            return None
        known = [*required, *optional]
        out: dict[str, yaml.Node] = {}
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            if not isinstance(key, str):
                self.report(path, "keys must be plain words", node=key_node)
                continue
            key_path = join_path(path, key)
            if key in out:
                self.report(key_path, f"'{key}' is given twice", node=key_node)
                continue
            if key not in known:
                close = difflib.get_close_matches(key, known, n=1)
                hint = f" (did you mean '{close[0]}'?)" if close else f"; known keys: {', '.join(known)}"
                self.report(path, f"unknown key '{key}'{hint}", node=key_node)
                continue
            out[key] = value_node
            self.lines[key_path] = node_line(key_node) or 0
        for key in required:
            if key not in out:
                self.report(path, f"missing '{key}'", node=node)
        return out

    def sequence(self, node: yaml.Node, path: str) -> list[yaml.Node] | None:
        self.lines.setdefault(path, node_line(node) or 0)
        if not isinstance(node, yaml.SequenceNode):
            self.report(path, f"expected a list, found {describe(node)}", node=node)
            return None
        for index, item in enumerate(node.value):
            self.lines[f"{path}[{index}]"] = node_line(item) or 0
        return list(node.value)

    def scalar(self, node: yaml.Node, path: str) -> Any:
        if not isinstance(node, yaml.ScalarNode):
            self.report(path, f"expected a single value, found {describe(node)}", node=node)
            return None
        try:
            return self._constructor.construct_object(node)
        except (yaml.YAMLError, ValueError, KeyError, OverflowError) as error:
            # An explicit tag the text does not fit (``!!int abc``, ``!!bool maybe``, ``!!timestamp
            # 2020-13-45``) fails in PyYAML's constructor with a plain ValueError or KeyError.
            detail = (
                error if isinstance(error, yaml.YAMLError) else f"not a valid {node.tag.rsplit(':', 1)[-1]}"
            )
            self.report(path, f"unreadable value {node.value!r}: {detail}", node=node)
            return None

    def name(self, node: yaml.Node, path: str, *, what: str, limit: int) -> str | None:
        """A name: one line of text of at most ``limit`` characters (docs/input-limits.md)."""
        value = self.text(node, path)
        if value is None:
            return None
        problem = name_problem(value, what=what, limit=limit)
        if problem is not None:
            self.report(path, problem, node=node)
            return None
        return value

    def text(self, node: yaml.Node, path: str) -> str | None:
        value = self.scalar(node, path)
        if value is None:
            if isinstance(node, yaml.ScalarNode):
                self.report(path, "must not be empty", node=node)
            return None
        if isinstance(value, bool | dict | list):
            self.report(path, f"expected text, found {node.value!r}", node=node)
            return None
        text = str(node.value).strip() if not isinstance(value, str) else value.strip()
        if not text:
            self.report(path, "must not be empty", node=node)
            return None
        return text

    def integer(
        self, node: yaml.Node, path: str, *, minimum: int | None = None, maximum: int | None = None
    ) -> int | None:
        value = self.scalar(node, path)
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(node, yaml.ScalarNode):
                self.report(path, f"expected a whole number, found {describe(node)}", node=node)
            return None
        if minimum is not None and value < minimum:
            self.report(path, f"must be at least {minimum}, found {value}", node=node)
            return None
        if maximum is not None and value > maximum:
            self.report(path, f"must be at most {maximum}, found {value}", node=node)
            return None
        return value

    def boolean(self, node: yaml.Node, path: str) -> bool | None:
        value = self.scalar(node, path)
        if not isinstance(value, bool):
            if isinstance(node, yaml.ScalarNode):
                self.report(path, f"expected true or false, found {describe(node)}", node=node)
            return None
        return value

    def moment(self, node: yaml.Node, path: str, timezone: str) -> datetime | None:
        value = self.scalar(node, path)
        if isinstance(value, datetime):
            moment = value
        elif isinstance(value, date):
            self.report(path, f"give a time as well as the date, e.g. '{value:%Y-%m-%d} 10:00'", node=node)
            return None
        elif isinstance(value, str):
            try:
                moment = datetime.fromisoformat(value.strip())
            except ValueError:
                self.report(
                    path, f"expected a date and time such as 2020-07-25 10:00, found {value!r}", node=node
                )
                return None
        else:
            if isinstance(node, yaml.ScalarNode):
                self.report(
                    path,
                    f"expected a date and time such as 2020-07-25 10:00, found {describe(node)}",
                    node=node,
                )
            return None
        if not FIRST_YEAR <= moment.year <= LAST_YEAR:
            self.report(
                path, f"must be in the years {FIRST_YEAR}–{LAST_YEAR}, found {moment.year}", node=node
            )
            return None
        if moment.tzinfo is not None:
            self.report(
                path,
                f"write the time without a UTC offset: all times are in the event timezone ({timezone})",
                node=node,
            )
            return None
        return moment


def join_path(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key
