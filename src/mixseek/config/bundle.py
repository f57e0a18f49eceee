"""Everything one execution needs, loaded from a workspace and checked together."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TypeVar

from mixseek.config.evaluator import EvaluatorSettings
from mixseek.config.judgment import JudgmentSettings
from mixseek.config.loader import Loaded, load_section, read_toml, relative_path
from mixseek.config.metric_options import DETERMINISTIC_OPTIONS
from mixseek.config.model_ref import ModelRef
from mixseek.config.orchestrator import NO_TEAMS, OrchestratorSettings
from mixseek.config.pairwise import PairwiseSettings
from mixseek.config.prompt_builder import PromptBuilderSettings, load_prompt_builder_settings
from mixseek.config.prompt_templates import compile_prompt_templates
from mixseek.config.team_models import MemberAgentConfig, TeamConfig
from mixseek.config.teams import MemberOrigin, load_team
from mixseek.config.timezone import check_timezone_env
from mixseek.config.workflow_models import AgentExecutorConfig, FunctionExecutorConfig
from mixseek.config.workspace import Workspace
from mixseek.errors import ConfigError, MixseekError
from mixseek.llm.model_string import teams_using

T = TypeVar("T")


@dataclass(frozen=True)
class TeamEntry:
    """A loaded team, the file it came from and where its members' keys were written."""

    path: Path
    config: TeamConfig
    member_origins: tuple[MemberOrigin, ...] = ()
    workflow_key: str = "workflow"
    """The key a workflow's errors start with: `workflow` (`[workflow]`) or `team.workflow`."""

    def member_key_origin(self, index: int, key: str) -> tuple[Path, str]:
        """The file and dotted key that set `key` of member `index`, for one-line errors."""
        if index < len(self.member_origins):
            return self.member_origins[index].key(key)
        return self.path, f"team.members[{index}].{key}"

    def executor_key(self, step: int, executor: int, key: str) -> tuple[Path, str]:
        """The file and dotted key that set `key` of a workflow executor (always the team file)."""
        return self.path, f"{self.workflow_key}.steps[{step}].executors[{executor}].{key}"

    def agents(self) -> Iterator[TeamAgent]:
        """Every agent a member is built for (the leader's members or workflow agent executors)."""
        team_id = self.config.team_id
        for i, member in enumerate(self.config.members):
            yield TeamAgent(self, member, f"member '{member.agent_name}' of team '{team_id}'", None, i)
        if self.config.workflow is None:
            return
        for s, step in enumerate(self.config.workflow.steps):
            for j, executor in enumerate(step.executors):
                if isinstance(executor, AgentExecutorConfig):
                    yield TeamAgent(self, executor, f"executor '{executor.name}' of team '{team_id}'", s, j)

    def function_sites(self) -> Iterator[FunctionSite]:
        """Every workflow function executor named by text (a function given in code needs no check)."""
        if self.config.workflow is None:
            return
        for s, step in enumerate(self.config.workflow.steps):
            for j, executor in enumerate(step.executors):
                if isinstance(executor, FunctionExecutorConfig) and isinstance(executor.function, str):
                    source, key = self.executor_key(s, j, "function")
                    yield FunctionSite(executor.function, self.path.parent, str(source), key)


@dataclass(frozen=True)
class TeamAgent:
    """A member of a team, or an agent executor of its workflow, and where its keys were written."""

    entry: TeamEntry
    config: MemberAgentConfig
    role: str
    """How errors name it: `member 'x' of team 't'` or `executor 'x' of team 't'`."""
    step: int | None
    """The workflow step it is an executor of; None for a member."""
    index: int
    """Its place among the members, or among its step's executors."""

    def key_origin(self, key: str) -> tuple[Path, str]:
        """The file and dotted key that set `key` of this agent, for one-line errors."""
        if self.step is None:
            return self.entry.member_key_origin(self.index, key)
        return self.entry.executor_key(self.step, self.index, key)


@dataclass(frozen=True)
class FunctionSite:
    """A workflow executor's `function` reference, the folder a file path is taken from, where it is set."""

    function: str
    base_dir: Path
    source: str
    key: str


@dataclass(frozen=True)
class ModelSite:
    """A model string, who uses it, and the file (or env variable) and key that set it."""

    model: str
    role: str
    source: str
    key: str | None


@dataclass(frozen=True)
class ClassPathSite:
    """A `class_path` value, what it must name, where it is resolved from, and where it is set."""

    class_path: str
    kind: Literal["member", "metric"]
    base_dir: Path
    source: str
    key: str


