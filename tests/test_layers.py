"""Imports go one way, down the floors of docs/architecture.md, and never in a circle.

Every module under src/mixseek is parsed with `ast`; imports inside functions and under
`TYPE_CHECKING` count, they are dependencies all the same. `import a.b` depends on `a.b`;
`from a.b import x` depends on `a.b` (its `__init__` runs) and on `a.b.x` when that is a module.
A module named in a string is an import made later: a "module:Class" anywhere, or a module's
dotted name in a table (a lazy `_EXPORTS`, the command and route tables). It is made by the
module holding the string, or, for a registry, by the module that loads its classes
(STRING_LOADERS).

ROOMS puts each module in the room of the most specific pattern matching its name. A room may
import its own modules and rooms below it: within one package, rooms on a lower inner floor;
across packages, rooms on a lower floor. Rooms on one floor do not import each other.
"""

from __future__ import annotations

import ast
import fnmatch
import importlib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import NamedTuple

import pytest

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src"
ROOT = "mixseek"
DOC = REPO / "docs" / "architecture.md"

# pattern -> (floor, inner floor, room). A pattern is a module's name below `mixseek` (a package's
# own module written `pkg.__init__`, the top package's `__init__`), `*` as in fnmatch; it also
# matches the modules below it. A module no pattern of its own names falls back to its package's
# room, the one under the package's bare name. The same room text on one floor is one room.
ROOMS: dict[str, tuple[int, int, str]] = {
    # 12: the command line
    "cli.__main__": (12, 5, "the program"),
    "cli.entry": (12, 5, "the program"),
    "cli.app": (12, 4, "the command table"),
    "cli.*_cmd": (12, 3, "the commands"),
    "cli": (12, 2, "what the commands print and parse"),
    "cli.console": (12, 1, "the terminal"),
    "cli.safe_console": (12, 1, "the terminal"),
    "cli.text_layout": (12, 1, "the terminal"),
    "cli.errors": (12, 1, "the terminal"),
    "cli.interrupts": (12, 1, "the terminal"),
    "cli.loading_guard": (12, 1, "the terminal"),
    "cli.utf8_arguments": (12, 1, "the terminal"),
    "cli.options": (12, 1, "the terminal"),
    # 11: the Python API's front door, and task sets run through the API
    "__init__": (11, 1, "the Python API's front door"),
    "tasksets": (11, 1, "task sets"),
    "tasksets.runner": (11, 2, "running a task set"),
    "tasksets.report": (11, 2, "the statistics of a task set"),
    "tasksets.results": (11, 3, "presenting a task set"),
    "tasksets.markdown": (11, 3, "presenting a task set"),
    "tasksets.html": (11, 3, "presenting a task set"),
    # 10: what drives an engine: the API, the dashboard, the migration
    "api": (10, 1, "the API's parts"),
    "api.mixseek": (10, 2, "Mixseek"),
    "ui": (10, 1, "the dashboard's parts"),
    "ui.pages_*": (10, 2, "the pages"),
    "ui.live": (10, 2, "the pages"),
    "ui.actions": (10, 2, "the pages"),
    "ui.app": (10, 3, "the application"),
    "ui.server": (10, 3, "the application"),
    "migrate": (10, 1, "the migration's parts"),
    "migrate.configs": (10, 2, "the configs"),
    "migrate.history": (10, 2, "the history"),
    "migrate.workspace": (10, 3, "the migration"),
    # 9: the engines
    "orchestrator.events": (9, 1, "what an execution says"),
    "orchestrator.models": (9, 1, "what an execution says"),
    "orchestrator.progress": (9, 1, "what an execution says"),
    "orchestrator.execution_ids": (9, 1, "what an execution says"),
    "orchestrator.engine_lost": (9, 1, "what an execution says"),
    "orchestrator": (9, 2, "the parts of an execution"),
    "orchestrator.round_protocol": (9, 3, "the round protocol"),
    "orchestrator.round_steps": (9, 4, "the protocol's store steps"),
    "orchestrator.orchestrator": (9, 5, "the asyncio engine"),
    "orchestrator.local_rounds": (9, 5, "the asyncio engine"),
    "orchestrator.temporal": (9, 5, "the Temporal workflow and activities"),
    "orchestrator.temporal.client": (9, 6, "the Temporal engine"),
    "orchestrator.temporal.worker": (9, 6, "the Temporal engine"),
    "orchestrator.engine": (9, 7, "the choice of engine"),
    # 8: what uses the components
    "round_controller": (8, 1, "a round's records"),
    "round_controller.controller": (8, 2, "one team's round"),
    "report": (8, 1, "the report's parts"),
    "report.html": (8, 2, "the report"),
    "runs": (8, 1, "the read API"),
    # 7: the components; they do not import each other
    "agents": (7, 1, "the team kinds' core"),
    "agents.leader.models": (7, 1, "the team kinds' core"),
    "agents.member": (7, 2, "the member types"),
    "agents.leader": (7, 3, "the leader"),
    "agents.workflow": (7, 4, "the workflow teams"),
    "agents.team": (7, 5, "the choice of team kind"),
    "evaluator": (7, 1, "the evaluation's records"),
    "evaluator.metrics": (7, 2, "the metrics"),
    "evaluator.evaluator": (7, 3, "the evaluator"),
    "prompt_builder": (7, 1, "the prompts' parts"),
    "prompt_builder.builder": (7, 2, "the prompt builder"),
    "prompt_builder.__init__": (7, 2, "the prompt builder"),
    "storage.errors": (7, 1, "the store's records and contract"),
    "storage.models": (7, 1, "the store's records and contract"),
    "storage.overview": (7, 1, "the store's records and contract"),
    "storage.views": (7, 1, "the store's records and contract"),
    "storage.pairwise_views": (7, 1, "the store's records and contract"),
    "storage.lease": (7, 1, "the store's records and contract"),
    "storage.retry": (7, 1, "the store's records and contract"),
    "storage.schema": (7, 1, "the store's records and contract"),
    "storage.agreement": (7, 1, "the store's records and contract"),
    "storage.protocol": (7, 1, "the store's records and contract"),
    "storage._*": (7, 2, "DuckDB"),
    "storage.duckdb_instance": (7, 2, "DuckDB"),
    "storage.listing": (7, 3, "reads and imports"),
    "storage.read_model": (7, 3, "reads and imports"),
    "storage.scored": (7, 3, "reads and imports"),
    "storage.quick_read": (7, 3, "reads and imports"),
    "storage.health": (7, 3, "reads and imports"),
    "storage.import_history": (7, 3, "reads and imports"),
    "storage": (7, 4, "the public store"),
    "storage.__init__": (7, 4, "the public store"),
    # 6: spans, which every layer above opens
    "telemetry": (6, 1, "telemetry"),
    # 5: the configuration
    "config": (5, 1, "the configuration's parts"),
    "config.*_models": (5, 2, "each file's settings"),
    "config.evaluator": (5, 2, "each file's settings"),
    "config.judgment": (5, 2, "each file's settings"),
    "config.orchestrator": (5, 2, "each file's settings"),
    "config.pairwise": (5, 2, "each file's settings"),
    "config.prompt_builder": (5, 2, "each file's settings"),
    "config.prompt_templates": (5, 2, "each file's settings"),
    "config.teams": (5, 3, "a whole workspace"),
    "config.bundle": (5, 3, "a whole workspace"),
    # 4 and 3: plugins, and models from model strings
    "plugin_registry": (4, 1, "plugin registries"),
    "plugins": (3, 1, "plugin classes"),
    "llm": (3, 1, "the model layer's parts"),
    "llm.local_model": (3, 2, "the embedded model's engine"),
    "llm.local_model.model": (3, 3, "the embedded model"),
    "llm.local": (3, 4, "the providers"),
    "llm.builtin": (3, 4, "the providers"),
    "llm.registry": (3, 4, "the providers"),
    "llm.checks": (3, 5, "models from model strings"),
    "llm.factory": (3, 5, "models from model strings"),
    "llm.structured": (3, 5, "models from model strings"),
    "llm.__init__": (3, 6, "the model layer's front door"),
    # 2 and 1: the ground
    "errors": (2, 1, "errors"),
    "telemetry_redaction": (2, 1, "redacted spans"),
    "redaction": (1, 1, "redaction"),
    "exit_codes": (1, 1, "exit codes"),
    "lazy_exports": (1, 1, "lazy names"),
    "round_state": (1, 1, "a round's state"),
    "stats": (1, 1, "statistics"),
    "text_safety": (1, 1, "safe text"),
    "version": (1, 1, "the version"),
    "models": (1, 1, "mixseek-core's plugin records"),
}
COMPONENTS_FLOOR = 7

