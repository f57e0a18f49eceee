"""Settings of `configs/orchestrator.toml`: rounds, concurrency, timeouts, budgets, teams."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from mixseek.config.loader import MixseekSettings

NO_TEAMS = 'at least one [[orchestrator.teams]] entry with config = "path" is required'


TelemetryMode = Literal["off", "console", "otlp", "logfire"]
"""Where OpenTelemetry spans go (`mixseek.telemetry` acts on it)."""
NOT_COMPARED = {"telemetry", "telemetry_content", "engine", "self_judging"}
"""Settings that change nothing a resume or a worker would redo: where spans go, their text, the engine,
a check at load."""


class TeamReference(BaseModel):
    """One `[[orchestrator.teams]]` entry: a team file relative to orchestrator.toml."""

    model_config = ConfigDict(extra="forbid")

    config: str = Field(min_length=1)


class ModelLimitConfig(BaseModel):
    """`[orchestrator.model_limits."provider:model"]`: limits shared by every team using that model."""

    model_config = ConfigDict(extra="forbid")

    max_concurrent_requests: int = Field(default=8, ge=1, le=1024)
    requests_per_minute: int | None = Field(default=None, ge=1)


class OrchestratorSettings(MixseekSettings):
    """How an execution runs its teams over rounds."""

    env_prefix: ClassVar[str] = "MIXSEEK_ORCHESTRATOR__"

    max_rounds: int = Field(default=3, ge=1, le=100)
    min_rounds: int = Field(default=1, ge=1)
    max_concurrent_teams: int = Field(default=4, ge=1, le=256)
    timeout_per_team_seconds: float | None = Field(default=600.0, gt=0)
    execution_timeout_seconds: float | None = Field(default=None, gt=0)
    max_total_tokens: int | None = Field(default=None, gt=0)
    max_requests: int | None = Field(default=None, gt=0)
    max_cost_usd: float | None = Field(default=None, gt=0)
    max_concurrent_requests_per_model: int = Field(default=8, ge=1, le=1024)
    requests_per_minute_per_model: int | None = Field(default=None, ge=1)
    model_limits: dict[str, ModelLimitConfig] = Field(default_factory=dict)
    retry_base_delay_seconds: float = Field(default=1.0, ge=0)
    retry_max_delay_seconds: float = Field(default=60.0, ge=0)
    engine: Literal["local", "temporal"] = "local"
    """What runs the rounds: this process, or a Temporal workflow (`mixseek exec --engine` wins)."""
    temporal_history_events_per_run: int = Field(default=10_000, ge=1)
    """Temporal: past this many history events a workflow continues as new at the next round (Temporal
    refuses a history past 51,200 events or 50 MB, and a long one slows every replay)."""
    telemetry: TelemetryMode = "off"
    """Where OpenTelemetry spans go (`mixseek.telemetry`); `mixseek exec --otel` wins over it."""
    telemetry_content: Literal["on", "off"] = "on"
    """"off": spans carry no prompt, answer, comment, tool argument or error text (`--otel-content`)."""
    self_judging: Literal["allow", "warn", "refuse"] = "warn"
    """A judge (evaluator metric, pairwise judge) whose model is a team's too: allowed, warned of, refused."""
    evaluator_config: str = "evaluator.toml"
    judgment_config: str = "judgment.toml"
    pairwise_config: str = "pairwise.toml"
    """The optional final pairwise ranking stage (`[pairwise]`; off when the file is missing)."""
    teams: list[TeamReference] = Field(default_factory=list)
    """The team files of `orchestrator.toml` (at least one there); empty in a config built in code."""

    @field_validator("teams")
    @classmethod
    def validate_teams(cls, v: list[TeamReference]) -> list[TeamReference]:
        paths = [t.config for t in v]
        duplicates = sorted({p for p in paths if paths.count(p) > 1})
        if duplicates:
            raise ValueError(f"team config listed more than once: {duplicates}")
        return v

    @model_validator(mode="after")
    def validate_round_bounds(self) -> OrchestratorSettings:
        if self.min_rounds > self.max_rounds:
            raise ValueError(f"min_rounds ({self.min_rounds}) must be <= max_rounds ({self.max_rounds})")
        return self
