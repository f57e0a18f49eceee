"""A workflow team's `[workflow]`: steps run in order, the executors of one step concurrently. An executor is
an agent (a member configuration without the tool keys) or a Python function (`"module:function"`,
`"path/file.py:function"`, or in code the function); the last step's output is the team's submission."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    PlainSerializer,
    Tag,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from mixseek.config.agent_models import MemberAgentConfig
from mixseek.config.prompt_defaults import WORKFLOW_EXECUTOR_DESCRIPTION

StepInput = Literal["previous", "all"]
"""What an executor sees of earlier steps: the step just before it, or every earlier step."""

AGENT_EXECUTOR_TAG = "agent executor"
FUNCTION_EXECUTOR_TAG = "function executor"
# pydantic writes a discriminated union's tag into an error's location; the config loader drops
# location parts with a space in them, which no key has, so errors name keys as they are written.


def function_label(value: str | Callable[..., Any]) -> str:
    """A function reference as text: as written, or `module:qualname` for a function given in code."""
    if isinstance(value, str):
        return value
    module = getattr(value, "__module__", None) or "?"
    name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None) or repr(value)
    return f"{module}:{name}"


def _function_or_path(value: Any) -> Any:
    if isinstance(value, str):
        module, sep, name = value.rpartition(":")
        if not sep or not module.strip() or not name.strip():
            raise ValueError(f"expected 'module:function' or 'path/to/file.py:function' (got '{value}')")
        return value
    if callable(value):
        return value
    raise ValueError("must be a 'module:function' string or, in code, a function")


if TYPE_CHECKING:
    FunctionRef: TypeAlias = str | Callable[..., Any]
else:
    FunctionRef = Annotated[
        Any, PlainSerializer(function_label, return_type=str), WithJsonSchema({"type": "string"})
    ]


class AgentExecutorConfig(MemberAgentConfig):
    """An executor that is one agent, configured as a member is; called with the step's input as its task."""

    model_config = ConfigDict(extra="forbid", serialize_by_alias=True)

    agent_name: str = Field(alias="name", min_length=1)
    agent_type: str = "plain"
    tool_name: str | None = Field(default=None, exclude=True)
    tool_description: str = Field(default=WORKFLOW_EXECUTOR_DESCRIPTION, exclude=True)
    config: str | None = Field(default=None, exclude=True)

    @property
    def name(self) -> str:
        return self.agent_name

    @property
    def kind(self) -> Literal["agent"]:
        return "agent"

    @model_validator(mode="after")
    def validate_executor_keys(self) -> AgentExecutorConfig:
        if self.config is not None:
            raise ValueError(
                "config: member file references are for [[team.members]]; write an executor's keys inline"
            )
        if self.tool_name is not None:
            raise ValueError("tool_name: an executor is not a tool; leave it out")
        return self


class FunctionExecutorConfig(BaseModel):
    """An executor that is a Python function, sync (run in a thread) or async: it receives the step's input
    document and returns text (anything else is written as JSON)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    function: FunctionRef
    timeout_seconds: float = Field(default=300.0, gt=0)

    @property
    def kind(self) -> Literal["function"]:
        return "function"

    @field_validator("function", mode="plain")
    @classmethod
    def validate_function(cls, value: Any) -> Any:
        return _function_or_path(value)

    @property
    def function_label(self) -> str:
        return function_label(self.function)


def _executor_kind(value: Any) -> str:
    if isinstance(value, FunctionExecutorConfig):
        return FUNCTION_EXECUTOR_TAG
    if isinstance(value, dict) and "function" in value:
        return FUNCTION_EXECUTOR_TAG
    return AGENT_EXECUTOR_TAG


ExecutorConfig = Annotated[
    Annotated[AgentExecutorConfig, Tag(AGENT_EXECUTOR_TAG)]
    | Annotated[FunctionExecutorConfig, Tag(FUNCTION_EXECUTOR_TAG)],
    Discriminator(_executor_kind),
]


class WorkflowStep(BaseModel):
    """One step: its executors run at once; the step fails when one fails, unless it may continue."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    executors: list[ExecutorConfig]
    continue_on_failure: bool = False
    """A failed executor is passed on as failed instead of failing the step (and the round)."""
    input: StepInput | None = None
    """Overrides the workflow's `input` for this step."""

    @field_validator("executors")
    @classmethod
    def validate_not_empty(cls, v: list[ExecutorConfig]) -> list[ExecutorConfig]:
        if not v:
            raise ValueError("a step needs at least one executor")
        return v


def _duplicates(names: list[str]) -> list[str]:
    return sorted({n for n in names if names.count(n) > 1})


class WorkflowConfig(BaseModel):
    """A team's fixed procedure for one round, instead of a leader choosing members."""

    model_config = ConfigDict(extra="forbid")

    steps: list[WorkflowStep]
    input: StepInput = "previous"
    """What each executor receives of earlier steps; a step may override it."""
    output: str | None = Field(default=None, validate_default=True)
    """The executor of the last step whose result is the submission (needed when it has several)."""

    @field_validator("steps")
    @classmethod
    def validate_steps(cls, v: list[WorkflowStep]) -> list[WorkflowStep]:
        if not v:
            raise ValueError("a workflow needs at least one step")
        duplicates = _duplicates([s.id for s in v])
        if duplicates:
            raise ValueError(f"duplicate step id: {', '.join(duplicates)}")
        names = [executor_name(e) for s in v for e in s.executors]
        duplicates = _duplicates(names)
        if duplicates:
            raise ValueError(f"duplicate executor name: {', '.join(duplicates)}")
        return v

    @field_validator("output")
    @classmethod
    def validate_output(cls, v: str | None, info: ValidationInfo) -> str | None:
        steps: list[WorkflowStep] | None = info.data.get("steps")
        if not steps:
            return v  # bad steps are reported by themselves
        last = steps[-1]
        names = [executor_name(e) for e in last.executors]
        if v is None:
            if len(names) > 1:
                raise ValueError(
                    f"the last step '{last.id}' has {len(names)} executors "
                    f"({', '.join(names)}); name the one whose result is the submission"
                )
        elif v not in names:
            raise ValueError(
                f"'{v}' is not an executor of the last step '{last.id}' (it has {', '.join(names)})"
            )
        return v

    @property
    def output_executor(self) -> str:
        return self.output or executor_name(self.steps[-1].executors[0])

    def step_input(self, step: WorkflowStep) -> StepInput:
        return step.input or self.input

    def executors(self) -> list[tuple[int, WorkflowStep, AgentExecutorConfig | FunctionExecutorConfig]]:
        """(step index, step, executor) for every executor, in order."""
        return [(i, s, e) for i, s in enumerate(self.steps) for e in s.executors]


def executor_name(executor: AgentExecutorConfig | FunctionExecutorConfig) -> str:
    return executor.name
