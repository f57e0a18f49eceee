"""The parts an execution's team rounds are made of, built once from its configuration by the
local engine or a Temporal worker alike, so a team round runs alike wherever it is scheduled."""

from __future__ import annotations

from dataclasses import dataclass

from mixseek.agents.team import Team, create_team
from mixseek.config.bundle import ExecutionConfig
from mixseek.config.evaluator import PERCENT
from mixseek.evaluator.evaluator import Evaluator
from mixseek.llm.governor import Budget, Governor, ModelLimit
from mixseek.llm.middleware import wrap_models
from mixseek.llm.retrying import RetryTiming, retry_timing
from mixseek.prompt_builder.builder import UserPromptBuilder
from mixseek.round_controller.controller import RoundController
from mixseek.round_controller.judgment_client import JudgmentClient
from mixseek.storage.protocol import RoundWriter


@dataclass
class Components:
    """Governor (limits, ledger, budget), prompt builder, evaluator, judgment and teams."""

    governor: Governor
    prompt_builder: UserPromptBuilder
    evaluator: Evaluator
    judgment: JudgmentClient
    teams: dict[str, Team]

    def controller(
        self,
        config: ExecutionConfig,
        store: RoundWriter,
        execution_id: str,
        user_prompt: str,
        team_id: str,
        reference: str | None,
    ) -> RoundController:
        """One team's round controller over these parts, writing to `store`."""
        return RoundController(
            execution_id=execution_id,
            user_prompt=user_prompt,
            team=self.teams[team_id],
            store=store,
            prompt_builder=self.prompt_builder,
            evaluator=self.evaluator,
            judgment=self.judgment,
            governor=self.governor,
            timeout_seconds=config.orchestrator.value.timeout_per_team_seconds,
            reference=reference,
        )


def build_components(config: ExecutionConfig) -> Components:
    """Every model is built here, wrapped by the governor, with the configured retry timing."""
    s = config.orchestrator.value
    governor = Governor(
        Budget(s.max_total_tokens, s.max_requests, s.max_cost_usd),
        ModelLimit(s.max_concurrent_requests_per_model, s.requests_per_minute_per_model),
        {k: ModelLimit(v.max_concurrent_requests, v.requests_per_minute) for k, v in s.model_limits.items()},
    )
    timing = RetryTiming(s.retry_base_delay_seconds, s.retry_max_delay_seconds)
    evaluator_dir = config.evaluator.file.parent if config.evaluator.file else config.workspace.configs
    with wrap_models(governor.wrap), retry_timing(timing):
        # settings as loaded with the config (read once); the ranking comes in each context
        prompt_builder = UserPromptBuilder(config.workspace.root, settings=config.prompt_builder)
        evaluator = Evaluator(
            config.evaluator.value, prompt_builder.build_evaluator_prompt, base_dir=evaluator_dir
        )
        prompt_builder.percent = evaluator.scale == PERCENT
        judgment = JudgmentClient(config.judgment.value, prompt_builder.build_judgment_prompt)
        teams = {
            entry.config.team_id: create_team(entry.config, base_dir=entry.path.parent)
            for entry in config.teams
        }
    return Components(governor, prompt_builder, evaluator, judgment, teams)
