"""The JSON form of the public read models: one serialiser, so every document is written the same way.

A read model is serialised as it is (its fields, not its display properties): points as integer
half-points, tie-break values as text and as an exact fraction ``"n/d"``. Its ``topics`` (``Topics``: the
page cache's internal keys) are left out of the JSON and of the OpenAPI schema.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

from pydantic import Field, TypeAdapter

# The live topics a read model was built from: the page cache's keys (docs/caching.md), never written in
# the JSON nor in its schema (a spectator's page follows its coarse topics: services/live.py).
Topics = Annotated[tuple[str, ...], Field(exclude=True)]


class JsonDocument:
    """A read model the public API returns whole; the route sends ``as_json()``."""

    __slots__ = ()

    def as_json(self) -> bytes:
        return _adapter(type(self)).dump_json(self)


def json_list(model: type[JsonDocument], items: Sequence[JsonDocument]) -> bytes:
    """A JSON array of read models of one kind."""
    return _adapter(tuple[model, ...]).dump_json(tuple(items))  # type: ignore[valid-type]


_ADAPTERS: dict[Any, TypeAdapter[Any]] = {}


def _adapter(model: Any) -> TypeAdapter[Any]:
    adapter = _ADAPTERS.get(model)
    if adapter is None:
        adapter = _ADAPTERS[model] = TypeAdapter(model)
    return adapter
