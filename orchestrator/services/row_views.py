"""Read models copied from a stored row: pages and the API see the row's columns, never the row
(docs/architecture.md, "Layers and data flow").
"""

from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

    ViewT = TypeVar("ViewT", bound=DataclassInstance)
else:
    ViewT = TypeVar("ViewT")


def row_view(view: type[ViewT], row: object, **given: Any) -> ViewT:
    """``view`` of ``row``: each field the row's attribute of the same name, but for the fields ``given``."""
    copied = {f.name: getattr(row, f.name) for f in fields(view) if f.name not in given}
    return view(**copied, **given)