def _settings_site(
    loaded: Loaded[EvaluatorSettings] | Loaded[JudgmentSettings] | Loaded[PairwiseSettings], section: str
) -> tuple[str, str | None]:
    """Where `model` of an evaluator or judgment file came from: the env variable, or the file's key."""
    origin = loaded.sources.get("model", "")
    if origin.startswith("env "):
        return origin, None
    return str(loaded.file), f"{section}.model"


@dataclass
class ExecutionConfig:
    """Every settings file of an execution, each read once, here: the execution reads this, not the files."""

    workspace: Workspace
    orchestrator: Loaded[OrchestratorSettings]
    teams: list[TeamEntry]
    evaluator: Loaded[EvaluatorSettings]
    judgment: Loaded[JudgmentSettings]
    prompt_builder: Loaded[PromptBuilderSettings]
    pairwise: Loaded[PairwiseSettings] = field(
        default_factory=lambda: Loaded(value=PairwiseSettings(), file=None, sources={})
    )
    """The optional final pairwise ranking (off by default)."""

    def model_roles(self) -> Iterator[tuple[str, str]]:
        """(model, role) for every model call site, for credential checks."""
        for site in self.model_sites():
            yield site.model, site.role

    def model_sites(self) -> Iterator[ModelSite]:
        """Every call site whose model is named by a string, with the file and key that chose it."""
        for model, role, source, key in self._all_model_sites():
            if isinstance(model, str):
                yield ModelSite(model, role, source, key)

    def _all_model_sites(self) -> Iterator[tuple[ModelRef, str, str, str | None]]:
        for entry in self.teams:
            team = entry.config
            if team.workflow is None:  # a workflow team has no leader to call
                role = f"leader of team '{team.team_id}'"
                yield team.leader.model, role, str(entry.path), "team.leader.model"
            for agent in entry.agents():
                source, key = agent.key_origin("model")
                yield agent.config.model, agent.role, str(source), key
        evaluator = self.evaluator.value
        for i, metric in enumerate(evaluator.metrics):
            role = f"evaluator metric '{metric.name}'"
            if metric.model is not None:
                yield metric.model, role, str(self.evaluator.file), f"evaluator.metrics[{i}].model"
            elif metric.models is not None:  # a judge panel: each judge's model by its own key
                for j, model in enumerate(metric.models):
                    key = f"evaluator.metrics[{i}].models[{j}]"
                    yield model, role, str(self.evaluator.file), key
            elif metric.class_path is None and metric.name not in DETERMINISTIC_OPTIONS:  # those call none
                yield evaluator.model, role, *_settings_site(self.evaluator, "evaluator")
        yield self.judgment.value.model, "judgment", *_settings_site(self.judgment, "judgment")
        if self.pairwise.value.enabled:
            yield self.pairwise.value.model, "pairwise judge", *_settings_site(self.pairwise, "pairwise")

    def self_judges(self) -> list[ConfigError]:
        """Judges (evaluator metrics', the pairwise one) whose model is a team's too, unless allowed."""
        mode = self.orchestrator.value.self_judging
        teams = {e.config.team_id: e.config.model_dump(mode="json") for e in self.teams}
        sites = [
            s for s in self.model_sites() if s.role.startswith("evaluator") or s.role == "pairwise judge"
        ]
        tail = ": its verdicts may prefer its own answers" + (
            ' (self_judging = "refuse")' if mode == "refuse" else ""
        )
        found: dict[tuple[str, str | None], ConfigError] = {}
        for s in sites:
            if mode != "allow" and (own := teams_using(s.model, teams)):
                whose = f"team {own[0]}'s model" if len(own) == 1 else f"the model of teams {', '.join(own)}"
                found[s.source, s.key] = ConfigError(
                    s.source, s.key, f"judge model {s.model} is also {whose}{tail}"
                )
        return list(found.values())

    def function_sites(self) -> Iterator[FunctionSite]:
        """Every workflow function executor named by text, resolved as the team resolves it."""
        for entry in self.teams:
            yield from entry.function_sites()

    def class_path_sites(self) -> Iterator[ClassPathSite]:
        """Every custom member (or agent executor) and metric class, resolved as the orchestrator does."""
        for entry in self.teams:
            for agent in entry.agents():
                class_path = agent.config.class_path
                if class_path is not None:
                    source, key = agent.key_origin("class_path")
                    yield ClassPathSite(class_path, "member", entry.path.parent, str(source), key)
        evaluator_file = self.evaluator.file
        base_dir = evaluator_file.parent if evaluator_file else self.workspace.configs
        for i, metric in enumerate(self.evaluator.value.metrics):
            if metric.class_path is not None:
                key = f"evaluator.metrics[{i}].class_path"
                yield ClassPathSite(metric.class_path, "metric", base_dir, str(evaluator_file), key)


