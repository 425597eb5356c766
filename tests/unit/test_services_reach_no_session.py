"""Services reach the database only through the unit of work's repositories (docs/architecture.md, "The
unit of work"): no attribute named ``session`` and no ``select`` of SQLModel or SQLAlchemy in
orchestrator/services/. Read from the source with ``ast``; a failure names the file and the line.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVICES = ROOT / "orchestrator" / "services"
QUERY_PACKAGES = ("sqlmodel", "sqlalchemy")


def service_files() -> list[Path]:
    return sorted(SERVICES.rglob("*.py"))


def session_uses(tree: ast.AST) -> list[int]:
    """Lines reading or writing an attribute named ``session`` (``uow.session.add``, ``x.session``)."""
    return [
        node.lineno for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.attr == "session"
    ]


def select_imports(tree: ast.AST) -> list[int]:
    """Lines importing ``select`` (or the query packages whole) from SQLModel or SQLAlchemy."""
    lines: list[int] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in QUERY_PACKAGES:
            if any(alias.name in ("select", "*") for alias in node.names):
                lines.append(node.lineno)
        elif isinstance(node, ast.Import) and any(
            alias.name.split(".")[0] in QUERY_PACKAGES for alias in node.names
        ):
            lines.append(node.lineno)
    return lines


def test_the_checks_find_what_they_look_for() -> None:
    tree = ast.parse(
        "from sqlmodel import select\nimport sqlalchemy\nuow.session.add(row)\nfrom sqlmodel import col\n"
    )
    assert session_uses(tree) == [3]
    assert select_imports(tree) == [1, 2]


def test_services_never_touch_the_session() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}: reaches the session; use the unit of work's repositories"
        for path in service_files()
        for line in session_uses(ast.parse(path.read_text(), filename=str(path)))
    ]
    assert found == [], "\n".join(found)


def test_services_import_no_select() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}: imports select from SQLModel or SQLAlchemy; queries go to adapters"
        for path in service_files()
        for line in select_imports(ast.parse(path.read_text(), filename=str(path)))
    ]
    assert found == [], "\n".join(found)
