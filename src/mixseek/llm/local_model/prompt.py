"""From pydantic-ai messages to the chat prompt an embedded model reads: only `system`, `user` and `assistant`
turns (small models and arbitrary GGUF templates know no others), earlier tool calls as the JSON the model
would write now, tool results as user turns. The reply format and the instructions close the last user turn:
what calls share first (evaluated once), what differs last; `fit_to_context` drops the oldest turns."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment
from pydantic_ai.messages import (
    BaseToolReturnPart,
    BinaryContent,
    CachePoint,
    FileUrl,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryFeedbackPart,
    RetryPromptPart,
    SpeechPart,
    SystemPromptPart,
    TextContent,
    TextPart,
    ToolCallPart,
    UserPromptPart,
)

from mixseek.errors import RuntimeFailure
from mixseek.llm.local_model.plan import Branch, ResponsePlan
from mixseek.llm.local_model.schema import JsonSchema, alternatives_of, merge_all_of

logger = logging.getLogger("mixseek.llm.local")

ChatMessage = dict[str, str]

CHATML_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)
"""Used when a GGUF file carries no chat template."""

FINAL_TEXT_ONLY = (
    'Reply with your final answer to the task, as one JSON object with a single field "final_answer".'
)
"""The reply format once only a text answer is left (no placeholder: small models copy it)."""


@dataclass
class ChatPrompt:
    """A conversation as one system text and alternating user/assistant turns."""

    system: str = ""
    turns: list[ChatMessage] = field(default_factory=list)
    omitted: int = 0
    """How many turns `fit_to_context` left out."""
    closing: str = ""
    """The reply format and the agent's instructions that close the last user turn (mixseek's and
    the configuration's words, which a reply must not copy)."""

    def messages(self) -> list[ChatMessage]:
        """The chat messages to render, the system turn first when there is one."""
        system = self.system
        if self.omitted:
            note = f"({self.omitted} earlier messages of this conversation were left out to fit the context.)"
            system = f"{system}\n\n{note}" if system else note
        head = [{"role": "system", "content": system}] if system else []
        return head + [dict(turn) for turn in self.turns]


def build_chat(
    messages: Sequence[ModelMessage], *, instructions: str | None = None, response_format: str | None = None
) -> ChatPrompt:
    """The chat prompt for `messages`; `instructions` and `response_format` close the last user turn."""
    system_parts: list[str] = []
    turns: list[ChatMessage] = []
    for message in messages:
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, SystemPromptPart):
                    if turns:
                        _append(turns, "user", part.content)
                    else:
                        system_parts.append(part.content)
                    continue
                text = request_part_text(part)
                if text is not None:
                    _append(turns, "user", text)
        elif isinstance(message, ModelResponse):
            for response_part in message.parts:
                if isinstance(response_part, TextPart):
                    if response_part.content:
                        _append(turns, "assistant", response_part.content)
                elif isinstance(response_part, ToolCallPart):
                    _append(
                        turns,
                        "assistant",
                        tool_call_json(response_part.tool_name, response_part.args_as_dict()),
                    )
    closing = "\n\n".join(text.strip() for text in (response_format, instructions) if text and text.strip())
    if closing:
        _append(turns, "user", closing)
    return ChatPrompt(
        system="\n\n".join(part.strip() for part in system_parts if part.strip()),
        turns=turns,
        closing=closing,
    )


def _append(turns: list[ChatMessage], role: str, text: str) -> None:
    if turns and turns[-1]["role"] == role:
        turns[-1]["content"] = f"{turns[-1]['content']}\n\n{text}"
    else:
        turns.append({"role": role, "content": text})


def request_part_text(part: object) -> str | None:
    """The user-turn text of a request part other than a system prompt, or None when it shows nothing."""
    if isinstance(part, UserPromptPart):
        return user_content_text(part.content)
    if isinstance(part, BaseToolReturnPart):
        if part.outcome == "retried":
            return f'Your call of tool "{part.tool_name}" has to be fixed:\n{part.model_response_str()}'
        return f'Result of tool "{part.tool_name}":\n{part.model_response_str()}'
    if isinstance(part, RetryPromptPart):
        if part.tool_name:
            return f'Your call of tool "{part.tool_name}" has to be fixed:\n{part.model_response()}'
        return part.model_response()
    if isinstance(part, RetryFeedbackPart):
        return part.model_response()
    if isinstance(part, SpeechPart):
        return part.content
    return None


