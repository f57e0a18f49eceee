"""Every default text mixseek gives a model is in `mixseek.config.prompt_defaults`: no other module
of the package writes an instruction of its own, so that they can be read, compared and changed in
one place.

Found with `ast`: a string constant with Japanese text of 30 characters or more (the defaults are
Japanese), or any string given to `instructions=`, `system_prompt=` or `system_instruction=`, or
bound to a name of an instruction or preamble. Docstrings are not model text; a field's
`description=` belongs to its output schema; the prompt builder's per-language phrase tables
(`prompt_builder/texts.py`) are the words it formats history and rankings with, not instructions.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "mixseek"
HOME = PACKAGE / "config" / "prompt_defaults.py"
PHRASE_TABLES = PACKAGE / "prompt_builder" / "texts.py"
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
INSTRUCTION_KEYWORDS = {"instructions", "system_prompt", "system_instruction"}
INSTRUCTION_NAME = re.compile(r"instruction|preamble", re.IGNORECASE)


def _docstrings(tree: ast.Module) -> set[int]:
    """The string statements of `tree`: docstrings, and the strings that document the name above them."""
    bodies = [
        tree,
        *(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)),
    ]
    return {
        id(statement.value)
        for node in bodies
        for statement in node.body
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)
    }


def _strings(node: ast.AST) -> Iterator[ast.Constant]:
    return (n for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str))


def _literal(node: ast.AST | None) -> ast.Constant | None:
    """`node` when it is a string literal, or the literal of `"...".strip()`."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        node = node.func.value
    return node if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value else None


def _named_instructions(tree: ast.Module) -> Iterator[ast.Constant | None]:
    """Literals given to an instruction keyword or bound to an instruction's or preamble's name."""
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg in INSTRUCTION_KEYWORDS:
            yield _literal(node.value)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and INSTRUCTION_NAME.search(t.id) for t in targets):
                yield _literal(node.value)


def instruction_literals(path: Path) -> list[str]:
    """`line: text` of each literal in `path` that reads as a model's default instruction."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "description":
            skipped.update(id(s) for s in _strings(node.value))
    found = {id(s): s for s in _named_instructions(tree) if s is not None}
    if path != PHRASE_TABLES:
        found.update(
            (id(s), s) for s in _strings(tree) if len(str(s.value)) >= 30 and JAPANESE.search(str(s.value))
        )
    literals = sorted((s for key, s in found.items() if key not in skipped), key=lambda s: s.lineno)
    return [f"{s.lineno}: {str(s.value)[:60]!r}" for s in literals]


@pytest.mark.parametrize(
    "path", sorted(p for p in PACKAGE.rglob("*.py") if p != HOME), ids=lambda p: str(p.relative_to(PACKAGE))
)
def test_no_module_but_prompt_defaults_writes_a_model_instruction(path: Path) -> None:
    assert instruction_literals(path) == []


def test_the_scan_finds_the_defaults_where_they_are() -> None:
    found = instruction_literals(HOME)
    assert len(found) >= 15, found
