"""A team's strategy for one round's submission: what comes after it (evaluation, storage,
judgment) is the same for every kind, so leader and workflow teams compete on equal terms."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from pydantic_ai.usage import UsageLimits

from mixseek.agents.leader.agent import LeaderTeam
from mixseek.agents.team_result import TeamRunResult
from mixseek.agents.workflow.team import WorkflowTeam
from mixseek.config.team_models import TeamConfig


class Team(Protocol):
    """Produces one round's submission and the record of what its members did."""

    @property
    def config(self) -> TeamConfig: ...

    async def run(
        self,
        prompt: str,
        *,
        round_number: int = 1,
        usage_limits: UsageLimits | None = None,
        user_prompt: str | None = None,
    ) -> TeamRunResult:
        """`prompt` is the round's prompt (task, history, rank); `user_prompt` the execution's task."""
        ...


def create_team(config: TeamConfig, *, base_dir: Path | None = None) -> Team:
    """The team a config describes: a workflow team when it has `[workflow]`, else a leader team."""
    if config.workflow is not None:
        return WorkflowTeam(config, base_dir=base_dir)
    return LeaderTeam(config, base_dir=base_dir)
