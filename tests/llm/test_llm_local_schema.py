"""The embedded model's schema handling, reply plans, JSON repair and numeric range checks (no model)."""

from __future__ import annotations

import importlib.util
import json
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.output import OutputObjectDefinition
from pydantic_ai.tools import ToolDefinition

from mixseek.llm.local_model.plan import (
    answered_call_keys,
    build_plan,
    call_key,
    decode_reply,
    final_answer_plan,
)
from mixseek.llm.local_model.repair import parse_truncated_json
from mixseek.llm.local_model.schema import (
    ANSWER_TEXT,
    DEFAULT_MAX_ITEMS,
    MIN_STRING_CAP,
    STRING_CAP_LIMIT,
    any_value,
    enforce_numeric_ranges,
    grammar_schema,
    inline_refs,
    string_cap_for,
    string_slots,
)


class Address(BaseModel):
    street: str
    number: int = Field(ge=1)


class Person(BaseModel):
    name: str = Field(pattern=r"^[A-Z]")
    home: Address
    past: list[Address] = []
    nickname: str | None = None


class Node(BaseModel):
    label: str
    children: list[Node] = []


class Score(BaseModel):
    score: float = Field(ge=0, le=100)
    comment: str


def _walk(node: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        found.append(node)
        for value in node.values():
            found.extend(_walk(value))
    elif isinstance(node, list):
        for item in node:
            found.extend(_walk(item))
    return found


def _tool(name: str, model: type[BaseModel], description: str = "") -> ToolDefinition:
    return ToolDefinition(
        name=name, parameters_json_schema=model.model_json_schema(), description=description
    )


# -- $ref inlining and simplification --------------------------------------------------------------


def test_inline_refs_replaces_refs_and_drops_defs() -> None:
    schema = Person.model_json_schema()
    assert "$defs" in schema
    inlined = inline_refs(schema)
    assert "$defs" not in inlined
    assert not [node for node in _walk(inlined) if "$ref" in node]
    assert inlined["properties"]["home"]["properties"]["street"]["type"] == "string"
    assert inlined["properties"]["past"]["items"]["properties"]["number"]["minimum"] == 1


def test_inline_refs_keeps_sibling_keywords() -> None:
    schema = {
        "$defs": {
            "Thing": {"type": "object", "properties": {"a": {"type": "integer"}}, "description": "old"}
        },
        "type": "object",
        "properties": {"thing": {"$ref": "#/$defs/Thing", "description": "new"}},
    }
    thing = inline_refs(schema)["properties"]["thing"]
    assert thing["description"] == "new"
    assert thing["properties"] == {"a": {"type": "integer"}}


def test_unknown_ref_becomes_any_value() -> None:
    inlined = inline_refs({"type": "object", "properties": {"x": {"$ref": "http://example.com/s.json"}}})
    assert inlined["properties"]["x"] == {}
    assert grammar_schema(inlined, string_cap=50)["properties"]["x"] == any_value(50)


def test_recursive_ref_ends_with_an_empty_array() -> None:
    simplified = grammar_schema(inline_refs(Node.model_json_schema()), string_cap=100)
    depth = 0
    node = simplified
    while node["properties"]["children"]["maxItems"] > 0:
        node = node["properties"]["children"]["items"]
        depth += 1
    assert 1 <= depth <= 4
    assert node["properties"]["children"] == {"type": "array", "items": {"type": "null"}, "maxItems": 0}


def test_grammar_schema_bounds_strings_and_arrays_and_drops_unsupported_keywords() -> None:
    simplified = grammar_schema(inline_refs(Person.model_json_schema()), string_cap=200)
    nodes = _walk(simplified)
    strings = [n for n in nodes if n.get("type") == "string"]
    arrays = [n for n in nodes if n.get("type") == "array"]
    assert strings and all(n["maxLength"] == 200 for n in strings)
    assert arrays and all(n["maxItems"] == DEFAULT_MAX_ITEMS for n in arrays)
    for keyword in ("pattern", "title", "default", "description", "$defs"):
        assert not [n for n in nodes if keyword in n], keyword
    assert simplified["properties"]["home"]["properties"]["number"] == {"type": "integer", "minimum": 1}
    nickname = simplified["properties"]["nickname"]
    assert nickname == {"anyOf": [{"type": "string", "maxLength": 200}, {"type": "null"}]}
    assert simplified["required"] == ["name", "home"]


def test_grammar_schema_keeps_smaller_declared_bounds_and_caps_larger_ones() -> None:
    schema = {
        "type": "object",
        "properties": {
            "short": {"type": "string", "maxLength": 10, "minLength": 2},
            "long": {"type": "string", "maxLength": 50_000, "minLength": 5_000},
            "few": {"type": "array", "items": {"type": "integer"}, "maxItems": 3, "minItems": 1},
            "many": {"type": "array", "items": {"type": "integer"}, "maxItems": 10_000},
        },
    }
    props = grammar_schema(schema, string_cap=5_000)["properties"]
    assert props["short"] == {"type": "string", "maxLength": 10, "minLength": 2}
    assert props["long"] == {"type": "string", "maxLength": STRING_CAP_LIMIT, "minLength": STRING_CAP_LIMIT}
    assert props["few"] == {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 3}
    assert props["many"]["maxItems"] == 64


def test_grammar_schema_handles_type_lists_all_of_enums_formats_tuples_and_dicts() -> None:
    schema = {
        "type": "object",
        "properties": {
            "either": {"type": ["string", "integer"], "maxLength": 5},
            "merged": {"allOf": [{"properties": {"a": {"type": "integer"}}, "required": ["a"]}]},
            "color": {"enum": ["red", "green"], "type": "string"},
            "fixed": {"const": 3},
            "when": {"type": "string", "format": "date"},
            "mail": {"type": "string", "format": "email"},
            "pair": {
                "type": "array",
                "prefixItems": [{"type": "string"}, {"type": "number"}],
                "items": False,
            },
            "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
            "empty": {"type": "object", "properties": {}, "additionalProperties": False},
            "anything": {},
        },
    }
    props = grammar_schema(schema, string_cap=40)["properties"]
    assert props["either"] == {"anyOf": [{"type": "string", "maxLength": 5}, {"type": "integer"}]}
    assert props["merged"] == {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
    assert props["color"] == {"enum": ["red", "green"]}
    assert props["fixed"] == {"const": 3}
    assert props["when"] == {"type": "string", "format": "date"}
    assert props["mail"] == {"type": "string", "maxLength": 40}
    assert props["pair"] == {
        "type": "array",
        "prefixItems": [{"type": "string", "maxLength": 40}, {"type": "number"}],
    }
    assert props["counts"] == {"type": "object", "additionalProperties": {"type": "integer"}}
    assert props["empty"] == {"type": "object", "properties": {}}
    assert props["anything"] == any_value(40)


def test_string_cap_shares_the_token_budget() -> None:
    one = {"type": "object", "properties": {"a": {"type": "string"}}}
    four = {"type": "object", "properties": {k: {"type": "string"} for k in "abcd"}}
    listed = {"type": "array", "items": {"type": "string"}, "maxItems": 4}
    assert string_slots(one) == 1
    assert string_slots(four) == 4
    assert string_slots(listed) == 4
    assert string_slots({"type": "string", "enum": ["x"]}) == 0
    assert string_cap_for(one, 200) == 600
    assert string_cap_for(four, 200) == 150
    assert string_cap_for(one, 10_000) == STRING_CAP_LIMIT
    assert string_cap_for(four, 10) == MIN_STRING_CAP


@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama_cpp is not installed")
@pytest.mark.parametrize("model", [Person, Node, Score, Address])
def test_llama_cpp_converts_every_simplified_schema(model: type[BaseModel]) -> None:
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    params = ModelRequestParameters(
        function_tools=[_tool("lookup", model), _tool("other", Score)], allow_text_output=True
    )
    plan = build_plan(params, max_tokens=256)
    grammar = json_schema_to_gbnf(json.dumps(plan.grammar_schema))
    assert grammar.count("root ::=") == 1


# -- reply plans -----------------------------------------------------------------------------------


def test_plan_for_plain_text_is_unconstrained() -> None:
    plan = build_plan(ModelRequestParameters(output_mode="text", allow_text_output=True), max_tokens=512)
    assert plan.mode == "text"
    assert plan.grammar_schema is None


def test_plan_for_an_output_tool_alone_is_its_arguments() -> None:
    params = ModelRequestParameters(
        output_mode="tool", output_tools=[_tool("final_result", Score)], allow_text_output=False
    )
    plan = build_plan(params, max_tokens=512)
    assert plan.mode == "direct"
    assert plan.grammar_schema == {
        "type": "object",
        "properties": {
            "score": {"type": "number", "minimum": 0, "maximum": 100},
            "comment": {"type": "string", "maxLength": 1000},
        },
        "required": ["score", "comment"],
    }


def test_plan_with_tools_is_an_any_of_tool_calls_and_final_answer() -> None:
    params = ModelRequestParameters(
        function_tools=[_tool("lookup", Address, "Find an address.")],
        output_tools=[_tool("final_result", Score)],
        output_mode="tool",
        allow_text_output=True,
    )
    plan = build_plan(params, max_tokens=512)
    assert plan.mode == "choice"
    assert plan.grammar_schema is not None
    alternatives = plan.grammar_schema["anyOf"]
    assert [alt["properties"].get("tool") for alt in alternatives] == [
        {"const": "lookup"},
        {"const": "final_result"},
        None,
    ]
    assert alternatives[0]["required"] == ["tool", "arguments"]
    assert alternatives[2] == {
        "type": "object",
        "properties": {"final_answer": {"type": "string", ANSWER_TEXT: True}},
        "required": ["final_answer"],
    }


def test_plan_for_native_output_asks_for_the_json_object() -> None:
    output = OutputObjectDefinition(json_schema=Score.model_json_schema(), name="Score")
    params = ModelRequestParameters(output_mode="native", output_object=output, allow_text_output=True)
    direct = build_plan(params, max_tokens=512)
    assert direct.mode == "direct"
    assert direct.branches[0].kind == "final_json"
    with_tool = build_plan(
        ModelRequestParameters(
            function_tools=[_tool("lookup", Address)],
            output_mode="native",
            output_object=output,
            allow_text_output=True,
        ),
        max_tokens=512,
    )
    assert with_tool.grammar_schema is not None
    final = with_tool.grammar_schema["anyOf"][1]["properties"]["final_answer"]
    assert final["properties"]["score"] == {"type": "number", "minimum": 0, "maximum": 100}


def test_withheld_deferred_tools_are_not_offered() -> None:
    hidden = ToolDefinition(name="hidden", parameters_json_schema={"type": "object"}, defer_loading=True)
    params = ModelRequestParameters(function_tools=[hidden, _tool("lookup", Address)], allow_text_output=True)
    plan = build_plan(params, max_tokens=512)
    assert [branch.name for branch in plan.branches] == ["lookup", None]


# -- decoding replies ------------------------------------------------------------------------------


def _choice_plan() -> Any:
    return build_plan(
        ModelRequestParameters(
            function_tools=[_tool("lookup", Address)],
            output_tools=[_tool("final_result", Score)],
            output_mode="tool",
            allow_text_output=True,
        ),
        max_tokens=512,
    )


def test_decode_tool_call_final_text_and_output_tool() -> None:
    plan = _choice_plan()
    call = decode_reply(plan, '{"tool": "lookup", "arguments": {"street": "Main", "number": 3}}', clamp=True)
    assert isinstance(call.parts[0], ToolCallPart)
    assert call.parts[0].tool_name == "lookup"
    assert call.parts[0].args == {"street": "Main", "number": 3}
    text = decode_reply(plan, '{"final_answer": "done"}', clamp=True)
    assert text.parts == [TextPart(content="done")]
    output = decode_reply(
        plan, '{"tool": "final_result", "arguments": {"score": 120, "comment": "x"}}', clamp=True
    )
    assert isinstance(output.parts[0], ToolCallPart)
    assert output.parts[0].args == {"score": 100, "comment": "x"}
    assert output.range_notes == ["score: 120 > maximum 100, clamped to 100"]


def test_decode_clamps_or_reports_numbers_out_of_range() -> None:
    plan = build_plan(
        ModelRequestParameters(
            output_mode="tool", output_tools=[_tool("final_result", Score)], allow_text_output=False
        ),
        max_tokens=512,
    )
    clamped = decode_reply(plan, '{"score": 150.5, "comment": "great"}', clamp=True)
    assert isinstance(clamped.parts[0], ToolCallPart)
    assert clamped.parts[0].args == {"score": 100, "comment": "great"}
    assert clamped.range_notes == ["score: 150.5 > maximum 100, clamped to 100"]
    reported = decode_reply(plan, '{"score": -3, "comment": "bad"}', clamp=False)
    assert isinstance(reported.parts[0], ToolCallPart)
    assert reported.parts[0].args == {"score": -3, "comment": "bad"}
    assert reported.range_notes == ["score: -3 < minimum 0"]


def test_decode_closes_truncated_json() -> None:
    plan = _choice_plan()
    reply = decode_reply(plan, '{"tool": "lookup", "arguments": {"street": "Long Str', clamp=True)
    assert reply.repaired
    assert isinstance(reply.parts[0], ToolCallPart)
    assert reply.parts[0].args == {"street": "Long Str"}
    text = decode_reply(plan, '{"final_answer": "an answer that was cut', clamp=True)
    assert text.parts == [TextPart(content="an answer that was cut")]


def test_decode_accepts_raw_control_characters_in_strings() -> None:
    reply = decode_reply(_choice_plan(), '{"final_answer": "line one\nline two\tend"}', clamp=True)
    assert reply.parts == [TextPart(content="line one\nline two\tend")]
    cut = decode_reply(_choice_plan(), '{"final_answer": "line one\nline', clamp=True)
    assert cut.parts == [TextPart(content="line one\nline")]


def test_decode_passes_unparseable_text_on_for_validation() -> None:
    plan = build_plan(
        ModelRequestParameters(
            output_mode="tool", output_tools=[_tool("final_result", Score)], allow_text_output=False
        ),
        max_tokens=512,
    )
    reply = decode_reply(plan, "no json at all", clamp=True)
    assert isinstance(reply.parts[0], ToolCallPart)
    assert reply.parts[0].args == "no json at all"


def test_final_answer_plan_removes_function_tools() -> None:
    narrowed = final_answer_plan(_choice_plan(), max_tokens=512)
    assert narrowed is not None
    assert [(b.kind, b.name) for b in narrowed.branches] == [("tool", "final_result"), ("final_text", None)]
    assert narrowed.grammar_schema is not None
    assert len(narrowed.grammar_schema["anyOf"]) == 2
    text_plan = build_plan(ModelRequestParameters(allow_text_output=True), max_tokens=512)
    assert final_answer_plan(text_plan, max_tokens=512) is None


def test_answered_call_keys_ignore_unanswered_and_retried_calls() -> None:
    answered = ToolCallPart("lookup", {"street": "a", "number": 1}, tool_call_id="1")
    retried = ToolCallPart("lookup", {"street": "b", "number": 1}, tool_call_id="2")
    pending = ToolCallPart("lookup", {"street": "c", "number": 1}, tool_call_id="3")
    messages = [
        ModelResponse(parts=[answered, retried, pending]),
        ModelRequest(
            parts=[
                ToolReturnPart("lookup", "ok", tool_call_id="1"),
                ToolReturnPart("lookup", "fix it", tool_call_id="2", outcome="retried"),
            ]
        ),
    ]
    keys = answered_call_keys(messages)
    assert keys == {call_key(answered)}
    assert call_key(ToolCallPart("lookup", '{"number": 1, "street": "a"}')) in keys


# -- JSON repair -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ('{"a": "hel', {"a": "hel"}),
        ('{"a": "x\\', {"a": "x"}),
        ('{"a": "x\\u00', {"a": "x"}),
        ('{"a": 1, "b', {"a": 1}),
        ('{"a": 1, "b":', {"a": 1}),
        ('{"a": 1, ', {"a": 1}),
        ('{"a": tru', {}),
        ('{"a": 12', {"a": 12}),
        ('{"a": [1, 2, ', {"a": [1, 2]}),
        ('{"a": [{"b": "c"}, {"d', {"a": [{"b": "c"}, {}]}),
        ('["x", "y', ["x", "y"]),
        ('{"tool": "t", "arguments": {"q": "w"', {"tool": "t", "arguments": {"q": "w"}}),
        ('{"a": "line one\nline', {"a": "line one\nline"}),
        ('{\n  "a": "tab\there\u0001", "b": [\n1', {"a": "tab\there\u0001", "b": [1]}),
    ],
)
def test_parse_truncated_json(text: str, expected: Any) -> None:
    assert parse_truncated_json(text) == expected


