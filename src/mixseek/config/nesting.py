"""How deep the tables and arrays of a config file may nest. The TOML parser and the code reading a parsed
file recurse per level (`RecursionError` a few hundred down); a file nested deeper than `MAX_DEPTH` is refused
with the same line at any depth."""

from __future__ import annotations

from typing import Any

MAX_DEPTH = 100
TOO_DEEP = f"nested too deeply (more than {MAX_DEPTH} levels of tables and arrays)"


def too_deep(data: Any) -> bool:
    """Whether tables and arrays in `data` nest over `MAX_DEPTH` levels (walked with a stack: any depth)."""
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children = list(value.values())
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > MAX_DEPTH:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False
