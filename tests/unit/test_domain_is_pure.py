"""The domain stays pure: no I/O or parsing library is imported from orchestrator/domain
(docs/architecture.md, habit 1)."""

import ast
from pathlib import Path

DOMAIN = Path(__file__).resolve().parents[2] / "orchestrator" / "domain"
FORBIDDEN = {
    "sqlmodel",
    "sqlalchemy",
    "fastapi",
    "starlette",
    "celery",
    "redis",
    "httpx",
    "requests",
    "socket",
    "subprocess",
    "urllib",
    "http",
    "asyncio",
    "psycopg",
    "jinja2",
    "os",
    "shutil",
    "pathlib",
    "sqlite3",
    "yaml",  # reading the event file is orchestrator/eventfile
    "orchestrator.adapters",
    "orchestrator.services",
    "orchestrator.web",
}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_domain_modules_import_no_io_library() -> None:
    files = sorted(DOMAIN.rglob("*.py"))  # the sub-packages too (swiss/, trf/)
    assert len(files) >= 3, "the domain package should not be empty"
    offenders = {
        f"{path.relative_to(DOMAIN)}: {name}"
        for path in files
        for name in imported_modules(path)
        if any(name == bad or name.startswith(bad + ".") for bad in FORBIDDEN)
    }
    assert not offenders, f"domain imports I/O libraries: {sorted(offenders)}"
