"""From pydantic-ai messages to the embedded model's chat prompt, fitted into the context (no model)."""

from __future__ import annotations

import pytest
from pydantic import BaseModel
from pydantic_ai.messages import (
    ImageUrl,
    ModelRequest,
    ModelResponse,
    RetryFeedbackPart,
    RetryInfo,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.tools import ToolDefinition

from mixseek.llm.local_model.plan import build_plan
from mixseek.llm.local_model.prompt import (
    CHATML_TEMPLATE,
    ChatPrompt,
    ChatTemplate,
    ContextOverflowError,
    build_chat,
    fit_to_context,
    fold_system_into_user,
    response_instructions,
)


class Task(BaseModel):
    """Delegate a task."""

    task: str


def _conversation() -> list[ModelRequest | ModelResponse]:
    return [
        ModelRequest(parts=[SystemPromptPart("You lead a team."), UserPromptPart("Write a haiku.")]),
        ModelResponse(
            parts=[
                ThinkingPart("hmm"),
                ToolCallPart("delegate_to_poet", {"task": "haiku about rain"}, tool_call_id="c1"),
            ]
        ),
        ModelRequest(parts=[ToolReturnPart("delegate_to_poet", "Rain on the roof", tool_call_id="c1")]),
        ModelResponse(parts=[ToolCallPart("delegate_to_poet", {"task": 3}, tool_call_id="c2")]),
        ModelRequest(
            parts=[
                ToolReturnPart(
                    "delegate_to_poet", "task must be a string", tool_call_id="c2", outcome="retried"
                ),
                RetryFeedbackPart("Please answer in English.", retry=RetryInfo(cause="model_retry")),
            ]
        ),
        ModelResponse(parts=[TextPart("Rain on the roof")]),
        ModelRequest(
            parts=[UserPromptPart(["Now one about snow.", ImageUrl("https://example.com/snow.png")])]
        ),
    ]


def test_build_chat_maps_every_part_to_a_role() -> None:
    chat = build_chat(_conversation(), instructions="Be brief.", response_format="Reply with JSON.")
    assert chat.system == "You lead a team."
    assert [turn["role"] for turn in chat.turns] == [
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
    ]
    assert chat.turns[0]["content"] == "Write a haiku."
    assert (
        chat.turns[1]["content"] == '{"tool": "delegate_to_poet", "arguments": {"task": "haiku about rain"}}'
    )
    assert chat.turns[2]["content"] == 'Result of tool "delegate_to_poet":\nRain on the roof'
    retry = chat.turns[4]["content"]
    assert retry.startswith('Your call of tool "delegate_to_poet" has to be fixed:\n')
    assert "task must be a string" in retry
    assert "Please answer in English." in retry
    assert chat.turns[5]["content"] == "Rain on the roof"
    assert chat.turns[6]["content"].startswith(
        "Now one about snow.\n[file https://example.com/snow.png not shown"
    )
    assert chat.turns[6]["content"].endswith(
        "not shown: this model reads text only]\n\nReply with JSON.\n\nBe brief."
    )


def test_calls_that_share_a_conversation_share_the_prompt_up_to_their_instructions() -> None:
    # The three metrics of one submission: same prompt and reply format, own instructions. The
    # engine evaluates a shared start once, so everything but the instructions must come first.
    task = [ModelRequest(parts=[UserPromptPart("Submission: a long text to score.")])]
    prompts = [
        build_chat(task, instructions=f"Score {metric}.", response_format="Reply with JSON.").messages()
        for metric in ("clarity", "coverage")
    ]
    assert prompts[0][:-1] == prompts[1][:-1]
    first, second = prompts[0][-1]["content"], prompts[1][-1]["content"]
    assert first == "Submission: a long text to score.\n\nReply with JSON.\n\nScore clarity."
    assert second == "Submission: a long text to score.\n\nReply with JSON.\n\nScore coverage."
    # a leader's second step keeps its first step's task turn as it was
    step_two = build_chat(
        [*task, *_conversation()[1:3]], instructions="Lead.", response_format="Reply with JSON."
    ).messages()
    assert step_two[0] == {"role": "user", "content": "Submission: a long text to score."}


def test_consecutive_turns_of_one_role_are_joined_and_late_system_prompts_are_user_text() -> None:
    messages = [
        ModelRequest(parts=[UserPromptPart("first"), UserPromptPart("second")]),
        ModelResponse(parts=[TextPart("a"), TextPart("b")]),
        ModelRequest(parts=[SystemPromptPart("late rule"), UserPromptPart("third")]),
    ]
    chat = build_chat(messages)
    assert chat.system == ""
    assert chat.turns == [
        {"role": "user", "content": "first\n\nsecond"},
        {"role": "assistant", "content": "a\n\nb"},
        {"role": "user", "content": "late rule\n\nthird"},
    ]
    assert chat.messages()[0]["role"] == "user"


def test_response_instructions_describe_tools_and_final_answer() -> None:
    params = ModelRequestParameters(
        function_tools=[
            ToolDefinition(
                name="delegate_to_poet",
                parameters_json_schema=Task.model_json_schema(),
                description="Ask the poet.",
            )
        ],
        allow_text_output=True,
    )
    text = response_instructions(build_plan(params, max_tokens=512))
    assert text is not None
    assert '- "delegate_to_poet": Ask the poet.' in text
    assert "  - task (string, required)" in text
    assert '{"tool": "<tool name>", "arguments": {<the arguments>}}' in text
    assert '{"final_answer": "<your answer>"}' in text
    assert response_instructions(build_plan(ModelRequestParameters(), max_tokens=512)) is None
    after_tools = build_plan(ModelRequestParameters(), max_tokens=512, after_tool_calls=True)
    assert response_instructions(after_tools) == (
        'Reply with your final answer to the task, as one JSON object with a single field "final_answer".'
    )


def test_response_instructions_for_structured_output_list_fields_and_ranges() -> None:
    schema = {
        "type": "object",
        "properties": {
            "score": {"type": "number", "minimum": 0, "maximum": 100, "description": "Overall score"},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
            "verdict": {"enum": ["pass", "fail"]},
        },
        "required": ["score"],
    }
    params = ModelRequestParameters(
        output_mode="tool",
        output_tools=[ToolDefinition(name="final_result", parameters_json_schema=schema)],
        allow_text_output=False,
    )
    text = response_instructions(build_plan(params, max_tokens=512))
    assert text == (
        "Reply with only a JSON object with these fields:\n"
        "- score (number, required, >= 0, <= 100): Overall score\n"
        "- tags (array of string, optional, at most 3 items)\n"
        '- verdict (one of "pass", "fail", optional)'
    )


def test_chatml_template_renders_a_generation_prompt() -> None:
    chat = ChatPrompt(system="sys", turns=[{"role": "user", "content": "hi"}])
    rendered = ChatTemplate(None).render(chat.messages())
    assert (
        rendered
        == "<|im_start|>system\nsys<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"
    )
    assert ChatTemplate(CHATML_TEMPLATE).render(chat.messages()) == rendered


def test_template_without_system_role_gets_the_system_text_in_the_first_user_turn() -> None:
    template = (
        "{{ bos_token }}{% for m in messages %}"
        "{% if m['role'] == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}"
        "<{{ m['role'] }}>{{ m['content'] }}</{{ m['role'] }}>"
        "{% endfor %}{% if add_generation_prompt %}<assistant>{% endif %}"
    )
    messages = [{"role": "system", "content": "rules"}, {"role": "user", "content": "hi"}]
    rendered = ChatTemplate(template, bos_token="<s>").render(messages)
    assert rendered == "<s><user>rules\n\nhi</user><assistant>"
    assert fold_system_into_user([{"role": "system", "content": "only"}]) == [
        {"role": "user", "content": "only"}
    ]


def test_template_values_are_data() -> None:
    rendered = ChatTemplate(None).render([{"role": "user", "content": "{{ 7*7 }}"}])
    assert "{{ 7*7 }}" in rendered


def _words(messages: list[dict[str, str]]) -> int:
    return sum(len(m["content"].split()) for m in messages)


def _long_chat(turns: int) -> ChatPrompt:
    roles = ["user", "assistant"]
    return ChatPrompt(
        system="sys",
        turns=[{"role": roles[i % 2], "content": " ".join([f"t{i}"] * 10)} for i in range(turns)],
    )


def test_fit_keeps_everything_that_fits() -> None:
    fitted = fit_to_context(_long_chat(4), _words, n_ctx=100, max_tokens=10, min_output=5)
    assert fitted.omitted == 0
    assert fitted.prompt_tokens == 41
    assert fitted.max_tokens == 10


def test_fit_drops_the_oldest_turns_after_the_task_and_says_so() -> None:
    fitted = fit_to_context(_long_chat(7), _words, n_ctx=60, max_tokens=10, min_output=5)
    contents = [m["content"].split()[0] for m in fitted.messages]
    assert fitted.omitted == 4
    assert contents[1:] == ["t0", "t5", "t6"]
    assert "4 earlier messages of this conversation were left out" in fitted.messages[0]["content"]
    assert [m["role"] for m in fitted.messages] == ["system", "user", "assistant", "user"]
    assert fitted.prompt_tokens + fitted.max_tokens <= 60


def test_fit_shrinks_the_answer_budget_when_nothing_more_can_go() -> None:
    fitted = fit_to_context(_long_chat(2), _words, n_ctx=27, max_tokens=50, min_output=5)
    assert fitted.prompt_tokens == 21
    assert fitted.max_tokens == 6


def test_fit_raises_when_the_task_alone_is_too_long() -> None:
    with pytest.raises(ContextOverflowError, match="the prompt needs 21 tokens and at least 5 more"):
        fit_to_context(_long_chat(2), _words, n_ctx=24, max_tokens=50, min_output=5)


def test_an_unusable_template_falls_back_to_chatml() -> None:
    messages = [{"role": "user", "content": "hi"}]
    chatml = ChatTemplate(None).render(messages)
    assert ChatTemplate("{% generation %}{{ x }}{% endgeneration %}").render(messages) == chatml
    broken_at_render = ChatTemplate("{{ messages[0]['content'].no_such_method() }}")
    assert broken_at_render.render(messages) == chatml
    assert broken_at_render.source == CHATML_TEMPLATE
