"""Test modules share helpers through tests/support/, never through each other (docs/CONTRIBUTING.md,
"Tests"): importing a test module runs its module-level code and hides where a helper lives."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
LAYERS = ("unit", "integration", "e2e")


def imported_test_modules(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        for name in names:
            parts = name.split(".")
            if (
                len(parts) >= 3
                and parts[:1] == ["tests"]
                and parts[1] in LAYERS
                and parts[2].startswith("test_")
            ):
                found.append(f"{path.relative_to(TESTS.parent)}:{node.lineno}: {name}")
    return found


def test_no_test_module_imports_another() -> None:
    found = [line for path in sorted(TESTS.rglob("*.py")) for line in imported_test_modules(path)]
    assert found == []
