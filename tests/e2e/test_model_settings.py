"""Each role's `model_settings` table reaches its model's requests, and the store records the settings of
every call without the credential a header carried."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, FunctionModel
from typer.testing import CliRunner

from e2e.db import rows
from e2e.scripted import World, write_workspace
from mixseek.cli.app import app
from mixseek.llm import override_models
from mixseek.redaction import encoded_forms

SECRET = "sk-header-c0ffee-5ecret-value"

ALPHA = f"""
[team]
team_id = "alpha"
team_name = "Alpha"

[team.leader]
model = "openai:gpt-4o"
top_p = 0.5

[team.leader.model_settings]
seed = 7
openai_reasoning_effort = "low"
extra_headers = {{ "X-Api-Key" = "{SECRET}" }}

[[team.members]]
agent_name = "helper"
agent_type = "plain"
tool_description = "手伝う"
model = "anthropic:claude-sonnet-4-5"
stop_sequences = ["STOP"]
model_settings = {{ seed = 3, anthropic_thinking = {{ type = "enabled", budget_tokens = 1024 }} }}
"""

EVALUATOR = """
[evaluator]
model = "script:metric"

[evaluator.model_settings]
seed = 11

[[evaluator.metrics]]
name = "clarity_coherence"
model_settings = { top_p = 0.25 }

[[evaluator.metrics]]
name = "coverage"
models = ["openai:gpt-4o-mini", "script:panel"]
model_settings = { presence_penalty = 0.5 }

