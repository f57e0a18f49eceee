"""JSON schemas for llama.cpp's grammar converter, and the checks the grammar cannot make: `grammar_schema`
keeps what the converter knows (`$ref`s inlined, unknown keywords dropped, free strings and arrays bounded so
an answer ends within the token budget, bounded properties first); `enforce_numeric_ranges` checks ranges."""

from __future__ import annotations

import math
from typing import Any

JsonSchema = dict[str, Any]

STRING_CAP_LIMIT = 1000
"""Largest `maxLength` put into a grammar: llama.cpp refuses the nested repetition beyond ~1000."""
MIN_STRING_CAP = 32
"""Smallest `maxLength` given to a free string, however many strings share the token budget."""
DEFAULT_MAX_ITEMS = 8
"""`maxItems` of an array whose schema sets none."""
MAX_ITEMS_LIMIT = 64
"""Largest `maxItems` put into a grammar."""
MAX_REF_DEPTH = 3
"""How many times a recursive `$ref` is expanded before it ends."""
CHARS_PER_TOKEN = 3
"""Characters per generated token assumed when sharing `max_tokens` between free strings (Latin
text; other scripts take more tokens, so their strings may be cut, which the property order allows)."""
GRAMMAR_FORMATS = frozenset({"date", "time", "date-time", "uuid"})
"""String formats llama.cpp's converter turns into exact rules (hence bounded)."""

ANSWER_TEXT = "x-mixseek-answer-text"
"""Marks the string of a final text answer in a grammar schema (see `grammar.py`)."""

_NEVER_KEY = "$never"
_RANGE_KEYS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
_VALUE_KEYS = frozenset({"const", "enum", "default", "examples"})
_SCALAR_TYPES = frozenset({"string", "integer", "number", "boolean", "null"})


