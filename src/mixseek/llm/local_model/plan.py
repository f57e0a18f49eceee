"""What a reply may be, the grammar schema that allows exactly that, and the reply turned into parts.
`build_plan` picks `text` (free, no grammar), `direct` (one output tool's arguments or a JSON object) or
`choice` (a tool call or a `final_answer` that cannot start with `{`: a small model left free copies its
earlier JSON replies); `final_answer_plan` replaces a repeated tool call (small models repeat one forever)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic_ai.messages import (
    BaseToolReturnPart,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ModelResponsePart,
    TextPart,
    ToolCallPart,
)
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.tools import ToolDefinition

from mixseek.llm.local_model.repair import parse_truncated_json
from mixseek.llm.local_model.schema import (
    ANSWER_TEXT,
    JsonSchema,
    enforce_numeric_ranges,
    grammar_schema,
    inline_refs,
    string_cap_for,
)

PlanMode = Literal["text", "direct", "choice"]
BranchKind = Literal["tool", "final_text", "final_json"]


@dataclass(frozen=True)
class Branch:
    """One kind of reply: a tool call, a final text answer or a final JSON answer."""

    kind: BranchKind
    schema: JsonSchema = field(default_factory=dict)
    """The arguments' or answer's schema with refs inlined (ranges kept, for the post-check)."""
    name: str | None = None
    description: str | None = None
    is_output_tool: bool = False


@dataclass(frozen=True)
class ResponsePlan:
    """The replies a request allows and the JSON schema that constrains generation to them."""

    mode: PlanMode
    branches: tuple[Branch, ...]
    grammar_schema: JsonSchema | None

    @property
    def function_tool_names(self) -> frozenset[str]:
        """The function tools (not output tools) this plan lets the model call."""
        return frozenset(
            b.name for b in self.branches if b.kind == "tool" and not b.is_output_tool and b.name
        )


def callable_function_tools(params: ModelRequestParameters) -> list[ToolDefinition]:
    """The function tools the model may call on this request (withheld deferred tools excluded)."""
    return [tool for tool in params.function_tools if params.visibility_of(tool.name) != "withheld"]


def build_plan(
    params: ModelRequestParameters, *, max_tokens: int, after_tool_calls: bool = False
) -> ResponsePlan:
    """The reply plan for a prepared request; `after_tool_calls` asks for a text answer as JSON."""
    branches: list[Branch] = []
    for tool in callable_function_tools(params):
        branches.append(_tool_branch(tool, is_output_tool=False))
    for tool in params.output_tools:
        branches.append(_tool_branch(tool, is_output_tool=True))
    if params.output_mode in ("native", "prompted") and params.output_object is not None:
        output = params.output_object
        branches.append(
            Branch(
                kind="final_json",
                schema=inline_refs(dict(output.json_schema)),
                description=output.description,
            )
        )
    elif params.allow_text_output:
        branches.append(Branch(kind="final_text"))

    if not branches or (len(branches) == 1 and branches[0].kind == "final_text"):
        text = Branch(kind="final_text")
        if after_tool_calls:
            return ResponsePlan(mode="choice", branches=(text,), grammar_schema=_choice_alternative(text, 0))
        return ResponsePlan(mode="text", branches=(text,), grammar_schema=None)
    if len(branches) == 1:
        branch = branches[0]
        return ResponsePlan(
            mode="direct", branches=(branch,), grammar_schema=_bounded_grammar(branch.schema, max_tokens)
        )
    alternatives = [_choice_alternative(branch, max_tokens) for branch in branches]
    return ResponsePlan(mode="choice", branches=tuple(branches), grammar_schema={"anyOf": alternatives})


def final_answer_plan(plan: ResponsePlan, *, max_tokens: int) -> ResponsePlan | None:
    """`plan` (a `choice`) narrowed to its final answers, the prompt unchanged; None if nothing to narrow."""
    if plan.mode != "choice":
        return None
    finals = tuple(b for b in plan.branches if b.kind != "tool" or b.is_output_tool)
    if not finals:
        return None
    alternatives = [_choice_alternative(branch, max_tokens) for branch in finals]
    return ResponsePlan(mode="choice", branches=finals, grammar_schema={"anyOf": alternatives})


def has_tool_calls(messages: Sequence[ModelMessage]) -> bool:
    """Whether the model made a tool call earlier in `messages`."""
    return any(
        isinstance(part, ToolCallPart)
        for message in messages
        if isinstance(message, ModelResponse)
        for part in message.parts
    )


def answered_call_keys(messages: Sequence[ModelMessage]) -> set[tuple[str, str]]:
    """(tool name, canonical arguments) of each tool call in `messages` that got a result."""
    calls: dict[str, tuple[str, str]] = {}
    answered: set[tuple[str, str]] = set()
    for message in messages:
        if isinstance(message, ModelResponse):
            for part in message.parts:
                if isinstance(part, ToolCallPart):
                    calls[part.tool_call_id] = call_key(part)
        elif isinstance(message, ModelRequest):
            for request_part in message.parts:
                if isinstance(request_part, BaseToolReturnPart) and request_part.outcome != "retried":
                    key = calls.get(request_part.tool_call_id)
                    if key is not None:
                        answered.add(key)
    return answered


def call_key(part: ToolCallPart) -> tuple[str, str]:
    """A tool call's name and arguments in a form that compares equal for equal calls."""
    try:
        arguments = json.dumps(part.args_as_dict(), sort_keys=True, ensure_ascii=False)
    except Exception:
        arguments = str(part.args)
    return part.tool_name, arguments


