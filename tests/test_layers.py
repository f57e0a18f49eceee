"""Imports go one way, down the layers of the architecture (the LAYERS table below), and never in a circle.

Every module under src/mixseek is parsed with `ast` (imports inside functions and under
`TYPE_CHECKING` count: they are dependencies all the same) and mapped to its layer by its
top-level package. A module may import its own layer or the layers below, never one above;
the components of the middle layer (team, evaluator, prompt builder, store) do not import each
other, so the round controller is the one place that wires them together.

How an import becomes an edge of the graph:
- `import a.b.c` depends on module `a.b.c`;
- `from a.b import x` depends on `a.b` (it reads that package's namespace, running its
  `__init__`), and also on `a.b.x` when `x` is a submodule.

Runtime look-ups by name (the plugin registries' "module:Class" strings, entry points) are not
imports and are not drawn: they are how a lower layer is told about classes it must not import.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
ROOT = "mixseek"

# Higher rank = higher layer. The key is the module's first name below `mixseek` ("" = the
# package itself, whose `__init__` is the Python API's front door).
LAYERS: dict[str, tuple[int, str]] = {
    "cli": (5, "front ends"),
    "ui": (5, "front ends"),
    "": (4, "API and engine"),
    "api": (4, "API and engine"),
    # Reading stored executions (`list_executions`, `read_execution`): the CLI and the dashboard read through it.
    "runs": (4, "API and engine"),
    "orchestrator": (4, "API and engine"),
    # A use case the CLI runs, like an execution: it converts configs and imports history
    # through the config and store layers, and nothing below imports it.
    "migrate": (4, "API and engine"),
    # Presenting a stored execution as HTML (charts, sanitised Markdown, the report): what both
    # front ends show, over the store's read model.
    "report": (4, "API and engine"),
    # `mixseek bench`: runs of the API over a task set, and the statistics of their results.
    "tasksets": (4, "API and engine"),
    "round_controller": (3, "round controller"),
    "agents": (2, "components"),
    "evaluator": (2, "components"),
    "prompt_builder": (2, "components"),
    "storage": (2, "components"),
    "config": (1, "ground"),
    "llm": (1, "ground"),
    "errors": (1, "ground"),
    "exit_codes": (1, "ground"),
    "redaction": (1, "ground"),
    "text_safety": (1, "ground"),
    "plugins": (1, "ground"),
    "plugin_registry": (1, "ground"),
    "lazy_exports": (1, "ground"),
    "version": (1, "ground"),
    "round_state": (1, "ground"),
    # Judging statistics (agreement, Bradley–Terry, tests): pure functions every reporter shares.
    "stats": (1, "ground"),
    # Spans for every layer's work: each layer opens its own, so the switch lives on the ground.
    "telemetry": (1, "ground"),
    "telemetry_redaction": (1, "ground"),
}
COMPONENTS_RANK = 2

# Import circles known and accepted, each with its reason. The last test fails when one of them
# is gone, so that this list only ever shrinks.
ALLOWED_CYCLES: dict[frozenset[str], str] = {}


@dataclass(frozen=True)
class Import:
    importer: str
    imported: str
    line: int

    def describe(self) -> str:
        path = module_files()[self.importer].relative_to(SRC.parent)
        return f"{self.importer} -> {self.imported} ({path}:{self.line})"


@cache
def module_files() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name, for `__init__.py`)."""
    modules: dict[str, Path] = {}
    for path in sorted((SRC / ROOT).rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _nearest_module(name: str) -> str | None:
    modules = module_files()
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _is_package(module: str) -> bool:
    return module_files()[module].name == "__init__.py"


def _imports_of(module: str) -> Iterator[Import]:
    tree = ast.parse(module_files()[module].read_text(encoding="utf-8"))
    package = module if _is_package(module) else module.rpartition(".")[0]
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            targets = [source, *(f"{source}.{alias.name}" for alias in node.names)]
            # `from a.b import x`: `a.b` always, `a.b.x` only when it is a module
            targets = [targets[0], *(t for t in targets[1:] if t in module_files())]
        for target in targets:
            if target != ROOT and not target.startswith(ROOT + "."):
                continue
            found = _nearest_module(target)
            if found is not None and found != module:
                yield Import(module, found, node.lineno)


@cache
def all_imports() -> tuple[Import, ...]:
    return tuple(imp for module in module_files() for imp in _imports_of(module))


def layer_key(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def rank(module: str) -> int:
    return LAYERS[layer_key(module)][0]


def _cycles() -> dict[frozenset[str], list[str]]:
    """Each group of modules that import each other in a circle (Tarjan's strongly connected
    components), with one circle through it as a path."""
    graph: dict[str, set[str]] = {m: set() for m in module_files()}
    for imp in all_imports():
        graph[imp.importer].add(imp.imported)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group: set[str] = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return {frozenset(group): _circle_through(graph, group) for group in groups}


def _circle_through(graph: dict[str, set[str]], group: set[str]) -> list[str]:
    """The shortest circle from the group's first module back to itself, within the group."""
    start = min(group)
    paths: dict[str, list[str]] = {start: [start]}
    frontier = [start]
    while frontier:
        following: list[str] = []
        for node in frontier:
            for nxt in sorted(graph[node] & group):
                if nxt == start:
                    return [*paths[node], start]
                if nxt not in paths:
                    paths[nxt] = [*paths[node], nxt]
                    following.append(nxt)
        frontier = following
    raise AssertionError(f"no circle in strongly connected group {sorted(group)}")


def test_every_module_has_a_layer() -> None:
    unmapped = sorted({m for m in module_files() if layer_key(m) not in LAYERS})
    assert not unmapped, f"modules in no layer (add their package to LAYERS): {unmapped}"


def test_the_graph_is_drawn() -> None:
    """A guard against a parser that finds nothing: known edges must be there."""
    edges = {(imp.importer, imp.imported) for imp in all_imports()}
    assert ("mixseek.round_controller.controller", "mixseek.prompt_builder.models") in edges
    assert ("mixseek.cli.exec_cmd", "mixseek.cli.engine_options") in edges


def test_no_upward_import() -> None:
    upward = [
        f"{imp.describe()}: layer '{LAYERS[layer_key(imp.importer)][1]}' imports "
        f"'{LAYERS[layer_key(imp.imported)][1]}' above it"
        for imp in all_imports()
        if rank(imp.importer) < rank(imp.imported)
    ]
    assert not upward, "upward imports:\n" + "\n".join(upward)


def test_components_do_not_import_each_other() -> None:
    across = [
        imp.describe()
        for imp in all_imports()
        if rank(imp.importer) == rank(imp.imported) == COMPONENTS_RANK
        and layer_key(imp.importer) != layer_key(imp.imported)
    ]
    assert not across, "imports between components of the middle layer:\n" + "\n".join(across)


def test_no_import_cycle() -> None:
    cycles = [
        " -> ".join(circle)
        + (f" (the whole circle: {', '.join(sorted(group))})" if len(group) >= len(circle) else "")
        for group, circle in _cycles().items()
        if group not in ALLOWED_CYCLES
    ]
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def test_allowed_cycles_still_exist() -> None:
    """An allowed circle that is gone must leave ALLOWED_CYCLES too."""
    found = _cycles()
    stale = [sorted(group) for group in ALLOWED_CYCLES if group not in found]
    assert not stale, f"no longer circles, remove from ALLOWED_CYCLES: {stale}"


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("mixseek.round_controller.models", "RoundState"),
        ("mixseek.storage.aggregation_store", "AggregationStore"),
        ("mixseek.prompt_builder.protocol", "PromptBuilder"),
        ("mixseek.prompt_builder.constants", "DEFAULT_TEAM_USER_PROMPT"),
        ("mixseek.orchestrator.governor", "Governor"),
    ],
)
def test_seed_named_and_moved_import_paths_still_work(module: str, name: str) -> None:
    """The seeds (and code following them) import these names from these modules, also where the
    definition moved down a layer."""
    assert hasattr(importlib.import_module(module), name)
