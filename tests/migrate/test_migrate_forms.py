"""Each mixseek-core config form `mixseek migrate` converts, and the keys it reports as not carried over."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.models.test import TestModel
from typer.testing import CliRunner

from mixseek.cli.app import app
from mixseek.llm import override_models

from .legacy import write

ORCHESTRATOR = """\
[orchestrator]
workspace = "/old/place"
max_rounds = 4
max_retries_per_team = 2
prompt_builder_config = "configs/prompts/custom_prompts.toml"
evaluator_config = "configs/evaluator.toml"

[[orchestrator.teams]]
config = "configs/team-ref-agents.toml"

[[orchestrator.teams]]
config = "configs/team-inline.toml"
"""

TEAM_REF = """\
[team]
team_id = "ref-team"
team_name = "Reference Team"
member_dispatch = "broadcast"

[team.leader]
system_prompt = "You are careful."
system_instruction = "Delegate, then merge the answers."
model = "openai:gpt-4o"
timeout_seconds = 5
model_settings = { parallel_tool_calls = true }

[[team.members]]
config = "configs/agents/analyst.toml"
tool_name = "delegate_to_analyst"
tool_description = "Analyses data"
temperature = 0.9

[[team.members]]
config = "configs/agents/coder.toml"

[[team.members]]
config = "configs/agents/reader.toml"
"""

TEAM_INLINE = """\
[team]
team_id = "inline-team"
team_name = "Inline Team"
member_dispatch = "selective"

[team.leader]
model = "anthropic:claude-sonnet-4-5"

[[team.members]]
agent_name = "summarizer"
agent_type = "plain"
model = "openai:gpt-4o-mini"
system_instruction = "Summarise in three points."

[[team.members]]
name = "searcher"
type = "web_search"
model = "openai-responses:gpt-4o"
description = "Searches the web"
capabilities = ["web_search"]

[team.members.tool_settings.web_search]
max_results = 10
allowed_domains = ["example.org"]
"""

ANALYST = """\
[agent]
name = "analyst"
type = "plain"
model = "google-gla:gemini-flash-lite-latest"
max_tokens = 2048
tool_description = "Analyses data (from the member file)"

[agent.system_instruction]
text = "You analyse data."

[agent.metadata]
version = "1.0.0"
"""

CODER = """\
[agent]
name = "coder"
type = "code_execution"
model = "anthropic:claude-sonnet-4-5-20250929"
description = "Runs Python to compute answers"

[agent.tool_settings.code_execution]
expected_available_modules = ["math", "json"]

[agent.retry_config]
max_retries = 1
"""

READER = """\
[agent]
name = "reader"
type = "web_fetch"
model = "anthropic:claude-sonnet-4-5-20250929"
system_instruction = "Read the page and summarise it."

[agent.tool_settings.web_fetch]
max_uses = 5
enable_citations = true
"""

EVALUATOR = """\
[llm_default]
model = "openai:gpt-4o"
temperature = 0.0
max_tokens = 2000
stop_sequences = ["END"]

[[metrics]]
name = "ClarityCoherence"
weight = 0.5

[[metrics]]
name = "Coverage"
model = "anthropic:claude-sonnet-4-5"
top_p = 0.9

[[metrics]]
name = "Novelty"
weight = 0.2

[custom_metrics]
novelty = { module = "my.metrics" }
"""

JUDGMENT = """\
model = "openai:gpt-4o-mini"
judge_on_final_round = false
top_p = 0.95

