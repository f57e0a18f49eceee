"""mixseek: teams of LLM agents compete on one task, judged round by round.

The Python API, in one import:

    from mixseek import Mixseek, TeamConfig, LeaderAgentConfig, MemberAgentConfig, OrchestratorSettings
    from mixseek import WorkflowConfig, WorkflowStep, AgentExecutorConfig, FunctionExecutorConfig

Stored executions are read with `mixseek.runs`. Names load on first use: `import mixseek` stays cheap.
"""

from mixseek.lazy_exports import lazy_exports
from mixseek.version import __version__

# `typing.TYPE_CHECKING` without importing `typing` (~10 ms) before the Ctrl-C guard (`cli.entry`)
TYPE_CHECKING = False

# name -> module that defines it
_EXPORTS: dict[str, str] = {
    # running
    "Mixseek": "mixseek.api.mixseek",
    "ExecutionRun": "mixseek.api.execution",
    "load_workspace": "mixseek.api.mixseek",
    # configuration
    "TeamConfig": "mixseek.config.team_models",
    "LeaderAgentConfig": "mixseek.config.agent_models",
    "MemberAgentConfig": "mixseek.config.agent_models",
    "WorkflowConfig": "mixseek.config.workflow_models",
    "WorkflowStep": "mixseek.config.workflow_models",
    "AgentExecutorConfig": "mixseek.config.workflow_models",
    "FunctionExecutorConfig": "mixseek.config.workflow_models",
    "OrchestratorSettings": "mixseek.config.orchestrator",
    "ModelLimitConfig": "mixseek.config.orchestrator",
    "EvaluatorSettings": "mixseek.config.evaluator",
    "MetricConfig": "mixseek.config.evaluator",
    "JudgmentSettings": "mixseek.config.judgment",
    "PairwiseSettings": "mixseek.config.pairwise",
    "PromptBuilderSettings": "mixseek.config.prompt_builder",
    # events
    "Event": "mixseek.orchestrator.events",
    "ExecutionStarted": "mixseek.orchestrator.events",
    "ExecutionResumed": "mixseek.orchestrator.events",
    "RoundStarted": "mixseek.orchestrator.events",
    "TeamRoundStarted": "mixseek.orchestrator.events",
    "TeamRoundFinished": "mixseek.orchestrator.events",
    "TeamDecided": "mixseek.orchestrator.events",
    "UsageUpdated": "mixseek.orchestrator.events",
    "ExecutionStopping": "mixseek.orchestrator.events",
    "ExecutionFinished": "mixseek.orchestrator.events",
    "PairwiseStarted": "mixseek.orchestrator.events",
    "PairwiseCompared": "mixseek.orchestrator.events",
    "PairwiseFinished": "mixseek.orchestrator.events",
    "WorkflowReplaced": "mixseek.orchestrator.events",
    "parse_event": "mixseek.orchestrator.events",
    # results
    "ExecutionSummary": "mixseek.orchestrator.models",
    "TeamSummary": "mixseek.orchestrator.models",
    "BestSubmission": "mixseek.storage.overview",
    "RankingEntry": "mixseek.storage.overview",
    "UsageTotals": "mixseek.storage.overview",
    "PairwiseView": "mixseek.storage.pairwise_views",
    # stored executions, as `mixseek.runs` reads them
    "ExecutionOverview": "mixseek.storage.overview",
    "ExecutionView": "mixseek.storage.views",
    "TeamView": "mixseek.storage.views",
    "RoundView": "mixseek.storage.views",
    "UnknownExecution": "mixseek.runs",
    # errors
    "MixseekError": "mixseek.errors",
    "InputError": "mixseek.errors",
    "RuntimeFailure": "mixseek.errors",
    "ConfigError": "mixseek.errors",
}

__all__ = [
    "AgentExecutorConfig",
    "BestSubmission",
    "ConfigError",
    "EvaluatorSettings",
    "Event",
    "ExecutionFinished",
    "ExecutionOverview",
    "ExecutionResumed",
    "ExecutionRun",
    "ExecutionStarted",
    "ExecutionStopping",
    "ExecutionSummary",
    "ExecutionView",
    "FunctionExecutorConfig",
    "InputError",
    "JudgmentSettings",
    "LeaderAgentConfig",
    "MemberAgentConfig",
    "MetricConfig",
    "Mixseek",
    "MixseekError",
    "ModelLimitConfig",
    "OrchestratorSettings",
    "PairwiseCompared",
    "PairwiseFinished",
    "PairwiseSettings",
    "PairwiseStarted",
    "PairwiseView",
    "PromptBuilderSettings",
    "RankingEntry",
    "RoundStarted",
    "RoundView",
    "RuntimeFailure",
    "TeamConfig",
    "TeamDecided",
    "TeamRoundFinished",
    "TeamRoundStarted",
    "TeamSummary",
    "TeamView",
    "UnknownExecution",
    "UsageTotals",
    "UsageUpdated",
    "WorkflowConfig",
    "WorkflowReplaced",
    "WorkflowStep",
    "__version__",
    "load_workspace",
    "parse_event",
]

if TYPE_CHECKING:
    from mixseek.api.execution import ExecutionRun
    from mixseek.api.mixseek import Mixseek, load_workspace
    from mixseek.config.agent_models import LeaderAgentConfig, MemberAgentConfig
    from mixseek.config.evaluator import EvaluatorSettings, MetricConfig
    from mixseek.config.judgment import JudgmentSettings
    from mixseek.config.orchestrator import ModelLimitConfig, OrchestratorSettings
    from mixseek.config.pairwise import PairwiseSettings
    from mixseek.config.prompt_builder import PromptBuilderSettings
    from mixseek.config.team_models import TeamConfig
    from mixseek.config.workflow_models import (
        AgentExecutorConfig,
        FunctionExecutorConfig,
        WorkflowConfig,
        WorkflowStep,
    )
    from mixseek.errors import ConfigError, InputError, MixseekError, RuntimeFailure
    from mixseek.orchestrator.events import (
        Event,
        ExecutionFinished,
        ExecutionResumed,
        ExecutionStarted,
        ExecutionStopping,
        PairwiseCompared,
        PairwiseFinished,
        PairwiseStarted,
        RoundStarted,
        TeamDecided,
        TeamRoundFinished,
        TeamRoundStarted,
        UsageUpdated,
        WorkflowReplaced,
        parse_event,
    )
    from mixseek.orchestrator.models import ExecutionSummary, TeamSummary
    from mixseek.runs import UnknownExecution
    from mixseek.storage.overview import BestSubmission, ExecutionOverview, RankingEntry, UsageTotals
    from mixseek.storage.pairwise_views import PairwiseView
    from mixseek.storage.views import ExecutionView, RoundView, TeamView


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