[[evaluator.metrics]]
name = "relevance"
"""

JUDGMENT = """
[judgment]
model = "openai-chat:gpt-4o-mini"
[judgment.model_settings]
seed = 13
openai_reasoning_effort = "minimal"
"""

PAIRWISE = """
[pairwise]
enabled = true
model = "groq:llama-3.3-70b-versatile"
bootstrap_samples = 20
model_settings = { seed = 17, groq_reasoning_format = "hidden" }
"""


def _workspace(root: Path) -> Path:
    write_workspace(root, max_rounds=2)
    configs = root / "configs"
    (configs / "agents" / "alpha.toml").write_text(ALPHA, encoding="utf-8")
    (configs / "evaluator.toml").write_text(EVALUATOR, encoding="utf-8")
    (configs / "judgment.toml").write_text(JUDGMENT, encoding="utf-8")
    (configs / "pairwise.toml").write_text(PAIRWISE, encoding="utf-8")
    return root


def _pairwise(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(
        parts=[ToolCallPart(info.output_tools[0].name, {"winner": "A", "reasoning": "first"})]
    )


def _spy(role: str, inner: FunctionModel, seen: dict[str, list[dict[str, Any]]]) -> FunctionModel:
    """`inner`, keeping the settings of each request under `role`."""

    async def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.setdefault(role, []).append(dict(info.model_settings or {}))
        answer = inner.function(messages, info)  # type: ignore[misc]
        return await answer if inspect.isawaitable(answer) else answer  # type: ignore[no-any-return]

    return FunctionModel(fn, model_name=role)


@pytest.fixture
def ran(tmp_path: Path, runner: CliRunner) -> tuple[Path, dict[str, list[dict[str, Any]]]]:
    ws = _workspace(tmp_path / "ws")
    world, seen = World(), {}
    models: dict[str, Model] = {
        **world.models(),
        "openai:gpt-4o": _spy("leader", world.leader("alpha"), seen),
        "anthropic:claude-sonnet-4-5": _spy("member", world.member(), seen),
        "script:metric": _spy("metric", world.metric(), seen),
        "openai:gpt-4o-mini": _spy("panel", world.metric(), seen),
        "script:panel": _spy("panel", world.metric(), seen),
        "openai-chat:gpt-4o-mini": _spy("judgment", world.judgment(), seen),
        "groq:llama-3.3-70b-versatile": _spy("pairwise", FunctionModel(_pairwise), seen),
    }
    with override_models(models):
        result = runner.invoke(app, ["exec", "最良の回答を", "-w", str(ws), "-f", "json"])
    assert result.exit_code == 0, result.output
    return ws, seen


def test_every_role_calls_its_model_with_its_settings(
    ran: tuple[Path, dict[str, list[dict[str, Any]]]],
) -> None:
    _, seen = ran
    leader = seen["leader"][0]
    assert leader["seed"] == 7 and leader["top_p"] == 0.5 and leader["openai_reasoning_effort"] == "low"
    assert leader["extra_headers"] == {"X-Api-Key": SECRET} and leader["timeout"] == 300
    member = seen["member"][0]
    assert member["seed"] == 3 and member["stop_sequences"] == ["STOP"]
    assert member["anthropic_thinking"] == {"type": "enabled", "budget_tokens": 1024}
    # a metric's table over the evaluator's, which every LLM metric gets
    assert {"seed": 11, "top_p": 0.25, "temperature": 0.0} in [
        {k: s.get(k) for k in ("seed", "top_p", "temperature")} for s in seen["metric"]
    ]
    assert all(s["seed"] == 11 for s in seen["metric"])
    assert {(s["presence_penalty"], s["seed"]) for s in seen["panel"]} == {(0.5, 11)}
    assert {(s["seed"], s["openai_reasoning_effort"]) for s in seen["judgment"]} == {(13, "minimal")}
    assert {(s["seed"], s["groq_reasoning_format"]) for s in seen["pairwise"]} == {(17, "hidden")}


def test_the_store_records_each_calls_settings_without_the_header_value(
    ran: tuple[Path, dict[str, list[dict[str, Any]]]],
) -> None:
    ws, _ = ran
    calls = rows(ws / "mixseek.db", "SELECT site, model, settings FROM model_calls")
    by_model: dict[str, list[dict[str, Any]]] = {}
    for _, model, settings in calls:
        by_model.setdefault(str(model), []).append(json.loads(str(settings)) if settings else {})
    leader = by_model["openai:gpt-4o"][0]
    assert leader["seed"] == 7 and leader["openai_reasoning_effort"] == "low"
    assert leader["extra_headers"] == {"X-Api-Key": "[REDACTED]"}
    assert by_model["anthropic:claude-sonnet-4-5"][0]["stop_sequences"] == ["STOP"]
    assert {s["seed"] for s in by_model["openai-chat:gpt-4o-mini"]} == {13}
    assert {s["seed"] for s in by_model["groq:llama-3.3-70b-versatile"]} == {17}
    assert all(s.get("seed") == 11 for s in by_model["script:metric"])
    stored = [ws / "mixseek.db", *(p for p in ws.rglob("*") if p.is_file() and "configs" not in p.parts)]
    for path in stored:
        data = path.read_bytes()
        for form in encoded_forms(SECRET):
            assert form.encode() not in data, (path, form)
    texts = rows(ws / "mixseek.db", "SELECT CAST(config AS TEXT) FROM executions")
    texts += rows(ws / "mixseek.db", "SELECT CAST(settings AS TEXT) FROM model_calls")
    for (text,) in texts:
        assert not any(form in str(text) for form in encoded_forms(SECRET))


def test_a_mixseek_core_plugin_member_runs_its_agent_with_the_members_settings(
    tmp_path: Path, runner: CliRunner
) -> None:
    plugin = Path(__file__).parents[1] / "plugins/core_plugins/lookup_agent.py"
    config = tmp_path / "lookup.toml"
    config.write_text(
        f'[member]\nagent_name = "helper"\nagent_type = "custom"\n'
        f'class_path = "{plugin.as_posix()}:LookupAgent"\n'
        'tool_description = "d"\nmodel = "openai:gpt-4o"\ntemperature = 0.4\n'
        'model_settings = { seed = 5, openai_reasoning_effort = "high" }\n',
        encoding="utf-8",
    )
    seen: dict[str, list[dict[str, Any]]] = {}

    def lookup(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart("looked up")])

    with override_models({"openai:gpt-4o": _spy("plugin", FunctionModel(lookup), seen)}):
        result = runner.invoke(app, ["member", "-c", str(config), "the capital?", "-f", "json"])
    assert result.exit_code == 0, result.output
    (settings,) = seen["plugin"]
    assert (settings["seed"], settings["openai_reasoning_effort"], settings["temperature"]) == (
        5,
        "high",
        0.4,
    )
