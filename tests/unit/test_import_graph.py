"""The modules of orchestrator/ and workers/ import each other without a cycle (docs/architecture.md).

The graph is read from the source with ``ast``: every import statement, at the top of a module or inside a
function, is an edge; ``from pkg import mod`` is an edge to ``pkg.mod`` when that is a module, relative
imports are resolved. A function-level import is a cycle waiting to happen (it only hides one from Python),
so one of an orchestrator or workers module is refused unless ``LAZY_IMPORTS`` lists it with its reason.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("orchestrator", "workers")

# (importing module, imported module or package) -> why the import waits for the function that needs it.
LAZY_IMPORTS: dict[tuple[str, str], str] = {
    # Each command imports what it uses, so `olympiad --help` and the pure commands (check-event, simulate)
    # start without loading SQLAlchemy, FastAPI or the web app.
    ("orchestrator.cli", "orchestrator"): "start-up speed of the command line",
    ("orchestrator.cli_simulation", "orchestrator"): "start-up speed: cli.py imports it for every command",
    ("orchestrator.cli_demo", "orchestrator"): "start-up speed: cli.py imports it for every command",
    # The package only names its two entry points; importing the store or the engine alone (tests, bench)
    # must not load FastAPI and uvicorn.
    ("orchestrator.standin", "orchestrator.standin"): "a light package facade",
    # Celery and its broker client are loaded only when task_mode is "celery"; workers.app imports nothing
    # from orchestrator.jobs, so this is no cycle (the graph below counts it).
    ("orchestrator.jobs.dispatch", "workers.app"): "Celery only in celery mode",
}

# Layers a module may not import, by the package it sits in (docs/architecture.md, "Layers").
FORBIDDEN = {
    "orchestrator.domain": ("orchestrator.adapters", "orchestrator.services", "orchestrator.jobs"),
    # Services may import the adapters; the adapters serve every layer above them and import none.
    "orchestrator.adapters": (
        "orchestrator.services",
        "orchestrator.jobs",
        "orchestrator.demo",
        "orchestrator.web",
        "workers",
    ),
    "orchestrator.services": ("orchestrator.jobs", "orchestrator.demo", "orchestrator.web", "workers"),
    "orchestrator.jobs": ("orchestrator.demo", "orchestrator.web"),
}


@dataclass(frozen=True, slots=True)
class Edge:
    source: str
    target: str
    line: int
    in_function: bool


def module_names() -> dict[str, Path]:
    names: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            names[".".join(parts)] = path
    return names


def _imports(tree: ast.AST) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement with whether it runs inside a function."""

    def visit(node: ast.AST, in_function: bool) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                yield child, in_function
            inside = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            yield from visit(child, inside)

    yield from visit(tree, False)


def _targets(node: ast.Import | ast.ImportFrom, module: str, is_package: bool, known: set[str]) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        package = module.split(".") if is_package else module.split(".")[:-1]
        anchor = package[: len(package) - (node.level - 1)]
        base = ".".join([*anchor, base] if base else anchor)
    found = [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in known]
    return found if len(found) == len(node.names) else [*found, base]


def edges() -> list[Edge]:
    names = module_names()
    known = set(names)
    found: list[Edge] = []
    for module, path in names.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        for node, in_function in _imports(tree):
            for target in _targets(node, module, path.name == "__init__.py", known):
                if target in known:
                    found.append(Edge(module, target, node.lineno, in_function))
    return found


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a path whose first and last module are the same, or None."""
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state and (cycle := visit(target)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_the_cycle_finder_names_a_cycle_and_accepts_a_tree() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_relative_imports_and_from_package_import_module_are_resolved() -> None:
    known = {"p", "p.q", "p.q.r", "p.s"}
    relative = ast.parse("from . import r\nfrom .. import s\nfrom ..s import thing").body
    assert [_targets(n, "p.q.x", False, known) for n in relative] == [["p.q.r"], ["p.s"], ["p.s"]]  # type: ignore[arg-type]
    absolute = ast.parse("from p.q import r, helper\nimport p.s").body
    assert [_targets(n, "z", False, known) for n in absolute] == [["p.q.r", "p.q"], ["p.s"]]  # type: ignore[arg-type]


def test_no_module_of_orchestrator_or_workers_imports_itself_through_others() -> None:
    graph: dict[str, set[str]] = {}
    for edge in edges():
        if edge.source != edge.target:
            graph.setdefault(edge.source, set()).add(edge.target)
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or ())


def test_function_level_imports_of_project_modules_are_only_the_listed_lazy_ones() -> None:
    used: set[tuple[str, str]] = set()
    refused: list[str] = []
    for edge in edges():
        if not edge.in_function:
            continue
        allowed = [key for key in LAZY_IMPORTS if edge.source == key[0] and _within(edge.target, key[1])]
        used.update(allowed)
        if not allowed:
            refused.append(f"{edge.source}:{edge.line} imports {edge.target} inside a function")
    assert refused == []
    assert set(LAZY_IMPORTS) - used == set(), "allow-list entries no import needs any more"


def test_services_import_neither_the_job_runtime_nor_the_web_nor_the_workers() -> None:
    wrong = [
        f"{edge.source}:{edge.line} imports {edge.target}"
        for edge in edges()
        for layer, forbidden in FORBIDDEN.items()
        if _within(edge.source, layer) and any(_within(edge.target, f) for f in forbidden)
    ]
    assert wrong == []


def test_the_service_packages_depend_on_each_other_in_one_direction() -> None:
    """setup, teams, accounts, results, gameserver, playoff ... form layers too, not only their modules."""
    prefix = "orchestrator.services."
    graph: dict[str, set[str]] = {}
    for edge in edges():
        if edge.source.startswith(prefix) and edge.target.startswith(prefix):
            source, target = (m[len(prefix) :].split(".")[0] for m in (edge.source, edge.target))
            if source != target:
                graph.setdefault(source, set()).add(target)
    cycle = find_cycle(graph)
    assert cycle is None, "service packages in a cycle: " + " -> ".join(cycle or ())