# (module holding a registry, registry variable) -> the module that loads its "module:Class"
# strings: a registry may name only classes its loader may import.
STRING_LOADERS: dict[tuple[str, str], str] = {
    ("mixseek.config.registries", "MEMBER_TYPES"): "mixseek.agents.member.registry",
    ("mixseek.config.registries", "METRICS"): "mixseek.evaluator.metrics.registry",
}

# Modules whose only job is to re-export names, each with why it stays. Nothing in src imports
# through them: a name is imported from the module that defines it.
REEXPORTS: dict[str, str] = {
    "mixseek": "README: the Python API, `from mixseek import …`",
    "mixseek.llm": "README: `from mixseek.llm import override_models`",
    "mixseek.storage": "README: the store's typed read model, `mixseek.storage`",
    "mixseek.evaluator.metrics": "README: plugins subclass `mixseek.evaluator.metrics.Metric`",
    "mixseek.prompt_builder": "a seed's import path (tests/prompt_builder/test_seed_errors.py)",
    "mixseek.agents.leader.config": "a seed's import path (tests/plugins/test_config_imports.py)",
    "mixseek.agents.member.options": "a seed's import path (tests/plugins/test_config_imports.py)",
    "mixseek.orchestrator.governor": "a moved import path (test_seed_named_and_moved_import_paths…)",
}

