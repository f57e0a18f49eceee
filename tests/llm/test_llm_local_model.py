"""`LlamaCppModel` in pydantic-ai agents and its engine's threading, with scripted generations (no model)."""

from __future__ import annotations

import asyncio
import importlib.util
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, Field
from pydantic_ai import Agent
from pydantic_ai.exceptions import (
    ModelAPIError,
    ModelContextWindowExceededError,
    ModelRequestTimeout,
    UserError,
)
from pydantic_ai.messages import ModelResponse, ToolCallPart
from pydantic_ai.output import NativeOutput
from pydantic_ai.usage import UsageLimits

from mixseek.llm.local_model.engine import (
    Generation,
    GenerationRequest,
    GenerationTimeout,
    LlamaEngine,
    close_engine,
)
from mixseek.llm.local_model.model import DEFAULT_SAMPLING, LlamaCppModel, sampling_options
from mixseek.llm.local_model.prompt import ContextOverflowError
from mixseek.llm.local_model.schema import ANSWER_TEXT


class Score(BaseModel):
    score: float = Field(ge=0, le=100)
    comment: str


Reply = str | Callable[[GenerationRequest], str]


class ScriptedEngine:
    """Stands in for llama.cpp: records each generation request and answers from a script."""

    def __init__(self, engine: LlamaEngine, replies: list[Reply]) -> None:
        self.replies = list(replies)
        self.requests: list[GenerationRequest] = []
        engine.load = lambda: object()  # type: ignore[method-assign]
        engine.generate = self.generate  # type: ignore[method-assign]

    def generate(self, llama: Any, request: GenerationRequest, cancelled: threading.Event) -> Generation:
        self.requests.append(request)
        reply = self.replies.pop(0)
        text = reply(request) if callable(reply) else reply
        return Generation(
            text=text,
            finish_reason="stop",
            prompt_tokens=100 + len(self.requests),
            completion_tokens=len(text.split()),
            prompt_seconds=0.01,
            generation_seconds=0.02,
            max_tokens=request.max_tokens,
            grammar_used=request.grammar_schema is not None,
        )

    def system_text(self, index: int) -> str:
        messages = self.requests[index].prompt.messages()
        return messages[0]["content"] if messages[0]["role"] == "system" else ""

    def last_user_text(self, index: int) -> str:
        return self.requests[index].prompt.messages()[-1]["content"]


def scripted(path: Path, replies: list[Reply], **options: Any) -> tuple[LlamaCppModel, ScriptedEngine]:
    model = LlamaCppModel(path, model_name="scripted", **options)
    return model, ScriptedEngine(model.engine, replies)


async def test_plain_text_is_generated_without_grammar(model_file: Path) -> None:
    model, script = scripted(model_file, ["  Paris is the capital.  "])
    result = await Agent(model, instructions="Answer briefly.").run("Capital of France?")
    assert result.output == "Paris is the capital."
    request = script.requests[0]
    assert request.grammar_schema is None
    assert request.max_tokens == 512
    assert request.sampling == DEFAULT_SAMPLING
    assert script.system_text(0) == ""
    assert script.last_user_text(0) == "Capital of France?\n\nAnswer briefly."
    response = result.all_messages()[-1]
    assert isinstance(response, ModelResponse)
    assert response.usage.input_tokens == 101
    assert response.usage.output_tokens == 4
    assert response.model_name == "scripted"
    assert response.provider_name == "local"
    assert response.provider_details is not None
    assert response.provider_details["plan"] == "text"


async def test_structured_output_can_be_clamped_into_range(model_file: Path) -> None:
    # The grammar keeps this score in range (see test_llm_local_grammar.py); a reply that is out of
    # range anyway (a grammar llama.cpp refused) is clamped when asked for.
    model, script = scripted(model_file, ['{"score": 150, "comment": "excellent"}'], range_policy="clamp")
    result = await Agent(model, output_type=Score).run("Rate it.")
    assert result.output == Score(score=100, comment="excellent")
    assert script.requests[0].grammar_schema == {
        "type": "object",
        "properties": {
            "score": {"type": "number", "minimum": 0, "maximum": 100},
            "comment": {"type": "string", "maxLength": 1000},
        },
        "required": ["score", "comment"],
    }
    assert "- score (number, required, >= 0, <= 100)" in script.last_user_text(0)
    response = result.all_messages()[1]
    assert isinstance(response, ModelResponse)
    assert response.provider_details is not None
    assert response.provider_details["range_notes"] == ["score: 150 > maximum 100, clamped to 100"]