def test_parse_truncated_json_without_a_value() -> None:
    for text in ("", "   ", "}"):
        with pytest.raises(ValueError):
            parse_truncated_json(text)


# -- numeric ranges --------------------------------------------------------------------------------


def test_ranges_exclusive_integer_and_multiple_of() -> None:
    schema = {
        "type": "object",
        "properties": {
            "positive": {"type": "integer", "exclusiveMinimum": 0},
            "below": {"type": "number", "exclusiveMaximum": 1.0},
            "step": {"type": "integer", "multipleOf": 5, "maximum": 20},
            "old_style": {"type": "number", "minimum": 0, "exclusiveMinimum": True},
            "fine": {"type": "number", "minimum": 0, "maximum": 1},
        },
    }
    value = {"positive": 0, "below": 1.0, "step": 23, "old_style": 0, "fine": 0.5}
    fixed, notes = enforce_numeric_ranges(value, schema, clamp=True)
    assert fixed["positive"] == 1
    assert fixed["below"] < 1.0
    assert fixed["step"] == 20
    assert fixed["old_style"] > 0
    assert fixed["fine"] == 0.5
    assert len(notes) == 4
    unchanged, reported = enforce_numeric_ranges(value, schema, clamp=False)
    assert unchanged == value
    assert len(reported) == 4