# Import circles known and accepted, each with its reason. The last test fails when one of them
# is gone, so that this list only ever shrinks.
ALLOWED_CYCLES: dict[frozenset[str], str] = {}

NAMED = re.compile(r"mixseek(?:\.\w+)+(?::\w+)?")


class Room(NamedTuple):
    package: str
    floor: int
    inner: int
    what: str

    def __str__(self) -> str:
        return f"{self.package} {self.floor}.{self.inner} ({self.what})"


@dataclass(frozen=True)
class Import:
    importer: str
    imported: str
    line: int
    how: str = ""
    """Empty for an import statement; else the string that names the module."""

    def describe(self, tree: Tree) -> str:
        path = tree.modules[self.importer].relative_to(tree.src.parent)
        by = f" by name {self.how!r}" if self.how else ""
        return f"{self.importer} -> {self.imported}{by} ({path}:{self.line})"


def room_name(module: str) -> str:
    """`mixseek.a.b` -> `a.b`; a package's own module gets `.__init__` (set by Tree)."""
    return module.removeprefix(ROOT).removeprefix(".")


def _specificity(pattern: str) -> tuple[int, int]:
    return pattern.count("."), sum(c not in "*?[]" for c in pattern)


def room_of(name: str, rooms: Mapping[str, tuple[int, int, str]] = ROOMS) -> Room | None:
    """The room of a module's room name (`a.b` or `a.__init__`), or None if no pattern matches;
    two equally specific patterns of different rooms are an error."""
    found = [p for p in rooms if fnmatch.fnmatchcase(name, p) or fnmatch.fnmatchcase(name, p + ".*")]
    if not found:
        return None
    best = max(map(_specificity, found))
    top = {rooms[p] for p in found if _specificity(p) == best}
    if len(top) > 1:
        raise AssertionError(f"{name} is in {len(top)} rooms at once: {sorted(top)}")
    floor, inner, what = top.pop()
    return Room(ROOT if name == "__init__" else name.split(".")[0], floor, inner, what)


