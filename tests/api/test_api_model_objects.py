"""pydantic-ai `Model` objects in a config written in code: used as they are, with no
`override_models`, named by a label where a string is needed."""

from __future__ import annotations

from pathlib import Path

import pytest
from api_world import scripted_mixseek
from pydantic_ai import models
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.models.test import TestModel
from pydantic_ai.providers.openai import OpenAIProvider

from e2e.scripted import World
from fake_openai import fake_openai
from mixseek import (
    EvaluatorSettings,
    JudgmentSettings,
    LeaderAgentConfig,
    MemberAgentConfig,
    Mixseek,
    OrchestratorSettings,
    TeamConfig,
)
from mixseek.errors import MissingCredentialsError
from mixseek.orchestrator.preflight import startup_problems
from mixseek.storage.aggregation_store import AggregationStore


async def test_function_model_objects_run_an_execution_and_their_usage_is_stored_by_label(
    tmp_path: Path,
) -> None:
    world = World()
    mx = scripted_mixseek(world, workspace=tmp_path / "ws")
    leader_label = mx.teams[0].model_dump(mode="json")["leader"]["model"]
    assert leader_label.startswith("function:leader-alpha#")

    result = await mx.run("課題")

    assert result.status == "completed"
    assert result.winner is not None and (result.winner.team_id, result.winner.score) == ("alpha", 75.0)
    assert ("alpha", 2) in world.team_prompts  # the objects themselves answered
    view = await AggregationStore(tmp_path / "ws" / "mixseek.db").get_execution_view(result.execution_id)
    assert view is not None
    assert leader_label in view.usage_by_model
    assert view.usage_by_model[leader_label].requests == 4  # 2 rounds: a delegation, then the answer


def test_a_label_per_object() -> None:
    one, other = TestModel(), TestModel()
    first = LeaderAgentConfig(model=one)
    assert first.model is one
    assert LeaderAgentConfig(model=one).model_dump()["model"] == first.model_dump()["model"]
    assert LeaderAgentConfig(model=other).model_dump()["model"] != first.model_dump()["model"]
    assert LeaderAgentConfig(model="test").model_dump()["model"] == "test"
    with pytest.raises(ValueError, match="Input should be a valid string or a pydantic-ai Model"):
        LeaderAgentConfig(model=42)  # type: ignore[arg-type]


def test_an_object_needs_no_credential_where_its_string_does(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    chat = OpenAIChatModel("gpt-4o", provider=OpenAIProvider(api_key="sk-given-in-code"))

    def with_leader(model: str | OpenAIChatModel) -> Mixseek:
        team = TeamConfig(team_id="a", team_name="A", leader=LeaderAgentConfig(model=model))
        return Mixseek(
            [team], evaluator=EvaluatorSettings(model="test"), judgment=JudgmentSettings(model="test")
        )

    assert startup_problems(with_leader(chat).config) == []
    (problem,) = startup_problems(with_leader("openai:gpt-4o").config)
    assert isinstance(problem, MissingCredentialsError)
    assert str(problem) == (
        "model 'openai:gpt-4o' for leader of team 'a' needs credentials: "
        "set the environment variable OPENAI_API_KEY"
    )


def test_a_provider_object_gets_mixseek_retries_and_no_sdk_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """An `OpenAIChatModel` built in code talks to its server as `openai-chat:...` would: one HTTP
    attempt per mixseek attempt (the OpenAI SDK would otherwise retry each one twice itself)."""
    monkeypatch.setattr(models, "ALLOW_MODEL_REQUESTS", True)  # the server is on 127.0.0.1

    def solo(base_url: str) -> Mixseek:
        chat = OpenAIChatModel("fake-gpt", provider=OpenAIProvider(base_url=base_url, api_key="sk-local"))
        team = TeamConfig(
            team_id="solo",
            team_name="Solo",
            leader=LeaderAgentConfig(model=chat, max_retries=2),
            members=[
                MemberAgentConfig(
                    agent_name="helper", agent_type="plain", tool_description="手伝う", model="test"
                )
            ],
        )
        return Mixseek(
            [team],
            orchestrator=OrchestratorSettings(max_rounds=1, retry_base_delay_seconds=0.01),
            evaluator=EvaluatorSettings(model="test"),
            judgment=JudgmentSettings(model="test"),
        )

    with fake_openai(fail_always=True) as server:
        failed = solo(server.base_url).run_sync("課題")
        assert server.count == 3  # 1 + mixseek's 2 retries
    assert failed.status == "failed"
    assert "429" in (failed.teams[0].error or "")

    with fake_openai() as server:
        result = solo(server.base_url).run_sync("課題")
        assert server.count == 2  # the delegation, then the answer after the member's result
    assert result.status == "completed"
    assert result.winner is not None and result.winner.content == "echo: answer"
