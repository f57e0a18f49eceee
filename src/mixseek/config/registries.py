"""The member types and metrics a config file may name, and the options each member type takes. The classes
are named as strings, loaded by `agents.member.registry` and `evaluator.metrics.registry` on a higher floor
(docs/architecture.md, "Names written as strings")."""

from __future__ import annotations

from pydantic import BaseModel

from mixseek.errors import InputError
from mixseek.plugin_registry import PluginRegistry

MEMBER_TYPES = PluginRegistry(
    "member type",
    "mixseek.member_types",
    {
        "plain": "mixseek.agents.member.plain:PlainMemberAgent",
        "web-search": "mixseek.agents.member.web_search:WebSearchMemberAgent",
        "web-fetch": "mixseek.agents.member.web_fetch:WebFetchMemberAgent",
        "code-exec": "mixseek.agents.member.code_exec:CodeExecMemberAgent",
    },
)
CUSTOM_MEMBER_TYPE = "custom"
"""`agent_type = "custom"` names its class with `class_path` instead of a registered name."""

# Where each built-in type's options are written: its own table, as before options models existed
# (None: the type takes no options). Known here so that validating them imports no agent code.
BUILTIN_OPTION_TABLES: dict[str, str | None] = {
    "plain": None,
    "web-search": "web_search",
    "web-fetch": "web_fetch",
    "code-exec": "code_exec",
}

METRICS = PluginRegistry(
    "metric",
    "mixseek.metrics",
    {
        "clarity_coherence": "mixseek.evaluator.metrics.clarity_coherence:ClarityCoherenceMetric",
        "coverage": "mixseek.evaluator.metrics.coverage:CoverageMetric",
        "relevance": "mixseek.evaluator.metrics.relevance:RelevanceMetric",
        "llm_plain": "mixseek.evaluator.metrics.llm_plain:LLMPlainMetric",
        # deterministic: no model call (see `config.metric_options` for their keys)
        "length": "mixseek.evaluator.metrics.length:LengthMetric",
        "patterns": "mixseek.evaluator.metrics.patterns:PatternsMetric",
        "json_schema": "mixseek.evaluator.metrics.json_schema:JsonSchemaMetric",
        "reference_similarity": "mixseek.evaluator.metrics.reference_similarity:ReferenceSimilarityMetric",
    },
)


def known_member_types() -> list[str]:
    """Every agent_type a team file may name: built-ins, `custom`, registered and installed types."""
    names = MEMBER_TYPES.names()
    builtin = len(MEMBER_TYPES.builtin_names())
    return [*names[:builtin], CUSTOM_MEMBER_TYPE, *names[builtin:]]


def is_known_member_type(name: str) -> bool:
    return name == CUSTOM_MEMBER_TYPE or name in MEMBER_TYPES


def options_model_of(cls: type) -> type[BaseModel] | None:
    """A member class's `options_model`: a pydantic model, or None when the type takes no options."""
    model = getattr(cls, "options_model", None)
    if model is not None and not (isinstance(model, type) and issubclass(model, BaseModel)):
        raise InputError(f"{cls.__module__}.{cls.__qualname__}.options_model must be a pydantic model class")
    return model


def member_options_model(agent_type: str) -> type[BaseModel] | None:
    """The options model of a registered or installed member type; imports its class if needed."""
    return options_model_of(MEMBER_TYPES.load(agent_type))