def may_import(importer: Room, imported: Room) -> bool:
    if importer == imported:
        return True
    if importer.package == imported.package:
        return importer.inner > imported.inner
    return importer.floor > imported.floor


class Tree:
    """The modules of one source tree (`src`, or a planted one in a test), and their imports."""

    def __init__(self, src: Path) -> None:
        self.src = src

    @cached_property
    def modules(self) -> dict[str, Path]:
        """Every module by dotted name (a package by its own name, for `__init__.py`)."""
        modules: dict[str, Path] = {}
        for path in sorted((self.src / ROOT).rglob("*.py")):
            parts = list(path.relative_to(self.src).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
        return modules

    def is_package(self, module: str) -> bool:
        return self.modules[module].name == "__init__.py"

    def room_name(self, module: str) -> str:
        name = room_name(module)
        return (f"{name}.__init__" if name else "__init__") if self.is_package(module) else name

    def room(self, module: str) -> Room:
        found = room_of(self.room_name(module))
        assert found is not None, f"{module} is in no room: add its package to ROOMS"
        return found

    @cache  # noqa: B019 - one Tree per source tree, kept for the session
    def tree(self, module: str) -> ast.Module:
        return ast.parse(self.modules[module].read_text(encoding="utf-8"))

    def nearest(self, name: str) -> str | None:
        while name and name not in self.modules:
            name = name.rpartition(".")[0]
        return name or None

    def absolute(self, module: str, node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        package = module if self.is_package(module) else module.rpartition(".")[0]
        base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
        return ".".join([*base, *([node.module] if node.module else [])])

    def _imports_of(self, module: str) -> Iterator[Import]:
        for node in ast.walk(self.tree(module)):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                source = self.absolute(module, node)
                subs = (f"{source}.{alias.name}" for alias in node.names)
                targets = [source, *(t for t in subs if t in self.modules)]
            for target in targets:
                if target != ROOT and not target.startswith(ROOT + "."):
                    continue
                found = self.nearest(target)
                if found is not None and found != module:
                    yield Import(module, found, node.lineno)

    @cached_property
    def imports(self) -> tuple[Import, ...]:
        return tuple(imp for module in self.modules for imp in self._imports_of(module))

    def named(self, module: str) -> Iterator[tuple[str | None, ast.Constant]]:
        """Strings naming a module or class: a "module:Class" anywhere, a module's dotted name
        in a tuple, list, set or dict value (not a program run with `-m`), each with the name
        of the top-level variable it is assigned to."""
        for statement in self.tree(module).body:
            owner = None
            if isinstance(statement, ast.Assign) and isinstance(statement.targets[0], ast.Name):
                owner = statement.targets[0].id
            for node in ast.walk(statement):
                items: list[ast.expr] = []
                if isinstance(node, ast.Tuple | ast.List | ast.Set):
                    items = [
                        e for i, e in enumerate(node.elts) if not (i and _is_str(node.elts[i - 1], "-m"))
                    ]
                elif isinstance(node, ast.Dict):
                    items = node.values
                for item in items:
                    if _is_str(item) and NAMED.fullmatch(item.value) and item.value in self.modules:
                        yield owner, item
                if _is_str(node) and NAMED.fullmatch(node.value) and ":" in node.value:
                    yield owner, node

    @cached_property
    def by_name(self) -> tuple[Import, ...]:
        """Each string naming a module, as an import by its loader."""
        found = []
        for module in self.modules:
            for owner, node in self.named(module):
                target = node.value.partition(":")[0]
                loader = STRING_LOADERS.get((module, owner or ""), module)
                if target in self.modules:
                    found.append(Import(loader, target, node.lineno, node.value))
        return tuple(found)

    def defines(self, module: str, name: str) -> bool:
        """Whether `name` is bound at the top of `module` other than by an import."""
        for node in self.tree(module).body:
            if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
                return True
            targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return True
        return False

    def reexported(self, module: str) -> dict[str, str] | None:
        """The names `module` re-exports (name -> the module it takes it from) if re-exporting
        is all it does (imports, `__all__`, a lazy `_EXPORTS` table), else None."""
        names: dict[str, str] = {}
        statements = self.tree(module).body
        for node in statements:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                statements = [*statements, *node.body]
            elif isinstance(node, ast.ImportFrom):
                source = self.absolute(module, node)
                if source.startswith(ROOT + ".") and source != f"{ROOT}.lazy_exports":
                    names.update({a.asname or a.name: source for a in node.names})
            elif isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) in _REEXPORT_PARTS:
                if ast.unparse(node.targets[0]) == "_EXPORTS" and isinstance(node.value, ast.Dict):
                    names.update(
                        {
                            ast.literal_eval(k): ast.literal_eval(v)
                            for k, v in zip(node.value.keys, node.value.values, strict=True)
                            if k
                        }
                    )
            elif isinstance(node, ast.AnnAssign) and ast.unparse(node.target) in _REEXPORT_PARTS:
                if ast.unparse(node.target) == "_EXPORTS" and isinstance(node.value, ast.Dict):
                    names.update(
                        {
                            ast.literal_eval(k): ast.literal_eval(v)
                            for k, v in zip(node.value.keys, node.value.values, strict=True)
                            if k
                        }
                    )
            elif not (isinstance(node, ast.Import) or (isinstance(node, ast.Expr) and _is_str(node.value))):
                return None
        listed = any(isinstance(n, ast.Assign | ast.AnnAssign) for n in statements)
        return names if names and listed else None

    @cached_property
    def reexports(self) -> dict[str, dict[str, str]]:
        return {m: names for m in self.modules if (names := self.reexported(m)) is not None}


_REEXPORT_PARTS = {"__all__", "_EXPORTS", "TYPE_CHECKING", "(__getattr__, __dir__)", "__getattr__, __dir__"}


def _is_str(node: ast.AST, value: str | None = None) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and value in (None, node.value)


# -- the checks, each a list of what breaks a rule (empty: all is well) -------------------------


def unroomed(tree: Tree) -> list[str]:
    return sorted({m for m in tree.modules if room_of(tree.room_name(m)) is None})


def upward(tree: Tree, edges: tuple[Import, ...]) -> list[str]:
    """Each import of a room by a room that may not import it."""
    wrong = []
    for imp in edges:
        importer, imported = tree.room(imp.importer), tree.room(imp.imported)
        if not may_import(importer, imported):
            wrong.append(f"{imp.describe(tree)}: {importer} may not import {imported}")
    return wrong


def unresolved(tree: Tree) -> list[str]:
    """Each "module:Class" string whose module or class is not there, and each registry whose
    declared loader does not import it."""
    wrong = []
    for module in tree.modules:
        for _, node in tree.named(module):
            target, _, name = node.value.partition(":")
            if name and not (target in tree.modules and tree.defines(target, name)):
                wrong.append(f"{module}:{node.lineno}: {node.value!r} names no class")
    for (holder, variable), loader in STRING_LOADERS.items():
        if holder not in tree.modules or loader not in tree.modules:
            continue
        imported = {
            alias.name
            for node in ast.walk(tree.tree(loader))
            if isinstance(node, ast.ImportFrom) and tree.absolute(loader, node) == holder
            for alias in node.names
        }
        if variable not in imported:
            wrong.append(f"{loader} is the loader of {holder}.{variable} but does not import it")
    return wrong


def through_reexports(tree: Tree) -> list[str]:
    """Each import of a name from a module that only re-exports it, and each lazy table entry
    that names another module than the one defining its name."""
    wrong = []
    for module in tree.modules:
        for node in ast.walk(tree.tree(module)):
            if isinstance(node, ast.ImportFrom):
                source = tree.absolute(module, node)
                names = tree.reexports.get(source, {})
                for alias in node.names:
                    if alias.name in names and f"{source}.{alias.name}" not in tree.modules:
                        where = f"{module}:{node.lineno}: {alias.name} through {source}"
                        wrong.append(f"{where}; import it from {names[alias.name]}")
            elif isinstance(node, ast.Import):
                wrong += [
                    f"{module}:{node.lineno}: import {a.name} reads names through a re-export module"
                    for a in node.names
                    if a.name in tree.reexports
                ]
        for name, source in tree.reexports.get(module, {}).items():
            if source in tree.reexports:
                wrong.append(f"{module}: {name} through {source}, which only re-exports it")
            elif (
                source in tree.modules
                and f"{source}.{name}" not in tree.modules
                and not tree.defines(source, name)
            ):
                wrong.append(f"{module}: {name} is not defined in {source}")
    return wrong


def cycles(tree: Tree) -> dict[frozenset[str], list[str]]:
    """Each group of modules that import each other in a circle (Tarjan's strongly connected
    components), with one circle through it as a path."""
    graph: dict[str, set[str]] = {m: set() for m in tree.modules}
    for imp in tree.imports:
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


SOURCE = Tree(SRC)


# -- the source tree ----------------------------------------------------------------------------


def test_every_module_has_a_layer() -> None:
    assert not unroomed(SOURCE), f"modules in no room (add their package to ROOMS): {unroomed(SOURCE)}"


def test_a_package_is_on_one_floor() -> None:
    floors: dict[str, set[int]] = {}
    for pattern, (floor, _, _) in ROOMS.items():
        floors.setdefault(pattern.split(".")[0], set()).add(floor)
    assert {p: f for p, f in floors.items() if len(f) > 1} == {}


def test_a_module_no_pattern_names_takes_its_packages_room() -> None:
    assert room_of("orchestrator.new_part") == Room("orchestrator", 9, 2, "the parts of an execution")
    assert room_of("orchestrator.temporal.new_activity") == room_of("orchestrator.temporal.workflow")
    assert room_of("storage._new_sql") == room_of("storage._rows")
    assert room_of("new_package.module") is None


def test_the_graph_is_drawn() -> None:
    """A guard against a parser that finds nothing: known edges must be there."""
    edges = {(imp.importer, imp.imported) for imp in SOURCE.imports}
    assert ("mixseek.round_controller.controller", "mixseek.prompt_builder.models") in edges
    assert ("mixseek.cli.exec_cmd", "mixseek.cli.engine_options") in edges
    named = {(imp.importer, imp.imported) for imp in SOURCE.by_name}
    assert ("mixseek.cli.app", "mixseek.cli.exec_cmd") in named
    assert ("mixseek.agents.member.registry", "mixseek.agents.member.plain") in named
    assert ("mixseek.evaluator.metrics.registry", "mixseek.evaluator.metrics.patterns") in named
    assert len(SOURCE.reexports) >= 4


def test_no_upward_import() -> None:
    wrong = upward(SOURCE, SOURCE.imports)
    assert not wrong, "imports a room may not make:\n" + "\n".join(wrong)


def test_components_do_not_import_each_other() -> None:
    across = [
        imp.describe(SOURCE)
        for imp in (*SOURCE.imports, *SOURCE.by_name)
        if SOURCE.room(imp.importer).floor == SOURCE.room(imp.imported).floor == COMPONENTS_FLOOR
        and SOURCE.room(imp.importer).package != SOURCE.room(imp.imported).package
    ]
    assert not across, "imports between components of the middle layer:\n" + "\n".join(across)


def test_no_string_names_a_class_above_its_loader() -> None:
    wrong = upward(SOURCE, SOURCE.by_name) + unresolved(SOURCE)
    assert not wrong, "modules and classes named in strings:\n" + "\n".join(wrong)


def test_no_internal_import_through_a_reexport_module() -> None:
    wrong = through_reexports(SOURCE)
    assert not wrong, "imports through re-export modules:\n" + "\n".join(wrong)


def test_every_reexport_module_is_public() -> None:
    """A module that only re-exports is public API (README) or an import path kept on purpose."""
    found = set(SOURCE.reexports)
    assert sorted(found - set(REEXPORTS)) == [], "re-export modules nobody asked for: delete them"
    assert sorted(set(REEXPORTS) - found) == [], "no longer re-export modules: remove from REEXPORTS"
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for module, why in REEXPORTS.items():
        if why.startswith("README"):
            assert re.search(rf"\b{re.escape(module)}\b(?![.\w])", readme), module


def test_no_import_cycle() -> None:
    found = [
        " -> ".join(circle)
        + (f" (the whole circle: {', '.join(sorted(group))})" if len(group) >= len(circle) else "")
        for group, circle in cycles(SOURCE).items()
        if group not in ALLOWED_CYCLES
    ]
    assert not found, "import cycles:\n" + "\n".join(found)


def test_allowed_cycles_still_exist() -> None:
    """An allowed circle that is gone must leave ALLOWED_CYCLES too."""
    found = cycles(SOURCE)
    stale = [sorted(group) for group in ALLOWED_CYCLES if group not in found]
    assert not stale, f"no longer circles, remove from ALLOWED_CYCLES: {stale}"


def test_the_architecture_document_has_the_floors() -> None:
    """docs/architecture.md's floor table gives each package the floor ROOMS gives it, and names
    every pattern of ROOMS."""
    text = DOC.read_text(encoding="utf-8")
    documented = {
        name: int(floor)
        for floor, names in re.findall(r"^\| *(\d+) *\|([^|]*)\|", text, flags=re.MULTILINE)
        for name in re.findall(r"`([\w.]+)`", names)
    }
    expected = {("mixseek" if p == "__init__" else p.split(".")[0]): f for p, (f, _, _) in ROOMS.items()}
    assert documented == expected
    assert [p for p in ROOMS if f"`{p}`" not in text] == []


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


# -- the checker, on planted trees --------------------------------------------------------------


def _plant(tmp_path: Path, files: dict[str, str]) -> Tree:
    """A source tree of the given modules (dotted name -> source), packages made as needed."""
    for module, source in files.items():
        parts = module.split(".")
        for i in range(1, len(parts)):
            init = tmp_path.joinpath(*parts[:i], "__init__.py")
            init.parent.mkdir(parents=True, exist_ok=True)
            init.touch()
        target = tmp_path.joinpath(*parts[:-1], parts[-1] + ".py")
        if module in {m.rpartition(".")[0] for m in files}:
            target = tmp_path.joinpath(*parts, "__init__.py")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(source, encoding="utf-8")
    return Tree(tmp_path)


def test_the_checker_finds_an_upward_import_inside_a_package(tmp_path: Path) -> None:
    tree = _plant(
        tmp_path,
        {
            "mixseek.orchestrator.orchestrator": "class Orchestrator: ...\n",
            "mixseek.orchestrator.events": "def f():\n    from mixseek.orchestrator.orchestrator import A\n",
            "mixseek.orchestrator.temporal.client": "from mixseek.orchestrator.orchestrator import A\n",
        },
    )
    found = upward(tree, tree.imports)
    assert [(line.split(" (")[0], line.split("): ")[1]) for line in found] == [
        (
            "mixseek.orchestrator.events -> mixseek.orchestrator.orchestrator",
            "orchestrator 9.1 (what an execution says) may not import orchestrator 9.5 (the asyncio engine)",
        )
    ]
    assert "mixseek/orchestrator/events.py:2)" in found[0]


def test_the_checker_finds_rooms_on_one_floor_importing_each_other(tmp_path: Path) -> None:
    tree = _plant(
        tmp_path,
        {
            "mixseek.storage.views": "",
            "mixseek.agents.team": "from mixseek.storage import views\n",
            "mixseek.orchestrator.local_rounds": "import mixseek.orchestrator.temporal.workflow\n",
            "mixseek.orchestrator.temporal.workflow": "",
        },
    )
    found = upward(tree, tree.imports)
    assert len(found) == 3, found  # agents -> storage, agents -> storage.views, the two engines
    assert all("may not import" in line for line in found)


def test_the_checker_finds_a_string_named_class_above_its_registrys_loader(tmp_path: Path) -> None:
    registry = (
        "from mixseek.plugin_registry import PluginRegistry\n"
        'MEMBER_TYPES = PluginRegistry("member type", "g", {\n'
        '    "plain": "mixseek.agents.member.plain:PlainMemberAgent",\n'
        '    "boss": "mixseek.orchestrator.orchestrator:Orchestrator",\n'
        "})\n"
    )
    tree = _plant(
        tmp_path,
        {
            "mixseek.config.registries": registry,
            "mixseek.agents.member.registry": "from mixseek.config.registries import MEMBER_TYPES\n",
            "mixseek.agents.member.plain": "class PlainMemberAgent: ...\n",
            "mixseek.orchestrator.orchestrator": "class Orchestrator: ...\n",
            "mixseek.plugin_registry": "class PluginRegistry: ...\n",
        },
    )
    assert [(i.importer, i.imported) for i in tree.by_name] == [
        ("mixseek.agents.member.registry", "mixseek.agents.member.plain"),
        ("mixseek.agents.member.registry", "mixseek.orchestrator.orchestrator"),
    ]
    found = upward(tree, tree.by_name)
    assert len(found) == 1 and "'mixseek.orchestrator.orchestrator:Orchestrator'" in found[0], found
    assert "agents 7.2 (the member types) may not import orchestrator 9.5" in found[0]
    assert unresolved(tree) == []


def test_the_checker_finds_a_string_named_module_above_its_holder(tmp_path: Path) -> None:
    tree = _plant(
        tmp_path,
        {
            "mixseek.storage": '_EXPORTS = {"Orchestrator": "mixseek.orchestrator.orchestrator"}\n',
            "mixseek.orchestrator.orchestrator": "class Orchestrator: ...\n",
            "mixseek.config.registries": 'PLUGINS = {"x": "mixseek.config.gone:A", "y": "mixseek.ui.app:B"}',
            "mixseek.ui.app": "class B: ...\n",
            "mixseek.orchestrator.temporal.cluster": 'ARGV = ["python", "-m", "mixseek.ui.app"]\n',
        },
    )
    found = upward(tree, tree.by_name)
    assert [line.split(" (")[0] for line in found] == [
        "mixseek.config.registries -> mixseek.ui.app by name 'mixseek.ui.app:B'",
        "mixseek.storage -> mixseek.orchestrator.orchestrator by name 'mixseek.orchestrator.orchestrator'",
    ]
    assert unresolved(tree) == ["mixseek.config.registries:1: 'mixseek.config.gone:A' names no class"]


def test_the_checker_finds_an_import_through_a_reexport_module(tmp_path: Path) -> None:
    tree = _plant(
        tmp_path,
        {
            "mixseek.llm": '"""Front."""\nfrom mixseek.llm.factory import make\n__all__ = ["make"]\n',
            "mixseek.llm.factory": "def make(): ...\n",
            "mixseek.agents.leader.agent": "from mixseek.llm import make\nfrom mixseek.llm import factory\n",
            "mixseek": '_EXPORTS = {"make": "mixseek.llm"}\n__all__ = ["make"]\n',
        },
    )
    assert sorted(tree.reexports) == ["mixseek", "mixseek.llm"]
    assert sorted(through_reexports(tree)) == [
        "mixseek.agents.leader.agent:1: make through mixseek.llm; import it from mixseek.llm.factory",
        "mixseek: make through mixseek.llm, which only re-exports it",
    ]