@dataclass
class Problems:
    """Problems found while checking a workspace, in the order found."""

    errors: list[MixseekError] = field(default_factory=list)

    def attempt(self, fn: Callable[[], T]) -> T | None:
        try:
            return fn()
        except ConfigError as exc:
            self.errors.extend(exc.all_problems())
        except MixseekError as exc:
            self.errors.append(exc)
        return None


def _check_unique_team_ids(teams: list[TeamEntry]) -> None:
    seen: dict[str, Path] = {}
    for entry in teams:
        team_id = entry.config.team_id
        if team_id in seen:
            raise ConfigError(
                entry.path, "team.team_id", f"'{team_id}' is also the team_id of {seen[team_id]}"
            )
        seen[team_id] = entry.path


def collect_execution_config(
    workspace: Workspace, orchestrator_file: Path | None = None
) -> tuple[ExecutionConfig | None, Problems]:
    """Load every config file, gathering all problems instead of stopping at the first."""
    problems = Problems()
    orch_path = (orchestrator_file or workspace.orchestrator_file).resolve()
    orchestrator = problems.attempt(lambda: load_section(OrchestratorSettings, orch_path, "orchestrator"))
    teams: list[TeamEntry] = []
    eval_path = workspace.evaluator_file
    judgment_path = workspace.judgment_file
    pairwise_path = workspace.configs / "pairwise.toml"
    if orchestrator is not None:
        settings = orchestrator.value
        team_refs = [t.config for t in settings.teams]
        if not team_refs:
            problems.errors.append(ConfigError(orch_path, "orchestrator.teams", NO_TEAMS))
        eval_path = relative_path(orch_path, settings.evaluator_config)
        judgment_path = relative_path(orch_path, settings.judgment_config)
        pairwise_path = relative_path(orch_path, settings.pairwise_config)
    else:
        team_refs = _raw_team_refs(orch_path)
    for i, ref in enumerate(team_refs):
        team_path = relative_path(orch_path, ref)
        if not team_path.exists():
            problems.errors.append(
                ConfigError(orch_path, f"orchestrator.teams[{i}].config", f"team file not found: {team_path}")
            )
            continue
        team = problems.attempt(lambda p=team_path: load_team(p))  # type: ignore[misc]
        if team is not None:
            teams.append(TeamEntry(team_path, team.config, team.member_origins, team.workflow_key))
    problems.attempt(lambda: _check_unique_team_ids(teams))
    evaluator = problems.attempt(
        lambda: load_section(EvaluatorSettings, eval_path, "evaluator", required=False)
    )
    judgment = problems.attempt(
        lambda: load_section(JudgmentSettings, judgment_path, "judgment", required=False)
    )
    pairwise = problems.attempt(
        lambda: load_section(PairwiseSettings, pairwise_path, "pairwise", required=False)
    )
    prompt_builder = problems.attempt(lambda: _load_prompt_builder(workspace))
    problems.attempt(check_timezone_env)
    if (
        problems.errors
        or orchestrator is None
        or evaluator is None
        or judgment is None
        or pairwise is None
        or prompt_builder is None
    ):
        return None, problems
    config = ExecutionConfig(workspace, orchestrator, teams, evaluator, judgment, prompt_builder, pairwise)
    if orchestrator.value.self_judging == "refuse" and (refused := config.self_judges()):
        problems.errors.extend(refused)
        return None, problems
    return config, problems


def _raw_team_refs(orch_path: Path) -> list[str]:
    """Team paths of an orchestrator file that failed validation, so their files still get checked."""
    try:
        teams = read_toml(orch_path).get("orchestrator", {}).get("teams", [])
    except (ConfigError, AttributeError):
        return []
    if not isinstance(teams, list):
        return []
    return [t["config"] for t in teams if isinstance(t, dict) and isinstance(t.get("config"), str)]


def _load_prompt_builder(workspace: Workspace) -> Loaded[PromptBuilderSettings]:
    """`[prompt_builder]` settings whose three templates are checked (syntax, allowed variables)."""
    loaded = load_prompt_builder_settings(workspace)
    compile_prompt_templates(loaded)
    return loaded


def load_execution_config(workspace: Workspace, orchestrator_file: Path | None = None) -> ExecutionConfig:
    """All configs of an execution, or the first problem as a ConfigError."""
    config, problems = collect_execution_config(workspace, orchestrator_file)
    if config is None:
        first = problems.errors[0]
        if isinstance(first, ConfigError):
            first = ConfigError.combine([e for e in problems.errors if isinstance(e, ConfigError)])
        raise first
    return config
