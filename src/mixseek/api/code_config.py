"""An `ExecutionConfig` from objects written in Python, in the shape a workspace's files give, with a label
(`teams[1]`, `evaluator`) where a file would be named."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from mixseek.config.bundle import ExecutionConfig, TeamEntry
from mixseek.config.evaluator import EvaluatorSettings
from mixseek.config.judgment import JudgmentSettings
from mixseek.config.loader import DEFAULT_SOURCE, Loaded
from mixseek.config.orchestrator import OrchestratorSettings
from mixseek.config.pairwise import PairwiseSettings
from mixseek.config.prompt_builder import PromptBuilderSettings
from mixseek.config.prompt_templates import compile_prompt_templates
from mixseek.config.team_models import TeamConfig
from mixseek.config.workspace import Workspace
from mixseek.errors import ConfigError

SettingsT = TypeVar("SettingsT", bound=BaseModel)


def _given(label: str, value: SettingsT) -> Loaded[SettingsT]:
    """Settings made in code: what the constructor was given comes from `label`, the rest is default."""
    sources = {
        name: label if name in value.model_fields_set else DEFAULT_SOURCE for name in type(value).model_fields
    }
    return Loaded(value=value, file=Path(label), sources=sources)


def _team(value: TeamConfig | Mapping[str, Any], index: int) -> TeamConfig:
    if isinstance(value, TeamConfig):
        return value
    if isinstance(value, Mapping):
        return TeamConfig.model_validate(value)
    raise ConfigError(
        f"teams[{index}]", None, f"expected a TeamConfig or a mapping, not {type(value).__name__}"
    )


def _team_entries(teams: Sequence[TeamConfig | Mapping[str, Any]]) -> list[TeamEntry]:
    if isinstance(teams, str | bytes | Mapping) or not teams:
        raise ConfigError("teams", None, "give a list of at least one team")
    entries: list[TeamEntry] = []
    seen: dict[str, int] = {}
    for index, value in enumerate(teams):
        team = _team(value, index)
        if team.team_id in seen:
            raise ConfigError(
                f"teams[{index}]",
                "team_id",
                f"'{team.team_id}' is also the team_id of teams[{seen[team.team_id]}]",
            )
        seen[team.team_id] = index
        entries.append(TeamEntry(Path(f"teams[{index}]"), team))
    return entries


def code_config(
    teams: Sequence[TeamConfig | Mapping[str, Any]],
    *,
    orchestrator: OrchestratorSettings | None,
    evaluator: EvaluatorSettings | None,
    judgment: JudgmentSettings | None,
    prompt_builder: PromptBuilderSettings | None,
    workspace: Workspace,
    pairwise: PairwiseSettings | None = None,
) -> ExecutionConfig:
    """The configuration of an execution given in code (settings left out: `MIXSEEK_*`, then defaults)."""
    builder = _given("prompt_builder", prompt_builder or PromptBuilderSettings())
    compile_prompt_templates(builder)  # checked now, as a file is when it is loaded
    return ExecutionConfig(
        workspace=workspace,
        orchestrator=_given("orchestrator", orchestrator or OrchestratorSettings()),
        teams=_team_entries(teams),
        evaluator=_given("evaluator", evaluator or EvaluatorSettings()),
        judgment=_given("judgment", judgment or JudgmentSettings()),
        prompt_builder=builder,
        pairwise=_given("pairwise", pairwise or PairwiseSettings()),
    )