def _tool_branch(tool: ToolDefinition, *, is_output_tool: bool) -> Branch:
    return Branch(
        kind="tool",
        name=tool.name,
        schema=inline_refs(dict(tool.parameters_json_schema)),
        description=tool.description,
        is_output_tool=is_output_tool,
    )


def _choice_alternative(branch: Branch, max_tokens: int) -> JsonSchema:
    if branch.kind == "final_text":
        # The final text answer is the whole reply: only `max_tokens` bounds it, and text cut off
        # there is still an answer (the JSON is completed by `parse_truncated_json`).
        return _object({"final_answer": {"type": "string", ANSWER_TEXT: True}})
    simplified = _bounded_grammar(branch.schema, max_tokens)
    if branch.kind == "final_json":
        return _object({"final_answer": simplified})
    return _object({"tool": {"const": branch.name}, "arguments": simplified})


def _bounded_grammar(schema: JsonSchema, max_tokens: int) -> JsonSchema:
    """The grammar schema of `schema`, its free strings capped so that together they fit `max_tokens`."""
    return grammar_schema(schema, string_cap=string_cap_for(schema, max_tokens))


def _object(properties: dict[str, JsonSchema]) -> JsonSchema:
    return {"type": "object", "properties": properties, "required": list(properties)}


@dataclass(frozen=True)
class DecodedReply:
    """The parts of a reply and what was noticed while decoding it."""

    parts: list[ModelResponsePart]
    range_notes: list[str] = field(default_factory=list)
    repaired: bool = False


def decode_reply(plan: ResponsePlan, text: str, *, clamp: bool) -> DecodedReply:
    """The response parts for generated `text` under `plan`: out-of-range numbers clamped when `clamp`, else
    left (like non-JSON text where JSON was required) for pydantic's validation."""
    if plan.mode == "text":
        return DecodedReply(parts=[TextPart(content=text.strip())])
    value, repaired = _parse(text)
    if plan.mode == "direct":
        branch = plan.branches[0]
        if value is _UNPARSED:
            return DecodedReply(parts=[_unparsed_part(branch, text)])
        return _decoded(branch, value, clamp=clamp, repaired=repaired)
    if isinstance(value, dict):
        tool_name = value.get("tool")
        for branch in plan.branches:
            if branch.kind == "tool" and branch.name == tool_name:
                arguments = value.get("arguments")
                return _decoded(
                    branch, arguments if arguments is not None else {}, clamp=clamp, repaired=repaired
                )
        if "final_answer" in value:
            for branch in plan.branches:
                if branch.kind in ("final_text", "final_json"):
                    return _decoded(branch, value["final_answer"], clamp=clamp, repaired=repaired)
    fallback = next((b for b in plan.branches if b.kind == "final_text"), None)
    fallback = fallback or next(
        (b for b in plan.branches if b.is_output_tool or b.kind == "final_json"), None
    )
    return DecodedReply(parts=[_unparsed_part(fallback or plan.branches[0], text)], repaired=repaired)


class _Unparsed:
    pass


_UNPARSED: Any = _Unparsed()


def _parse(text: str) -> tuple[Any, bool]:
    # strict=False: a raw control character inside a string (only possible without the grammar)
    # is taken as the character rather than failing the whole reply.
    stripped = text.strip()
    try:
        return json.loads(stripped, strict=False), False
    except ValueError:
        pass
    try:
        return parse_truncated_json(stripped), True
    except ValueError:
        return _UNPARSED, False


def _decoded(branch: Branch, value: Any, *, clamp: bool, repaired: bool) -> DecodedReply:
    notes: list[str] = []
    if branch.kind != "final_text":
        value, notes = enforce_numeric_ranges(value, branch.schema, clamp=clamp)
    if branch.kind == "tool":
        assert branch.name is not None
        arguments: dict[str, Any] | str = value if isinstance(value, dict) else json.dumps(value)
        part: ModelResponsePart = ToolCallPart(tool_name=branch.name, args=arguments)
    elif branch.kind == "final_json":
        part = TextPart(content=json.dumps(value, ensure_ascii=False))
    else:
        part = TextPart(content=value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))
    return DecodedReply(parts=[part], range_notes=notes, repaired=repaired)


def _unparsed_part(branch: Branch, text: str) -> ModelResponsePart:
    if branch.kind == "tool":
        assert branch.name is not None
        return ToolCallPart(tool_name=branch.name, args=text)
    return TextPart(content=text.strip())