class Verdict(BaseModel):
    should_continue: bool
    reasoning: str
    confidence: float = Field(ge=0, le=1)


async def test_a_reply_cut_by_max_tokens_inside_its_free_string_still_validates(model_file: Path) -> None:
    # The grammar asks for the boolean and the number before the free string, so a reply that
    # `max_tokens` ends in the middle of a long (say Japanese) reasoning is a complete answer.
    model, script = scripted(
        model_file, ['{"should_continue": false, "confidence": 0.8, "reasoning": "改善の余地は']
    )
    result = await Agent(model, output_type=Verdict).run("Judge it.")
    assert result.output == Verdict(should_continue=False, reasoning="改善の余地は", confidence=0.8)
    assert len(script.requests) == 1
    grammar = script.requests[0].grammar_schema
    assert grammar is not None
    assert list(grammar["properties"]) == ["should_continue", "confidence", "reasoning"]
    assert grammar["required"] == ["should_continue", "reasoning", "confidence"]


async def test_out_of_range_answers_go_back_to_the_model_by_default(model_file: Path) -> None:
    model, script = scripted(
        model_file, ['{"score": 150, "comment": "excellent"}', '{"score": 90, "comment": "excellent"}']
    )
    result = await Agent(model, output_type=Score).run("Rate it.")
    assert result.output == Score(score=90, comment="excellent")
    assert len(script.requests) == 2
    feedback = script.last_user_text(1)
    assert feedback.startswith('Your call of tool "final_result" has to be fixed:')
    assert "less than or equal to 100" in feedback


async def test_tool_call_then_final_answer(model_file: Path) -> None:
    model, script = scripted(
        model_file, ['{"tool": "add", "arguments": {"a": 2, "b": 3}}', '{"final_answer": "The sum is 5."}']
    )
    agent = Agent(model)
    calls: list[tuple[int, int]] = []

    @agent.tool_plain
    def add(a: int, b: int) -> int:
        """Add two integers."""
        calls.append((a, b))
        return a + b

    @agent.tool_plain
    def shout(text: str) -> str:
        """Upper-case a text."""
        return text.upper()

    result = await agent.run("What is 2 + 3?")
    assert result.output == "The sum is 5."
    assert calls == [(2, 3)]
    first = script.requests[0].grammar_schema
    assert first is not None
    assert [alt["properties"].get("tool") for alt in first["anyOf"]] == [
        {"const": "add"},
        {"const": "shout"},
        None,
    ]
    assert '- "add": Add two integers.' in script.last_user_text(0)
    assert script.requests[1].prompt.turns[-2]["content"] == '{"tool": "add", "arguments": {"a": 2, "b": 3}}'
    assert script.last_user_text(1).startswith('Result of tool "add":\n5\n\nYou can call these tools:')


async def test_a_repeated_call_becomes_the_final_answer(model_file: Path) -> None:
    call = '{"tool": "add", "arguments": {"a": 2, "b": 3}}'
    model, script = scripted(model_file, [call, call, '{"final_answer": "5"}'])
    agent = Agent(model)
    calls: list[int] = []

    @agent.tool_plain
    def add(a: int, b: int) -> int:
        """Add two integers."""
        calls.append(a + b)
        return a + b

    result = await agent.run("What is 2 + 3?")
    assert result.output == "5"
    assert calls == [5]
    narrowed = script.requests[2].grammar_schema
    assert narrowed == {
        "anyOf": [
            {
                "type": "object",
                "properties": {"final_answer": {"type": "string", ANSWER_TEXT: True}},
                "required": ["final_answer"],
            }
        ]
    }
    assert script.requests[2].prompt == script.requests[1].prompt
    response = result.all_messages()[-1]
    assert isinstance(response, ModelResponse)
    assert response.provider_details is not None
    assert response.provider_details["repeated_call_replaced"] == "add"
    assert response.usage.input_tokens == 102 + 103