def user_content_text(content: str | Sequence[Any]) -> str:
    """The text of a user prompt; files and media are named, not included."""
    if isinstance(content, str):
        return content
    pieces: list[str] = []
    for item in content:
        if isinstance(item, str):
            pieces.append(item)
        elif isinstance(item, TextContent):
            pieces.append(item.content)
        elif isinstance(item, CachePoint):
            continue
        elif isinstance(item, FileUrl):
            pieces.append(f"[file {item.url} not shown: this model reads text only]")
        elif isinstance(item, BinaryContent):
            pieces.append(f"[{item.media_type} content not shown: this model reads text only]")
        else:
            pieces.append(f"[{type(item).__name__} not shown: this model reads text only]")
    return "\n".join(pieces)


def tool_call_json(tool_name: str, arguments: dict[str, Any]) -> str:
    """A tool call as the model is asked to write it."""
    return json.dumps({"tool": tool_name, "arguments": arguments}, ensure_ascii=False)


def response_instructions(plan: ResponsePlan) -> str | None:
    """What the system turn says about the reply format, or None for a free text reply."""
    if plan.mode == "text":
        return None
    if plan.mode == "direct":
        branch = plan.branches[0]
        lines = ["Reply with only a JSON object with these fields:", *describe_fields(branch.schema)]
        if branch.description:
            lines.insert(0, branch.description)
        return "\n".join(lines)
    if all(branch.kind == "final_text" for branch in plan.branches):
        return FINAL_TEXT_ONLY
    lines = ["You can call these tools:"]
    final: list[str] = []
    for branch in plan.branches:
        if branch.kind == "tool" and not branch.is_output_tool:
            lines.append(_tool_line(branch))
        elif branch.kind == "tool":
            final.append(f'- call tool "{branch.name}" with your final answer as its arguments.')
            lines.append(_tool_line(branch))
    lines.append("")
    lines.append("Reply with only one JSON object:")
    lines.append('- {"tool": "<tool name>", "arguments": {<the arguments>}} to call a tool, or')
    for branch in plan.branches:
        if branch.kind == "final_text":
            final.append('- {"final_answer": "<your answer>"} when you can give the final answer.')
        elif branch.kind == "final_json":
            final.append('- {"final_answer": {<fields below>}} when you can give the final answer, with:')
            final.extend(f"  {line}" for line in describe_fields(branch.schema))
    lines.extend(final)
    return "\n".join(lines)


def _tool_line(branch: Branch) -> str:
    head = f'- "{branch.name}"' + (f": {branch.description}" if branch.description else "")
    fields = describe_fields(branch.schema)
    if not fields:
        return f"{head}\n  arguments: none ({{}})"
    return "\n".join([head, "  arguments:", *(f"  {line}" for line in fields)])


def describe_fields(schema: JsonSchema) -> list[str]:
    """One line per top-level property of an object schema: name, type, constraints, description."""
    schema = merge_all_of(schema)
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return []
    required = set(schema.get("required", []))
    lines = []
    for name, prop in properties.items():
        prop = merge_all_of(prop) if isinstance(prop, dict) else {}
        details = [describe_type(prop), "required" if name in required else "optional"]
        details.extend(_constraints(prop))
        line = f"- {name} ({', '.join(details)})"
        description = prop.get("description")
        if isinstance(description, str) and description.strip():
            line += f": {description.strip()}"
        lines.append(line)
    return lines


def describe_type(schema: JsonSchema) -> str:
    """A short name for the type of `schema`, e.g. `string`, `array of integer`, `one of 'a', 'b'`."""
    if "const" in schema:
        return f"exactly {json.dumps(schema['const'])}"
    if isinstance(schema.get("enum"), list):
        return "one of " + ", ".join(json.dumps(value) for value in schema["enum"])
    alternatives = alternatives_of(schema)
    if alternatives is not None:
        names = [describe_type(alt) for alt in alternatives if isinstance(alt, dict)]
        return " or ".join(dict.fromkeys(names)) or "any"
    schema_type = schema.get("type")
    if isinstance(schema_type, list):
        return " or ".join(str(t) for t in schema_type)
    if schema_type == "array" and isinstance(schema.get("items"), dict):
        return f"array of {describe_type(schema['items'])}"
    if isinstance(schema_type, str):
        return schema_type
    return "object" if "properties" in schema else "any"


def _constraints(schema: JsonSchema) -> list[str]:
    found = []
    for key, text in (
        ("minimum", ">= {}"),
        ("exclusiveMinimum", "> {}"),
        ("maximum", "<= {}"),
        ("exclusiveMaximum", "< {}"),
        ("maxLength", "at most {} characters"),
        ("maxItems", "at most {} items"),
    ):
        value = schema.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            found.append(text.format(value))
    return found


