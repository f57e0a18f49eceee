"""Registering member types and metrics in code, and what the built-in types declare."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic_ai.models.test import TestModel

from mixseek.agents.member.base import MemberAgent, MemberResult
from mixseek.agents.member.registry import create_member, register_member_type, unregister_member_type
from mixseek.config.agent_models import MemberAgentConfig
from mixseek.config.evaluator import EvaluatorSettings, MetricConfig
from mixseek.config.registries import BUILTIN_OPTION_TABLES
from mixseek.evaluator.evaluator import Evaluator
from mixseek.evaluator.metrics import (
    Metric,
    MetricOutcome,
    known_metrics,
    register_metric,
    unregister_metric,
)
from mixseek.llm import override_models


class ShoutOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    times: int = 1


class Shouter(MemberAgent):
    options_model = ShoutOptions

    async def run(self, task, *, usage=None, usage_limits=None):  # type: ignore[no-untyped-def]
        assert isinstance(self.options, ShoutOptions)
        return MemberResult(content=task.upper() * self.options.times)


class Constant(Metric):
    async def score(self, user_prompt: str, submission: str, evaluator_prompt: str) -> MetricOutcome:
        return MetricOutcome(score=33.0, comment="always 33")


@pytest.fixture
def shouter() -> Iterator[None]:
    register_member_type("shouter", Shouter)
    yield
    unregister_member_type("shouter")


def member(agent_type: str, **extra: object) -> MemberAgentConfig:
    return MemberAgentConfig.model_validate(
        {"agent_name": "m", "agent_type": agent_type, "tool_description": "d", "model": "script:m", **extra}
    )


async def test_registered_type_receives_its_validated_options(shouter: None) -> None:
    config = member("shouter", options={"times": 3})
    assert config.options == ShoutOptions(times=3)
    assert config.model_dump(mode="json")["options"] == {"times": 3}
    agent = create_member(config)
    assert agent.options == ShoutOptions(times=3)
    assert (await agent.run("hi")).content == "HIHIHI"
    assert create_member(member("shouter")).options == ShoutOptions(times=1)  # no table: the defaults


def test_registered_type_refuses_bad_options_with_their_key(shouter: None) -> None:
    with pytest.raises(ValidationError) as info:
        member("shouter", options={"times": "many", "loud": True})
    assert [(e["loc"], e["type"]) for e in info.value.errors()] == [
        (("options", "times"), "int_parsing"),
        (("options", "loud"), "extra_forbidden"),
    ]


def test_register_member_type_checks_what_it_is_given() -> None:
    with pytest.raises(ValueError, match=re.escape("'plain' is a built-in member type")):
        register_member_type("plain", Shouter)
    with pytest.raises(
        TypeError, match=re.escape("is not a subclass of mixseek.agents.member.base.MemberAgent")
    ):
        register_member_type("thing", object)  # type: ignore[arg-type]

    class BadOptions(Shouter):
        options_model = dict  # type: ignore[assignment]

    with pytest.raises(TypeError, match=re.escape("BadOptions.options_model must be a pydantic model class")):
        register_member_type("bad", BadOptions)


@pytest.mark.parametrize("agent_type", sorted(BUILTIN_OPTION_TABLES))
def test_builtin_types_declare_the_model_of_their_table(agent_type: str) -> None:
    """The config layer knows where built-in options are written without importing the classes; the
    classes declare the same models, and receive the table's object."""
    table = BUILTIN_OPTION_TABLES[agent_type]
    config = member(agent_type, model="openai:gpt-4o", **({table: {}} if table else {}))
    with override_models({"openai:gpt-4o": TestModel()}):
        agent = create_member(config)
    if table is None:
        assert type(agent).options_model is None and agent.options is None
    else:
        assert type(agent).options_model is MemberAgentConfig.model_fields[table].annotation
        assert agent.options is getattr(config, table)


async def test_registered_metric_scores_by_name() -> None:
    with pytest.raises(ValidationError, match=re.escape("unknown metric 'constant'")):
        MetricConfig(name="constant")
    register_metric("constant", Constant)
    try:
        assert known_metrics()[-1] == "constant"
        settings = EvaluatorSettings(metrics=[MetricConfig(name="constant")])
        result = await Evaluator(settings, lambda prompt, submission: submission).evaluate("task", "answer")
        assert (result.score, result.metrics[0].comment) == (33.0, "always 33")
    finally:
        unregister_metric("constant")
    assert "constant" not in known_metrics()


def test_register_metric_checks_what_it_is_given() -> None:
    with pytest.raises(ValueError, match=re.escape("'coverage' is a built-in metric")):
        register_metric("coverage", Constant)
    with pytest.raises(TypeError, match=re.escape("is not a subclass of mixseek.evaluator.metrics.Metric")):
        register_metric("thing", Shouter)  # type: ignore[arg-type]