async def test_repeated_calls_can_be_allowed(model_file: Path) -> None:
    call = '{"tool": "add", "arguments": {"a": 2, "b": 3}}'
    model, _ = scripted(model_file, [call, call, '{"final_answer": "5"}'], allow_repeated_tool_calls=True)
    agent = Agent(model)

    @agent.tool_plain
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    result = await agent.run("What is 2 + 3?")
    tool_calls = [p for m in result.all_messages() for p in m.parts if isinstance(p, ToolCallPart)]
    assert len(tool_calls) == 2


async def test_native_output_is_a_json_object(model_file: Path) -> None:
    model, script = scripted(model_file, ['{"score": 42, "comment": "fine"}'])
    result = await Agent(model, output_type=NativeOutput(Score)).run("Rate it.")
    assert result.output == Score(score=42, comment="fine")
    schema = script.requests[0].grammar_schema
    assert schema is not None
    assert schema["required"] == ["score", "comment"]


async def test_streaming_replays_the_complete_response(model_file: Path) -> None:
    model, _ = scripted(model_file, ["streamed answer"])
    async with Agent(model).run_stream("Say something.") as stream:
        output = await stream.get_output()
    assert output == "streamed answer"


async def test_settings_reach_the_generation(model_file: Path) -> None:
    model, script = scripted(model_file, ["ok"])
    settings = {
        "max_tokens": 64,
        "temperature": 0.0,
        "seed": 7,
        "stop_sequences": ["END"],
        "extra_body": {"repeat_penalty": 1.3, "min_p": 0.1},
    }
    await Agent(model).run("Hi", model_settings=settings)  # type: ignore[arg-type]
    request = script.requests[0]
    assert request.max_tokens == 64
    assert request.stop == ("END",)
    assert request.sampling == {
        **DEFAULT_SAMPLING,
        "temperature": 0.0,
        "seed": 7,
        "repeat_penalty": 1.3,
        "min_p": 0.1,
    }


def test_unknown_extra_body_options_are_refused() -> None:
    with pytest.raises(UserError, match="not mirostat, n_ctx"):
        sampling_options({"extra_body": {"n_ctx": 1, "mirostat": 2}})
    assert sampling_options({"logit_bias": {"15": -100}})["logit_bias"] == {15: -100.0}


async def test_context_overflow_and_timeout_become_pydantic_ai_errors(model_file: Path) -> None:
    def overflow(request: GenerationRequest) -> str:
        raise ContextOverflowError(5000, 4096, 64)

    def too_slow(request: GenerationRequest) -> str:
        raise GenerationTimeout()

    model, _ = scripted(model_file, [overflow, too_slow])
    with pytest.raises(ModelContextWindowExceededError, match="the prompt needs 5000 tokens"):
        await Agent(model).run("long")
    with pytest.raises(ModelRequestTimeout, match="timed out after 2 seconds"):
        await Agent(model).run("slow", model_settings={"timeout": 2})


# -- the engine: one thread, one job at a time, the event loop free ----------------------------------


async def test_jobs_run_one_at_a_time_off_the_event_loop(model_file: Path) -> None:
    engine = LlamaEngine(model_file)
    engine.load = lambda: object()  # type: ignore[method-assign]
    active = 0
    most = 0
    loop_thread = threading.get_ident()
    threads: set[int] = set()

    def job(llama: Any, cancelled: threading.Event) -> int:
        nonlocal active, most
        active += 1
        most = max(most, active)
        threads.add(threading.get_ident())
        time.sleep(0.05)
        active -= 1
        return 1

    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.005)
            ticks += 1

    ticking = asyncio.create_task(ticker())
    try:
        results = await asyncio.gather(*(engine.run(job) for _ in range(4)))
    finally:
        ticking.cancel()
        engine.close()
    assert results == [1, 1, 1, 1]
    assert most == 1
    assert len(threads) == 1
    assert loop_thread not in threads
    assert ticks >= 10


