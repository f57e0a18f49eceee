"""From a grammar schema (`schema.grammar_schema`) to llama.cpp's GBNF, adding what llama-cpp-python's
converter lacks: integer-bounded numbers spelled by rules (a 0–100 score: small models write years there), an
`ANSWER_TEXT` that cannot copy a tool call, no raw control characters. `llama_cpp` is imported lazily."""

from __future__ import annotations

import importlib
import json
import math
from typing import Any

from mixseek.llm.local_model.schema import ANSWER_TEXT, JsonSchema, numeric_bounds

FRACTION_DIGITS = 3
"""Most decimals a bounded number may have in a grammar."""
MAX_BOUND_DIGITS = 15
"""Bounds with more digits than this are left to the check after parsing."""

# llama-cpp-python's converter lets a JSON string hold raw control characters (a newline, say),
# which JSON forbids; llama.cpp's own converter excludes them, and so does this rule.
LOOSE_CHAR_RULE = r'char ::= [^"\\] |'
JSON_CHAR_RULE = r'char ::= [^"\\\x7F\x00-\x1F] |'
_ANSWER_FIRST_CHAR = r'[^"\\{ \x7F\x00-\x1F]'
_FRACTION = '"." [0-9]' + " [0-9]?" * (FRACTION_DIGITS - 1)
_ZERO_FRACTION = '"." "0"' + ' "0"?' * (FRACTION_DIGITS - 1)


def schema_to_gbnf(schema: JsonSchema) -> str:
    """The GBNF grammar (root rule `root`) of a grammar schema."""
    converters: Any = importlib.import_module("llama_cpp.llama_grammar")

    class BoundedConverter(converters.SchemaConverter):  # type: ignore[misc]
        def visit(self, node: Any, name: str) -> str:
            if isinstance(node, dict):
                rule = _custom_rule(node, self)
                if rule is not None:
                    rule_name = name + "-" if name in converters.RESERVED_NAMES else name or "root"
                    return str(self._add_rule(rule_name, rule))
            return str(super().visit(node, name))

    converter = BoundedConverter(prop_order={}, allow_fetch=False, dotall=False, raw_pattern=False)
    resolved = converter.resolve_refs(json.loads(json.dumps(schema)), "stdin")
    converter.visit(resolved, "")
    return str(converter.format_grammar()).replace(LOOSE_CHAR_RULE, JSON_CHAR_RULE)


def _custom_rule(node: JsonSchema, converter: Any) -> str | None:
    if node.get(ANSWER_TEXT) and node.get("type") == "string":
        converters: Any = importlib.import_module("llama_cpp.llama_grammar")
        char = converter._add_primitive("char", converters.PRIMITIVE_RULES["char"])
        return rf'"\"" {_ANSWER_FIRST_CHAR} {char}* "\"" space'
    if node.get("type") in ("integer", "number"):
        return bounded_number_rule(node)
    return None


def bounded_number_rule(node: JsonSchema) -> str | None:
    """A GBNF rule for the numbers `node` allows, or None when its bounds cannot be spelled."""
    integer = node.get("type") == "integer"
    bounds = whole_bounds(node, integer=integer)
    if bounds is None:
        return None
    low, high, high_included = bounds
    if high is None:
        whole = f"({integer_at_least_rule(low)})"
        return whole if integer else f"{whole} ({_FRACTION})?"
    if integer:
        return f"({integer_range_rule(low, high)})"
    alternatives = []
    if high - 1 >= low:
        alternatives.append(f"({integer_range_rule(low, high - 1)}) ({_FRACTION})?")
    if high_included:
        alternatives.append(f'"{high}" ({_ZERO_FRACTION})?')
    return " | ".join(f"({alternative})" for alternative in alternatives) if alternatives else None


def whole_bounds(node: JsonSchema, *, integer: bool) -> tuple[int, int | None, bool] | None:
    """(lowest, highest or None, highest allowed?) in whole numbers, when spellable: a lower bound >= 0 and,
    for a number, whole bounds and an inclusive lower one."""
    lower, lower_exclusive, upper, upper_exclusive = numeric_bounds(node)
    if lower is None or lower < 0:
        return None
    if integer:
        low = math.floor(lower) + 1 if lower_exclusive else math.ceil(lower)
        if upper is None:
            return low, None, True
        high = math.ceil(upper) - 1 if upper_exclusive else math.floor(upper)
        return (low, high, True) if low <= high and len(str(high)) <= MAX_BOUND_DIGITS else None
    if lower_exclusive or not float(lower).is_integer():
        return None
    if upper is None:
        return int(lower), None, True
    if not float(upper).is_integer() or upper < lower or len(str(int(upper))) > MAX_BOUND_DIGITS:
        return None
    return int(lower), int(upper), not upper_exclusive


def integer_range_rule(low: int, high: int) -> str:
    """GBNF alternatives spelling exactly the whole numbers `low`..`high` (0 <= low <= high)."""
    alternatives: list[str] = []
    for digits in range(len(str(low)), len(str(high)) + 1):
        start = max(low, 10 ** (digits - 1) if digits > 1 else 0)
        end = min(high, 10**digits - 1)
        if start <= end:
            alternatives.extend(_same_length_range(str(start), str(end)))
    return " | ".join(alternatives)


def integer_at_least_rule(low: int) -> str:
    """GBNF alternatives spelling exactly the whole numbers from `low` (>= 0) up."""
    digits = len(str(low))
    longer = "[1-9]" + " [0-9]" * digits + " [0-9]*"
    return f"{integer_range_rule(low, 10**digits - 1)} | {longer}"


def _same_length_range(low: str, high: str) -> list[str]:
    """Sequences spelling the digit strings from `low` to `high`, both of one length."""
    if low == high:
        return [f'"{low}"']
    if len(low) == 1:
        return [f"[{low}-{high}]"]
    rest = len(low) - 1
    if low[0] == high[0]:
        return [f'"{low[0]}" ({" | ".join(_same_length_range(low[1:], high[1:]))})']
    if low[1:] == "0" * rest and high[1:] == "9" * rest:
        return [f"[{low[0]}-{high[0]}]" + " [0-9]" * rest]
    sequences = [f'"{low[0]}" ({" | ".join(_same_length_range(low[1:], "9" * rest))})']
    if int(low[0]) + 1 <= int(high[0]) - 1:
        sequences.append(f"[{int(low[0]) + 1}-{int(high[0]) - 1}]" + " [0-9]" * rest)
    sequences.append(f'"{high[0]}" ({" | ".join(_same_length_range("0" * rest, high[1:]))})')
    return sequences