def inline_refs(schema: JsonSchema) -> JsonSchema:
    """`schema` with every local `$ref` inlined and no `$defs`; keywords next to a `$ref` win, and an
    unresolvable reference becomes `{}`."""
    definitions: dict[str, Any] = {}
    for key in ("definitions", "$defs"):
        block = schema.get(key)
        if isinstance(block, dict):
            definitions.update(block)

    def resolve(node: Any, stack: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [resolve(item, stack) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        siblings = {
            key: (value if key in _VALUE_KEYS else resolve(value, stack))
            for key, value in node.items()
            if key not in ("$ref", "$defs", "definitions")
        }
        if not isinstance(ref, str):
            return siblings
        name = _local_ref_name(ref)
        if name is None or name not in definitions:
            return siblings
        if stack.count(name) >= MAX_REF_DEPTH:
            return {_NEVER_KEY: True}
        target = resolve(definitions[name], (*stack, name))
        return {**target, **siblings} if isinstance(target, dict) else siblings

    resolved = resolve(schema, ())
    return resolved if isinstance(resolved, dict) else {}


def _local_ref_name(ref: str) -> str | None:
    for prefix in ("#/$defs/", "#/definitions/"):
        if ref.startswith(prefix):
            return ref[len(prefix) :].replace("~1", "/").replace("~0", "~")
    return None


def merge_all_of(node: JsonSchema) -> JsonSchema:
    """`node` with its `allOf` members merged into it (properties and `required` are unioned)."""
    members = node.get("allOf")
    if not isinstance(members, list):
        return node
    merged: JsonSchema = {key: value for key, value in node.items() if key != "allOf"}
    for member in members:
        if not isinstance(member, dict):
            continue
        member = merge_all_of(member)
        for key, value in member.items():
            if key == "properties" and isinstance(value, dict):
                merged["properties"] = {**merged.get("properties", {}), **value}
            elif key == "required" and isinstance(value, list):
                merged["required"] = list(dict.fromkeys([*merged.get("required", []), *value]))
            else:
                merged.setdefault(key, value)
    return merged


def alternatives_of(node: JsonSchema) -> list[Any] | None:
    """The `anyOf` (else `oneOf`) list of `node`, or None."""
    alternatives = node.get("anyOf", node.get("oneOf"))
    return alternatives if isinstance(alternatives, list) else None


def _type_of(node: JsonSchema) -> Any:
    node_type = node.get("type")
    if node_type is None:
        if "properties" in node or "additionalProperties" in node:
            return "object"
        if "items" in node or "prefixItems" in node:
            return "array"
    return node_type


def string_slots(schema: JsonSchema) -> int:
    """How many free strings a value of `schema` (refs inlined) can hold at most, arrays counted full."""
    if not isinstance(schema, dict) or schema.get(_NEVER_KEY):
        return 0
    schema = merge_all_of(schema)
    if "const" in schema or "enum" in schema:
        return 0
    alternatives = alternatives_of(schema)
    if alternatives is not None:
        return max((string_slots(alt) for alt in alternatives if isinstance(alt, dict)), default=0)
    node_type = _type_of(schema)
    if isinstance(node_type, list):
        return max((string_slots({**schema, "type": t}) for t in node_type), default=0)
    if node_type == "string":
        return 0 if schema.get("format") in GRAMMAR_FORMATS else 1
    if node_type == "array":
        prefix = schema.get("prefixItems")
        if isinstance(prefix, list):
            return sum(string_slots(item) for item in prefix if isinstance(item, dict))
        items = schema.get("items")
        return string_slots(items) * _max_items(schema) if isinstance(items, dict) else 0
    if node_type == "object":
        properties = schema.get("properties")
        if isinstance(properties, dict):
            return sum(string_slots(prop) for prop in properties.values() if isinstance(prop, dict))
    return 0


def string_cap_for(schema: JsonSchema, max_tokens: int) -> int:
    """The `maxLength` to give each free string of `schema` so that all of them fit `max_tokens`."""
    slots = max(1, string_slots(schema))
    share = (max_tokens * CHARS_PER_TOKEN) // slots
    return max(MIN_STRING_CAP, min(STRING_CAP_LIMIT, share))


def _max_items(node: JsonSchema) -> int:
    declared = node.get("maxItems")
    limit = declared if isinstance(declared, int) and declared >= 0 else DEFAULT_MAX_ITEMS
    return min(limit, MAX_ITEMS_LIMIT)


def grammar_schema(schema: JsonSchema, *, string_cap: int) -> JsonSchema:
    """A bounded schema llama.cpp's converter accepts, for values of `schema` (refs already inlined)."""
    simplified = _simplify(schema, min(max(1, string_cap), STRING_CAP_LIMIT))
    return {"type": "null"} if simplified.get(_NEVER_KEY) else simplified


def any_value(cap: int) -> JsonSchema:
    """Any JSON value; strings bounded, objects and arrays free-form (only `max_tokens` bounds them)."""
    return {
        "anyOf": [
            {"type": "string", "maxLength": cap},
            {"type": "number"},
            {"type": "boolean"},
            {"type": "null"},
            {"type": "object"},
            {"type": "array"},
        ]
    }


def _simplify(node: Any, cap: int) -> JsonSchema:
    if node is False:
        return {_NEVER_KEY: True}
    if not isinstance(node, dict) or not node:
        return any_value(cap)
    if node.get(_NEVER_KEY):
        return {_NEVER_KEY: True}
    node = merge_all_of(node)
    if "const" in node:
        return {"const": node["const"]}
    if isinstance(node.get("enum"), list) and node["enum"]:
        return {"enum": list(node["enum"])}
    alternatives = alternatives_of(node)
    if alternatives is not None:
        rest = {key: value for key, value in node.items() if key not in ("anyOf", "oneOf")}
        kept = [
            alt
            for alt in (_simplify(_overlay(rest, alt), cap) for alt in alternatives)
            if not alt.get(_NEVER_KEY)
        ]
        if not kept:
            return {_NEVER_KEY: True}
        return kept[0] if len(kept) == 1 else {"anyOf": kept}
    node_type = _type_of(node)
    if isinstance(node_type, list):
        kept = [
            alt for alt in (_simplify({**node, "type": t}, cap) for t in node_type) if not alt.get(_NEVER_KEY)
        ]
        if not kept:
            return {_NEVER_KEY: True}
        return kept[0] if len(kept) == 1 else {"anyOf": kept}
    if node_type == "string":
        return _simplify_string(node, cap)
    if node_type == "array":
        return _simplify_array(node, cap)
    if node_type == "object":
        return _simplify_object(node, cap)
    if node_type in ("integer", "number"):
        return {"type": node_type, **{key: node[key] for key in _RANGE_KEYS if _is_bound(node.get(key))}}
    if node_type in _SCALAR_TYPES:
        return {"type": node_type}
    return any_value(cap)


def _is_bound(value: Any) -> bool:
    return value is True or _number_or_none(value) is not None


def _overlay(rest: JsonSchema, alternative: Any) -> Any:
    """An `anyOf` member with the type-free keywords of its parent (e.g. `maxLength`) under it."""
    if not isinstance(alternative, dict):
        return alternative
    inherited = {key: value for key, value in rest.items() if key not in ("type", "properties", "items")}
    return {**inherited, **alternative}


def _simplify_string(node: JsonSchema, cap: int) -> JsonSchema:
    if node.get("format") in GRAMMAR_FORMATS:
        return {"type": "string", "format": node["format"]}
    declared = node.get("maxLength")
    max_length = min(declared, cap) if isinstance(declared, int) and declared >= 0 else cap
    result: JsonSchema = {"type": "string", "maxLength": max_length}
    min_length = node.get("minLength")
    if isinstance(min_length, int) and min_length > 0:
        result["minLength"] = min(min_length, max_length)
    return result


def _simplify_array(node: JsonSchema, cap: int) -> JsonSchema:
    prefix = node.get("prefixItems")
    if isinstance(prefix, list) and prefix:
        items = [_simplify(item, cap) for item in prefix]
        return {"type": "array", "prefixItems": [{"type": "null"} if i.get(_NEVER_KEY) else i for i in items]}
    items_schema = _simplify(node.get("items", {}), cap)
    never = bool(items_schema.get(_NEVER_KEY))
    max_items = 0 if never else _max_items(node)
    result: JsonSchema = {"type": "array", "items": {"type": "null"} if never else items_schema}
    min_items = node.get("minItems")
    if isinstance(min_items, int) and min_items > 0:
        result["minItems"] = min(min_items, max_items)
    result["maxItems"] = max_items
    return result


def _simplify_object(node: JsonSchema, cap: int) -> JsonSchema:
    properties = node.get("properties")
    additional = node.get("additionalProperties")
    if not isinstance(properties, dict) or not properties:
        if isinstance(additional, dict) and additional:
            value = _simplify(additional, cap)
            if not value.get(_NEVER_KEY):
                return {"type": "object", "additionalProperties": value}
        if additional is False or (isinstance(properties, dict) and additional is not True):
            return {"type": "object", "properties": {}}
        return {"type": "object"}
    required = [name for name in node.get("required", []) if name in properties]
    kept: dict[str, JsonSchema] = {}
    for name, prop in properties.items():
        simplified = _simplify(prop, cap)
        if simplified.get(_NEVER_KEY):
            if name not in required:
                continue
            simplified = {"type": "null"}
        kept[name] = simplified
    # Values of bounded size first: when `max_tokens` cuts the reply, it then cuts a free string,
    # which the partial parser keeps, instead of leaving a later boolean or score unwritten.
    ordered = sorted(kept, key=lambda name: _open_ended(kept[name]))
    result: JsonSchema = {"type": "object", "properties": {name: kept[name] for name in ordered}}
    if required:
        result["required"] = required
    return result


def _open_ended(node: JsonSchema) -> bool:
    """Whether a value of the simplified `node` may run long: it holds a free string or a free-form value."""
    if string_slots(node) > 0:
        return True
    alternatives = alternatives_of(node)
    if alternatives is not None:
        return any(isinstance(alt, dict) and _open_ended(alt) for alt in alternatives)
    node_type = _type_of(node)
    if isinstance(node_type, list):
        return any(_open_ended({**node, "type": kind}) for kind in node_type)
    if node_type is None:
        return "enum" not in node and "const" not in node
    if node_type == "array":
        items = node.get("items")
        return isinstance(items, dict) and _open_ended(items)
    if node_type == "object":
        properties = node.get("properties")
        if not isinstance(properties, dict):
            return True
        return any(_open_ended(prop) for prop in properties.values() if isinstance(prop, dict))
    return False


def enforce_numeric_ranges(value: Any, schema: JsonSchema, *, clamp: bool) -> tuple[Any, list[str]]:
    """The numbers in `value` checked against `schema`'s ranges: the value (clamped when `clamp`) and one note
    per number out of range, such as `"score: 150 > maximum 100, clamped to 100"`."""
    notes: list[str] = []
    return _enforce(value, schema, "", clamp, notes), notes


def _enforce(value: Any, schema: Any, path: str, clamp: bool, notes: list[str]) -> Any:
    if not isinstance(schema, dict) or schema.get(_NEVER_KEY):
        return value
    schema = merge_all_of(schema)
    alternatives = alternatives_of(schema)
    if alternatives is not None:
        chosen = _matching_alternative(value, alternatives)
        return value if chosen is None else _enforce(value, chosen, path, clamp, notes)
    if isinstance(value, dict):
        properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        additional = schema.get("additionalProperties")
        result = {}
        for key, item in value.items():
            sub = properties.get(key, additional if isinstance(additional, dict) else None)
            result[key] = _enforce(item, sub, f"{path}.{key}" if path else key, clamp, notes)
        return result
    if isinstance(value, list):
        prefix = schema.get("prefixItems")
        items = schema.get("items")
        out = []
        for index, item in enumerate(value):
            sub = prefix[index] if isinstance(prefix, list) and index < len(prefix) else items
            out.append(_enforce(item, sub, f"{path}[{index}]", clamp, notes))
        return out
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _enforce_number(value, schema, path or "value", clamp, notes)
    return value


# bool before int: a bool is an int
_JSON_KINDS = {bool: "boolean", int: "integer", float: "number", str: "string", list: "array"}


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    return next(
        (kind for python_type, kind in _JSON_KINDS.items() if isinstance(value, python_type)), "object"
    )


def _matching_alternative(value: Any, alternatives: list[Any]) -> JsonSchema | None:
    kind = _json_kind(value)
    candidates = [merge_all_of(alt) for alt in alternatives if isinstance(alt, dict)]
    for alt in candidates:
        alt_type = _type_of(alt)
        types = alt_type if isinstance(alt_type, list) else [alt_type]
        if kind in types or (kind == "integer" and "number" in types):
            if kind == "object":
                props = alt.get("properties")
                if isinstance(props, dict) and not set(value) <= set(props) and len(candidates) > 1:
                    continue
            return alt
    return None


def numeric_bounds(schema: JsonSchema) -> tuple[float | None, bool, float | None, bool]:
    """(lower, lower is exclusive, upper, upper is exclusive), for draft-4 and draft-2020 keywords."""
    lower, lower_exclusive = _number_or_none(schema.get("minimum")), False
    upper, upper_exclusive = _number_or_none(schema.get("maximum")), False
    exclusive_min, exclusive_max = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
    if exclusive_min is True:
        lower_exclusive = lower is not None
    elif (bound := _number_or_none(exclusive_min)) is not None and (lower is None or bound >= lower):
        lower, lower_exclusive = bound, True
    if exclusive_max is True:
        upper_exclusive = upper is not None
    elif (bound := _number_or_none(exclusive_max)) is not None and (upper is None or bound <= upper):
        upper, upper_exclusive = bound, True
    return lower, lower_exclusive, upper, upper_exclusive


def _number_or_none(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return value
    return None


def _enforce_number(value: float, schema: JsonSchema, path: str, clamp: bool, notes: list[str]) -> float:
    lower, lower_exclusive, upper, upper_exclusive = numeric_bounds(schema)
    integer = _type_of(schema) == "integer" or (isinstance(value, int) and _type_of(schema) != "number")
    problem: str | None = None
    fixed: float = value
    if lower is not None and (value < lower or (lower_exclusive and value == lower)):
        keyword = "exclusiveMinimum" if lower_exclusive else "minimum"
        problem = f"{value!r} {'<=' if lower_exclusive else '<'} {keyword} {lower!r}"
        fixed = _step_inside(lower, lower_exclusive, integer, upwards=True)
    elif upper is not None and (value > upper or (upper_exclusive and value == upper)):
        keyword = "exclusiveMaximum" if upper_exclusive else "maximum"
        problem = f"{value!r} {'>=' if upper_exclusive else '>'} {keyword} {upper!r}"
        fixed = _step_inside(upper, upper_exclusive, integer, upwards=False)
    multiple = _number_or_none(schema.get("multipleOf"))
    if multiple and multiple > 0 and not _is_multiple(fixed, multiple):
        problem = problem or f"{value!r} is not a multiple of {multiple!r}"
        fixed = _nearest_multiple(fixed, multiple, lower, lower_exclusive, upper, upper_exclusive)
    if problem is None:
        return value
    if integer and isinstance(fixed, float) and fixed.is_integer():
        fixed = int(fixed)
    if clamp:
        notes.append(f"{path}: {problem}, clamped to {fixed!r}")
        return fixed
    notes.append(f"{path}: {problem}")
    return value


def _step_inside(bound: float, exclusive: bool, integer: bool, *, upwards: bool) -> float:
    if integer:
        if upwards:
            return math.floor(bound) + 1 if exclusive else math.ceil(bound)
        return math.ceil(bound) - 1 if exclusive else math.floor(bound)
    if not exclusive:
        return bound
    return math.nextafter(bound, math.inf if upwards else -math.inf)


def _is_multiple(value: float, multiple: float) -> bool:
    quotient = value / multiple
    return math.isclose(quotient, round(quotient), rel_tol=0, abs_tol=1e-9)


def _nearest_multiple(
    value: float,
    multiple: float,
    lower: float | None,
    lower_exclusive: bool,
    upper: float | None,
    upper_exclusive: bool,
) -> float:
    def allowed(candidate: float) -> bool:
        if lower is not None and (candidate < lower or (lower_exclusive and candidate == lower)):
            return False
        return not (upper is not None and (candidate > upper or (upper_exclusive and candidate == upper)))

    base = round(value / multiple)
    for offset in (0, 1, -1, 2, -2):
        candidate = (base + offset) * multiple
        if allowed(candidate):
            return candidate
    return value