[model_settings]
parallel_tool_calls = true
"""

PROMPTS = """\
[prompt_builder]
team_user_prompt = "Task: {{ user_prompt }} (round {{ round_number }})"
judgment_user_prompt = "Judge {{ submission }}"
preview = true
"""

WORKFLOW = """\
[workflow]
name = "research"
"""


def _source(root: Path) -> Path:
    for rel, text in {
        "configs/orchestrator.toml": ORCHESTRATOR,
        "configs/team-ref-agents.toml": TEAM_REF,
        "configs/team-inline.toml": TEAM_INLINE,
        "configs/agents/analyst.toml": ANALYST,
        "configs/agents/coder.toml": CODER,
        "configs/agents/reader.toml": READER,
        "configs/evaluator.toml": EVALUATOR,
        "configs/judgment.toml": JUDGMENT,
        "configs/prompts/custom_prompts.toml": PROMPTS,
        "configs/workflows/research.toml": WORKFLOW,
    }.items():
        write(root, rel, text)
    return root


@pytest.fixture
def migrated(tmp_path: Path, runner: CliRunner) -> tuple[Path, list[str]]:
    source = _source(tmp_path / "core")
    dest = tmp_path / "new"
    result = runner.invoke(app, ["migrate", str(source), "-w", str(dest)])
    assert result.exit_code == 0, result.output
    return dest, result.output.splitlines()


def _toml(dest: Path, rel: str) -> dict[str, Any]:
    return tomllib.loads((dest / rel).read_text(encoding="utf-8"))


def test_migrated_forms_load(migrated: tuple[Path, list[str]], runner: CliRunner) -> None:
    dest, output = migrated
    assert not any(line.startswith("to fix") for line in output)
    with override_models(
        {m: TestModel() for m in ("google-gla:gemini-flash-lite-latest", "openai-responses:gpt-4o")}
    ):
        result = runner.invoke(app, ["config", "validate", "-w", str(dest)])
    assert result.exit_code == 0, result.output


def test_member_keys_and_instruction_tables(migrated: tuple[Path, list[str]]) -> None:
    dest, _ = migrated
    members = _toml(dest, "configs/team-inline.toml")["team"]["members"]
    assert members[0] == {
        "agent_name": "summarizer",
        "agent_type": "plain",
        "tool_description": "Delegate task to summarizer",
        "model": "openai:gpt-4o-mini",
        "system_instruction": "Summarise in three points.",
    }
    assert members[1] == {
        "agent_name": "searcher",
        "agent_type": "web-search",
        "tool_description": "Searches the web",
        "model": "openai-responses:gpt-4o",
        "web_search": {"allowed_domains": ["example.org"]},
    }


def test_agent_files_become_member_files_referenced_from_the_team_file(
    migrated: tuple[Path, list[str]],
) -> None:
    dest, _ = migrated
    team = _toml(dest, "configs/team-ref-agents.toml")["team"]
    assert team["members"] == [
        {
            "config": "agents/analyst.toml",
            "tool_name": "delegate_to_analyst",
            "tool_description": "Analyses data",
        },
        {"config": "agents/coder.toml"},
        {"config": "agents/reader.toml"},
    ]
    assert _toml(dest, "configs/agents/analyst.toml") == {
        "member": {
            "agent_name": "analyst",
            "agent_type": "plain",
            "tool_description": "Analyses data (from the member file)",
            "model": "google-gla:gemini-flash-lite-latest",
            "max_tokens": 2048,
            "system_instruction": "You analyse data.",
        }
    }
    assert _toml(dest, "configs/agents/coder.toml")["member"]["agent_type"] == "code-exec"
    assert _toml(dest, "configs/agents/reader.toml")["member"]["agent_type"] == "web-fetch"
    assert team["leader"] == {
        "model": "openai:gpt-4o",
        "system_prompt": "You are careful.\n\nDelegate, then merge the answers.",
        "model_settings": {"parallel_tool_calls": True},
    }


def test_member_dispatch_is_carried_over(migrated: tuple[Path, list[str]]) -> None:
    dest, _ = migrated
    assert _toml(dest, "configs/team-ref-agents.toml")["team"]["member_dispatch"] == "broadcast"
    assert _toml(dest, "configs/team-inline.toml")["team"]["member_dispatch"] == "selective"


def test_orchestrator_paths_become_relative_to_the_file(migrated: tuple[Path, list[str]]) -> None:
    dest, _ = migrated
    orchestrator = _toml(dest, "configs/orchestrator.toml")["orchestrator"]
    assert orchestrator["teams"] == [{"config": "team-ref-agents.toml"}, {"config": "team-inline.toml"}]
    assert "evaluator_config" not in orchestrator and "judgment_config" not in orchestrator
    assert orchestrator["max_rounds"] == 4 and orchestrator["min_rounds"] == 2
    prompts = _toml(dest, "configs/prompt_builder.toml")["prompt_builder"]
    assert prompts == {"team_user_prompt": "Task: {{ user_prompt }} (round {{ round_number }})"}


def test_evaluator_and_judgment_top_level_keys_and_metric_names(migrated: tuple[Path, list[str]]) -> None:
    dest, _ = migrated
    assert _toml(dest, "configs/evaluator.toml") == {
        "evaluator": {
            "model": "openai:gpt-4o",
            "temperature": 0.0,
            "max_tokens": 2000,
            "timeout_seconds": 300,
            "model_settings": {"stop_sequences": ["END"]},
            "metrics": [
                {"name": "clarity_coherence", "weight": 0.5},
                {
                    "name": "coverage",
                    "weight": 0.5,
                    "model": "anthropic:claude-sonnet-4-5",
                    "model_settings": {"top_p": 0.9},
                },
            ],
        }
    }
    assert _toml(dest, "configs/judgment.toml") == {
        "judgment": {
            "model": "openai:gpt-4o-mini",
            "temperature": 0.0,
            "timeout_seconds": 60,
            "judge_on_final_round": False,
            "model_settings": {"parallel_tool_calls": True, "top_p": 0.95},
        }
    }


CHANGED = [
    (
        "configs/agents/coder.toml",
        "agent.type",
        "the provider's code execution tool became code-exec, which runs Python locally in a sandbox",
    ),
    (
        "configs/agents/reader.toml",
        "agent.type",
        "the provider's web fetch tool became web-fetch, which fetches pages itself (httpx)",
    ),
    ("configs/evaluator.toml", "metrics[1].top_p", "written as model_settings.top_p"),
    ("configs/evaluator.toml", "metrics", "metrics without a weight get 0.5 each"),
    ("configs/evaluator.toml", "llm_default.stop_sequences", "written as model_settings.stop_sequences"),
    ("configs/judgment.toml", "top_p", "written as model_settings.top_p"),
    (
        "configs/team-ref-agents.toml",
        "team.leader.system_instruction",
        "appended to the leader's system_prompt",
    ),
]
DROPPED = [
    ("configs/agents/analyst.toml", "agent.metadata", "no equivalent"),
    (
        "configs/agents/coder.toml",
        "agent.tool_settings.code_execution",
        "no equivalent: these configured the "
        "provider's code execution tool; code-exec has its own limits ([code_exec] table)",
    ),
    (
        "configs/agents/coder.toml",
        "agent.retry_config",
        "no equivalent: model requests are retried per request (max_retries)",
    ),
    (
        "configs/agents/reader.toml",
        "agent.tool_settings.web_fetch",
        "no equivalent: these configured the "
        "provider's fetch tool; web-fetch has its own limits ([web_fetch] table)",
    ),
    ("configs/evaluator.toml", "metrics[2].name", "unknown metric 'Novelty': no equivalent metric"),
    ("configs/evaluator.toml", "custom_metrics", "no equivalent: name a class with class_path in a metric"),
    (
        "configs/orchestrator.toml",
        "orchestrator.max_retries_per_team",
        "no equivalent: a failing team is isolated; model requests are retried one by one (max_retries)",
    ),
    ("configs/orchestrator.toml", "orchestrator.workspace", "not needed: the workspace is the -w directory"),
    (
        "configs/prompts/custom_prompts.toml",
        "prompt_builder.judgment_user_prompt",
        "template not accepted "
        "(Jinja2 template error: 'submission' is undefined at line 1 (allowed: current_datetime, "
        "ranking_table, "
        "round_number, submission_history, team_position_message, user_prompt)); the default applies",
    ),
    ("configs/prompts/custom_prompts.toml", "prompt_builder.preview", "unknown key"),
    (
        "configs/team-inline.toml",
        "team.members[1].tool_settings.web_search.max_results",
        "no equivalent option",
    ),
    (
        "configs/team-inline.toml",
        "team.members[1].capabilities",
        "informational only: the member type decides the tools",
    ),
    (
        "configs/team-ref-agents.toml",
        "team.leader.timeout_seconds",
        "value 5 not accepted: Input should be greater than or equal to 10",
    ),
    (
        "configs/team-ref-agents.toml",
        "team.members[0].temperature",
        "ignored by mixseek-core beside config "
        "(only tool_name and tool_description override a member file), so not carried over",
    ),
]


def test_what_was_changed_or_not_carried_over_is_listed(migrated: tuple[Path, list[str]]) -> None:
    _, output = migrated
    changed = output[
        output.index("changed (file: key: how):") + 1 : output.index("not carried over (file: key: why):")
    ]
    assert changed == [f"  {file}: {key}: {why}" for file, key, why in CHANGED]
    dropped = output[output.index("not carried over (file: key: why):") + 1 :]
    assert dropped == [
        *(f"  {file}: {key}: {why}" for file, key, why in DROPPED),
        "  configs/workflows/research.toml: not a mixseek-core config this migration knows",
    ]
