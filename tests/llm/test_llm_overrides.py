"""override_models: scripted models for model strings, across asyncio tasks."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel

from mixseek.errors import MissingCredentialsError, MixseekError
from mixseek.llm import check_credentials, create_model, override_models, required_env_var

LEADER = "leader of team 'alpha'"


def _echo(prefix: str) -> FunctionModel:
    def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        request = messages[-1]
        assert isinstance(request, ModelRequest)
        prompt = next(part.content for part in request.parts if isinstance(part, UserPromptPart))
        return ModelResponse(parts=[TextPart(f"{prefix}: {prompt}")])

    return FunctionModel(reply)


async def test_function_model_drives_real_agent() -> None:
    scripted = _echo("leader")
    with override_models({"openai:gpt-4o": scripted}):
        model = create_model("openai:gpt-4o", role=LEADER)  # no OPENAI_API_KEY set
        assert model is scripted
        result = await Agent(model).run("solve it")
    assert result.output == "leader: solve it"


async def test_tasks_started_inside_the_block_see_the_override() -> None:
    async def member(index: int) -> str:
        await asyncio.sleep(0)
        agent = Agent(create_model("openai:gpt-4o-mini", role=f"member {index} of team 'alpha'"))
        return (await agent.run(f"task {index}")).output

    with override_models({"openai:gpt-4o-mini": _echo("member")}):
        outputs = await asyncio.gather(*(member(i) for i in range(3)))
        task = asyncio.create_task(member(9))
    assert outputs == ["member: task 0", "member: task 1", "member: task 2"]
    assert await task == "member: task 9"  # created inside, runs after the block closed


async def test_tasks_started_before_the_block_do_not_see_it() -> None:
    entered = asyncio.Event()
    done = asyncio.Event()

    async def outsider() -> Model:
        await entered.wait()
        try:
            return create_model("openai:gpt-4o", role=LEADER)
        finally:
            done.set()

    task = asyncio.create_task(outsider())
    with override_models({"openai:gpt-4o": TestModel()}):
        entered.set()
        await done.wait()
    with pytest.raises(MissingCredentialsError):
        await task


async def test_concurrent_blocks_do_not_interfere() -> None:
    async def run(label: str) -> tuple[str, str]:
        with override_models({"openai:gpt-4o": _echo(label)}):
            await asyncio.sleep(0)
            before = (await Agent(create_model("openai:gpt-4o", role=LEADER)).run("x")).output
            await asyncio.sleep(0)
            after = (await Agent(create_model("openai:gpt-4o", role=LEADER)).run("y")).output
        return before, after

    results = await asyncio.gather(run("a"), run("b"))
    assert list(results) == [("a: x", "a: y"), ("b: x", "b: y")]


def test_nested_overrides_restore_correctly() -> None:
    outer = TestModel(custom_output_text="outer")
    inner = TestModel(custom_output_text="inner")
    other = TestModel(custom_output_text="other")
    with override_models({"openai:gpt-4o": outer, "groq:llama": other}):
        with override_models({"openai:gpt-4o": inner}):
            assert create_model("openai:gpt-4o", role=LEADER) is inner
            assert create_model("groq:llama", role=LEADER) is other  # falls through to the outer block
        assert create_model("openai:gpt-4o", role=LEADER) is outer
    with pytest.raises(MissingCredentialsError):
        create_model("openai:gpt-4o", role=LEADER)


def test_override_is_removed_when_the_block_raises() -> None:
    with pytest.raises(RuntimeError), override_models({"openai:gpt-4o": TestModel()}):
        raise RuntimeError("boom")
    with pytest.raises(MissingCredentialsError):
        create_model("openai:gpt-4o", role=LEADER)


def test_callable_override_and_fall_through() -> None:
    scripted = TestModel(custom_output_text="scripted")
    seen: list[str] = []

    def pick(model: str) -> Model | None:
        seen.append(model)
        return scripted if model.startswith("anthropic:") else None

    with override_models(pick):
        assert create_model("anthropic:claude-sonnet-4-5", role=LEADER) is scripted
        assert isinstance(create_model("test", role=LEADER), TestModel)
        with pytest.raises(MissingCredentialsError):
            create_model("openai:gpt-4o", role=LEADER)
    assert "anthropic:claude-sonnet-4-5" in seen


def test_overrides_apply_to_any_string_and_skip_checks() -> None:
    scripted = TestModel()
    with override_models({"local:smollm2": scripted, "acme:x": scripted, "openai:gpt-4o": scripted}):
        assert create_model("local:smollm2", role="judgment") is scripted
        assert create_model("acme:x", role="judgment") is scripted
        check_credentials("openai:gpt-4o", role="judgment")
        check_credentials("acme:x", role="judgment")
        assert required_env_var("openai:gpt-4o") is None
    assert required_env_var("openai:gpt-4o") == "OPENAI_API_KEY"


def test_override_values_must_be_models() -> None:
    with pytest.raises(TypeError, match="not a pydantic-ai Model"):
        override_models({"openai:gpt-4o": "nope"}).__enter__()  # type: ignore[dict-item]
    with override_models(lambda model: "nope"), pytest.raises(TypeError):  # type: ignore[arg-type,return-value]
        create_model("openai:gpt-4o", role=LEADER)


def test_override_mapping_is_copied() -> None:
    models: dict[str, Model] = {}
    with override_models(models):
        models["openai:gpt-4o"] = TestModel()
        with pytest.raises(MixseekError):
            create_model("openai:gpt-4o", role=LEADER)


@pytest.fixture
def scripted_leader() -> Iterator[FunctionModel]:
    model = _echo("fixture")
    with override_models({"openai:gpt-4o": model}):
        yield model


async def test_override_from_sync_fixture_reaches_async_test(scripted_leader: FunctionModel) -> None:
    assert create_model("openai:gpt-4o", role=LEADER) is scripted_leader
    outputs = await asyncio.gather(
        *(Agent(create_model("openai:gpt-4o", role=LEADER)).run(str(i)) for i in range(2))
    )
    assert [o.output for o in outputs] == ["fixture: 0", "fixture: 1"]


async def test_override_runs_in_worker_threads() -> None:
    scripted = TestModel()
    with override_models({"openai:gpt-4o": scripted}):
        model = await asyncio.to_thread(create_model, "openai:gpt-4o", role=LEADER)
    assert model is scripted


@pytest.fixture
async def async_scripted_leader() -> AsyncIterator[TestModel]:
    model = TestModel(custom_output_text="async fixture")
    with override_models({"openai:gpt-4o": model}):
        yield model


async def test_override_from_async_fixture(async_scripted_leader: TestModel) -> None:
    assert create_model("openai:gpt-4o", role=LEADER) is async_scripted_leader
    result = await Agent(create_model("openai:gpt-4o", role=LEADER)).run("go")
    assert result.output == "async fixture"


def test_async_fixture_override_was_removed() -> None:
    with pytest.raises(MissingCredentialsError):
        create_model("openai:gpt-4o", role=LEADER)
