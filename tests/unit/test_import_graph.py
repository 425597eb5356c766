"""The modules of orchestrator/ and workers/ import each other without a cycle (docs/architecture.md).

The graph is read from the source with ``ast``: every import statement, at the top of a module or inside a
function, is an edge; ``from pkg import mod`` is an edge to ``pkg.mod`` when that is a module, relative
imports are resolved. A function-level import is a cycle waiting to happen (it only hides one from Python),
so one of an orchestrator or workers module is refused unless ``LAZY_IMPORTS`` lists it with its reason.
"""

from __future__ import annotations

import ast
import re
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
    ("orchestrator.cli_trf", "orchestrator"): "start-up speed: cli.py imports it for every command",
    # The package only names its two entry points; importing the store or the engine alone (tests, bench)
    # must not load FastAPI and uvicorn.
    ("orchestrator.standin", "orchestrator.standin"): "a light package facade",
    # Celery and its broker client are loaded only when task_mode is "celery"; workers.app imports nothing
    # from orchestrator.jobs, so this is no cycle (the graph below counts it).
    ("orchestrator.jobs.dispatch", "workers.app"): "Celery only in celery mode",
}

ARCHITECTURE = ROOT / "docs" / "architecture.md"

# Arrows inside one layer that are refused (docs/architecture.md, "Layers"): (importing, imported) packages.
REFUSED_WITHIN = {
    ("web", "workers"),
    ("web", "demo"),
    ("web", "cli"),
    ("web", "cli_common"),
    ("web", "cli_demo"),
    ("web", "cli_simulation"),
    ("web", "cli_trf"),
    ("web", "cli_record"),
    ("workers", "web"),
    ("workers", "demo"),
    ("workers", "cli"),
    ("workers", "cli_common"),
    ("workers", "cli_demo"),
    ("workers", "cli_simulation"),
    ("workers", "cli_trf"),
    ("workers", "cli_record"),
    ("demo", "cli"),
    ("demo", "cli_common"),
    ("demo", "cli_demo"),
    ("demo", "cli_simulation"),
    ("demo", "cli_trf"),
    ("demo", "cli_record"),
    ("adapters", "eventfile"),
    ("adapters", "standin"),
    ("eventfile", "adapters"),
    ("eventfile", "standin"),
    ("standin", "adapters"),
    ("standin", "eventfile"),
}
# Arrows up the layers, each with its reason (docs/architecture.md says the same).
UPWARD: dict[tuple[str, str], str] = {
    ("orchestrator.jobs.dispatch", "workers.app"): "Celery only in celery mode; workers.app imports no job",
}
# Inside web/: pages may import api, never the reverse; http imports neither (serving runs the app).
WEB_REFUSED = {("api", "pages"), ("http", "api"), ("http", "pages")}
WEB_ALLOWED = {("orchestrator.web.http.serving", "orchestrator.web.app"): "olympiad serve runs the app"}


def layers() -> dict[str, int]:
    """Package -> depth (0 = top) from the ``layer  packages`` table of docs/architecture.md."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    block = text.split("```text\nlayer ", 1)[1].split("```", 1)[0]
    depth: dict[str, int] = {}
    for index, line in enumerate(block.splitlines()[1:]):
        _name, packages = re.split(r"\s{2,}", line.strip(), maxsplit=1)
        for package in packages.split():
            depth[package] = index
    return depth


def package_of(module: str) -> str:
    """The layer table's name for a module: ``workers``, or the part after ``orchestrator.``."""
    parts = module.split(".")
    return "workers" if parts[0] == "workers" else (parts[1] if len(parts) > 1 else "")


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


def test_the_layer_table_of_the_architecture_names_every_package_once() -> None:
    depth = layers()
    assert depth["web"] == 0 and depth["domain"] == max(depth.values())
    packages = {package_of(module) for module in module_names()} - {""}
    assert packages - set(depth) == set(), "packages missing from docs/architecture.md's layer table"
    assert set(depth) - packages == set(), "the layer table names packages that do not exist"


def test_no_module_imports_a_layer_above_its_own() -> None:
    depth = layers()
    wrong = []
    used = set()
    for edge in edges():
        source, target = package_of(edge.source), package_of(edge.target)
        if not source or not target or source == target:
            continue
        if (edge.source, edge.target) in UPWARD:
            used.add((edge.source, edge.target))
            continue
        if depth[target] < depth[source] or (source, target) in REFUSED_WITHIN:
            wrong.append(f"{edge.source}:{edge.line} imports {edge.target}")
    assert wrong == []
    assert used == set(UPWARD), "allowed upward arrows no import needs any more"


def test_the_web_pages_import_the_api_and_never_the_reverse() -> None:
    wrong = []
    for edge in edges():
        source, target = edge.source.split("."), edge.target.split(".")
        if source[:2] != ["orchestrator", "web"] or target[:2] != ["orchestrator", "web"]:
            continue
        if len(source) < 3 or len(target) < 3 or (edge.source, edge.target) in WEB_ALLOWED:
            continue
        if (source[2], target[2]) in WEB_REFUSED or (source[2] == "http" and target[2] == "app"):
            wrong.append(f"{edge.source}:{edge.line} imports {edge.target}")
    assert wrong == []


def test_a_made_up_upward_import_is_refused_by_the_layer_rule() -> None:
    depth = layers()
    assert (
        depth[package_of("orchestrator.domain.scoring")] > depth[package_of("orchestrator.services.boards")]
    )
    assert depth[package_of("orchestrator.adapters.uow")] > depth[package_of("orchestrator.jobs.bodies")]
    assert ("adapters", "standin") in REFUSED_WITHIN and ("web", "demo") in REFUSED_WITHIN


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