def test_ranges_in_nested_arrays_and_unions() -> None:
    schema = inline_refs(
        {
            "$defs": {"Item": {"type": "object", "properties": {"n": {"type": "integer", "maximum": 9}}}},
            "type": "object",
            "properties": {
                "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
                "maybe": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]},
                "flag": {"type": "boolean"},
            },
        }
    )
    fixed, notes = enforce_numeric_ranges(
        {"items": [{"n": 3}, {"n": 12}], "maybe": 0, "flag": True}, schema, clamp=True
    )
    assert fixed == {"items": [{"n": 3}, {"n": 9}], "maybe": 1, "flag": True}
    assert [note.split(":")[0] for note in notes] == ["items[1].n", "maybe"]
    untouched, none = enforce_numeric_ranges({"maybe": None, "flag": False}, schema, clamp=True)
    assert untouched == {"maybe": None, "flag": False}
    assert none == []


def test_bounded_properties_come_before_open_ended_ones() -> None:
    class Mixed(BaseModel):
        note: str
        tags: list[str]
        stamp: str = Field(json_schema_extra={"format": "date"})
        label: str | None
        extra: dict[str, Any]
        done: bool
        kind: Literal["a", "b"]
        scores: list[int]
        score: float = Field(ge=0, le=100)

    simplified = grammar_schema(inline_refs(Mixed.model_json_schema()), string_cap=100)
    assert list(simplified["properties"]) == [
        "stamp",
        "done",
        "kind",
        "scores",
        "score",
        "note",
        "tags",
        "label",
        "extra",
    ]