class ChatTemplate:
    """A GGUF chat template (sandboxed Jinja2); one that fails on plain turns is replaced by ChatML."""

    def __init__(self, source: str | None, *, bos_token: str = "", eos_token: str = "") -> None:
        self.bos_token = bos_token
        self.eos_token = eos_token
        self._environment = ImmutableSandboxedEnvironment(
            loader=jinja2.BaseLoader(), trim_blocks=True, lstrip_blocks=True
        )
        self._environment.globals["raise_exception"] = _raise_template_error
        self._environment.globals["strftime_now"] = lambda fmt: datetime.now().strftime(fmt)
        self.source = source or CHATML_TEMPLATE
        try:
            self._template = self._environment.from_string(self.source)
        except jinja2.TemplateError as exc:
            self._use_chatml(exc)

    def _use_chatml(self, problem: Exception) -> None:
        logger.warning("chat template unusable (%s); using ChatML instead", problem)
        self.source = CHATML_TEMPLATE
        self._template = self._environment.from_string(CHATML_TEMPLATE)

    def render(self, messages: Sequence[ChatMessage]) -> str:
        """The prompt text; a template that rejects a system turn gets it in the first user turn."""
        try:
            return self._render(messages)
        except jinja2.TemplateError as exc:
            problem: Exception = exc
        if messages and messages[0]["role"] == "system":
            try:
                return self._render(fold_system_into_user(messages))
            except jinja2.TemplateError as exc:
                problem = exc
        if self.source == CHATML_TEMPLATE:
            raise problem
        self._use_chatml(problem)
        return self._render(messages)

    def _render(self, messages: Sequence[ChatMessage]) -> str:
        return self._template.render(
            messages=list(messages),
            add_generation_prompt=True,
            bos_token=self.bos_token,
            eos_token=self.eos_token,
        )


def _raise_template_error(message: str) -> None:
    raise jinja2.TemplateError(message)


def fold_system_into_user(messages: Sequence[ChatMessage]) -> list[ChatMessage]:
    """`messages` without a system turn: its text opens the first user turn."""
    if not messages or messages[0]["role"] != "system":
        return list(messages)
    system, rest = messages[0]["content"], [dict(m) for m in messages[1:]]
    if rest and rest[0]["role"] == "user":
        rest[0]["content"] = f"{system}\n\n{rest[0]['content']}"
        return rest
    return [{"role": "user", "content": system}, *rest]


@dataclass(frozen=True)
class FittedPrompt:
    """A prompt that fits the context window, with the output budget left for it."""

    messages: list[ChatMessage]
    prompt_tokens: int
    max_tokens: int
    omitted: int


class ContextOverflowError(RuntimeFailure, ValueError):
    """The prompt does not fit the context window even with every droppable turn left out."""

    def __init__(self, prompt_tokens: int, n_ctx: int, min_output: int) -> None:
        self.prompt_tokens = prompt_tokens
        self.n_ctx = n_ctx
        super().__init__(
            f"the prompt needs {prompt_tokens} tokens and at least {min_output} more for the answer, "
            f"but the context window holds {n_ctx} tokens"
        )


def fit_to_context(
    prompt: ChatPrompt,
    count_tokens: Callable[[list[ChatMessage]], int],
    *,
    n_ctx: int,
    max_tokens: int,
    min_output: int,
) -> FittedPrompt:
    """Fit `prompt` and its answer into `n_ctx` tokens: leave out the oldest turns after the task (said in the
    system turn), then shrink the answer budget to `min_output`, else `ContextOverflowError`."""
    turns = [dict(turn) for turn in prompt.turns]
    first_user = next((i for i, turn in enumerate(turns) if turn["role"] == "user"), 0)
    omitted = prompt.omitted
    while True:
        # Turns are dropped from the list as given and joined by role only for rendering, so the
        # task turn never absorbs a later user turn that is itself to be dropped next.
        current = ChatPrompt(
            system=prompt.system, turns=_merge_roles(turns), omitted=omitted, closing=prompt.closing
        )
        messages = current.messages()
        tokens = count_tokens(messages)
        if tokens + max_tokens <= n_ctx:
            return FittedPrompt(messages, tokens, max_tokens, omitted)
        droppable = len(turns) - first_user - 2
        if droppable <= 0:
            break
        del turns[first_user + 1]
        omitted += 1
    budget = n_ctx - tokens
    if budget >= min(min_output, max_tokens):
        return FittedPrompt(messages, tokens, budget, omitted)
    raise ContextOverflowError(tokens, n_ctx, min(min_output, max_tokens))


def _merge_roles(turns: list[ChatMessage]) -> list[ChatMessage]:
    merged: list[ChatMessage] = []
    for turn in turns:
        _append(merged, turn["role"], turn["content"])
    return merged