async def test_cancelling_stops_a_running_job_and_drops_a_queued_one(model_file: Path) -> None:
    engine = LlamaEngine(model_file)
    engine.load = lambda: object()  # type: ignore[method-assign]
    started = threading.Event()
    saw_cancel = threading.Event()
    ran: list[str] = []

    def long_job(llama: Any, cancelled: threading.Event) -> str:
        started.set()
        ran.append("long")
        if cancelled.wait(timeout=5):
            saw_cancel.set()
        return "long"

    def queued_job(llama: Any, cancelled: threading.Event) -> str:
        ran.append("queued")
        return "queued"

    try:
        running = asyncio.create_task(engine.run(long_job))
        queued = asyncio.create_task(engine.run(queued_job))
        await asyncio.to_thread(started.wait, 5)
        queued.cancel()
        running.cancel()
        for task in (running, queued):
            with pytest.raises(asyncio.CancelledError):
                await task
        assert await asyncio.to_thread(saw_cancel.wait, 5)
        assert await engine.run(lambda llama, cancelled: "next") == "next"
    finally:
        engine.close()
    assert ran == ["long"]


def test_the_model_is_loaded_once_by_concurrent_first_users(model_file: Path) -> None:
    engine = LlamaEngine(model_file)
    loads: list[int] = []

    def slow_load() -> None:
        time.sleep(0.05)
        loads.append(1)
        engine._llama = object()
        engine.load_count += 1

    engine._load = slow_load  # type: ignore[method-assign]
    results: list[Any] = []
    threads = [threading.Thread(target=lambda: results.append(engine.load())) for _ in range(5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert loads == [1]
    assert engine.load_count == 1
    assert len({id(result) for result in results}) == 1


async def test_request_limit_still_applies(model_file: Path) -> None:
    model, _ = scripted(
        model_file, [f'{{"tool": "add", "arguments": {{"a": 1, "b": {i}}}}}' for i in range(5)]
    )
    agent = Agent(model)

    @agent.tool_plain
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    with pytest.raises(Exception, match="request_limit of 2"):
        await agent.run("Add forever", usage_limits=UsageLimits(request_limit=2))


@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama_cpp is not installed")
async def test_a_file_llama_cpp_cannot_load_is_a_model_error(tmp_path: Path) -> None:
    path = tmp_path / "broken.gguf"
    path.write_bytes(b"GGUF" + b"\x03\x00\x00\x00" + bytes(64))
    try:
        with pytest.raises(ModelAPIError, match=r"llama\.cpp could not load .*broken\.gguf"):
            await Agent(LlamaCppModel(path)).run("hi")
    finally:
        close_engine(path)


def test_models_compare_by_file_and_options(model_file: Path, tmp_path: Path) -> None:
    first = LlamaCppModel(model_file, model_name="m")
    assert first == LlamaCppModel(model_file, model_name="m")
    assert hash(first) == hash(LlamaCppModel(model_file, model_name="m"))
    assert first != LlamaCppModel(model_file, model_name="m", range_policy="clamp")
    with pytest.raises(UserError, match="GGUF file not found"):
        LlamaCppModel(tmp_path / "absent.gguf")
    with pytest.raises(ValueError, match="range_policy"):
        LlamaCppModel(model_file, range_policy="ignore")  # type: ignore[arg-type]


@pytest.mark.parametrize(("cpus", "threads"), [(1, 1), (2, 1), (8, 7)])
def test_default_threads_leave_a_cpu_free(monkeypatch: pytest.MonkeyPatch, cpus: int, threads: int) -> None:
    from mixseek.llm.local_model.engine import default_threads

    monkeypatch.setattr("os.sched_getaffinity", lambda pid: set(range(cpus)), raising=False)
    assert default_threads() == threads
