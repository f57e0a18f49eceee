"""Orchestrator, evaluator, judgment and prompt-builder files: mixseek-core's top-level keys (or
`[llm_default]`), `default_model`, CamelCase metrics, and timeouts meaning other spans; differing defaults
written out."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from mixseek.config.evaluator import EvaluatorSettings
from mixseek.config.judgment import JudgmentSettings
from mixseek.config.orchestrator import OrchestratorSettings
from mixseek.config.prompt_templates import PromptTemplateError, compile_prompt_template
from mixseek.migrate.fields import (
    LEGACY_DEFAULT_MODEL,
    SAMPLING_KEYS,
    Where,
    carry_settings,
    convert_model,
    copy_keys,
    drop_all,
)
from mixseek.migrate.prune import prune_invalid
from mixseek.migrate.report import Report
from mixseek.prompt_builder.constants import TEMPLATE_VARIABLES

METRIC_NAMES = {
    "ClarityCoherence": "clarity_coherence",
    "Coverage": "coverage",
    "Relevance": "relevance",
    "LLMPlain": "llm_plain",
}
# mixseek-core's defaults that differ from this mixseek's
LEGACY_ORCHESTRATOR = {"max_rounds": 5, "min_rounds": 2, "max_concurrent_teams": 4}
LEGACY_TIMEOUT_SECONDS = 300
LEGACY_EVALUATOR_TIMEOUT_SECONDS = 300
LEGACY_JUDGMENT = {"temperature": 0.0, "timeout_seconds": 60, "judge_on_final_round": True}

# (path as written in the source, where it is written) -> the value for the new file, or None
ResolvePath = Callable[[str, Where], str | None]


def convert_orchestrator(
    data: Mapping[str, Any],
    where: Where,
    report: Report,
    *,
    team_path: ResolvePath,
    evaluator_path: str | None,
    judgment_path: str | None,
) -> dict[str, Any]:
    """An orchestrator file in this mixseek's form; paths come from the caller, already converted."""
    for key in sorted(set(data) - {"orchestrator"}):
        report.drop(where.file, key, "unknown top-level key")
    body = data.get("orchestrator")
    body = body if isinstance(body, Mapping) else {}
    at = Where(where.file, "orchestrator")
    out: dict[str, Any] = {key: body.get(key, default) for key, default in LEGACY_ORCHESTRATOR.items()}
    out["timeout_per_team_seconds"] = body.get("submission_timeout_seconds", LEGACY_TIMEOUT_SECONDS)
    out["execution_timeout_seconds"] = body.get("timeout_per_team_seconds", LEGACY_TIMEOUT_SECONDS)
    if "timeout_per_team_seconds" in body:
        report.change(
            where.file,
            at.key("timeout_per_team_seconds"),
            "it bounded each team's whole run: written as execution_timeout_seconds (the whole execution); "
            "submission_timeout_seconds (one round) is timeout_per_team_seconds",
        )
    if evaluator_path is not None:
        out["evaluator_config"] = evaluator_path
    if judgment_path is not None:
        out["judgment_config"] = judgment_path
    teams = []
    for i, entry in enumerate(body.get("teams") or []):
        ref = entry.get("config") if isinstance(entry, Mapping) else None
        converted = team_path(ref, at.at(f"teams[{i}]")) if isinstance(ref, str) else None
        if converted is not None:
            teams.append({"config": converted})
        elif not isinstance(ref, str):
            report.drop(where.file, at.key(f"teams[{i}]"), 'needs config = "path"')
    out["teams"] = teams
    handled = {*LEGACY_ORCHESTRATOR, "timeout_per_team_seconds", "submission_timeout_seconds", "teams"} | {
        "evaluator_config",
        "judgment_config",
        "prompt_builder_config",
    }
    reasons = {
        "judgment_timeout_seconds": "no equivalent: the judgment file's timeout_seconds bounds each judgment",
        "max_retries_per_team": "no equivalent: a failing team is isolated; model requests are retried "
        "one by one (max_retries)",
        "workspace": "not needed: the workspace is the -w directory",
        "environment": "no equivalent",
    }
    drop_all(body, sorted(set(body) - handled), at, report, reasons)
    return {"orchestrator": prune_invalid(OrchestratorSettings, out, at, report)}


def _table_or_top(data: Mapping[str, Any], section: str) -> Mapping[str, Any]:
    """The `[section]` table if the file has one, else its top-level keys (mixseek-core's form)."""
    body = data.get(section)
    return body if isinstance(body, Mapping) else data


def _metric(
    entry: Mapping[str, Any], where: Where, report: Report, custom: Mapping[str, Any]
) -> dict[str, Any] | None:
    """`custom`: mixseek-core's `[custom_metrics]` whose `module` and `class` make a class_path."""
    name = entry.get("name")
    converted = METRIC_NAMES.get(name, name) if isinstance(name, str) else None
    if isinstance(name, str) and name in custom:
        metric: dict[str, Any] = {"name": name, "class_path": custom[name]}
        report.change(where.file, where.key("name"), f"class_path = '{custom[name]}' (from custom_metrics)")
    elif converted not in METRIC_NAMES.values():
        report.drop(where.file, where.key("name"), f"unknown metric {name!r}: no equivalent metric")
        return None
    else:
        metric = {"name": converted}
    copy_keys(
        entry,
        metric,
        ("weight", "system_instruction", "temperature", "max_tokens", "max_retries", "timeout_seconds"),
    )
    if "model" in entry:
        metric["model"] = convert_model(entry["model"], where, "model", report)
    handled = {"name", "model", *carry_settings(entry, metric, where, report, SAMPLING_KEYS), *metric}
    drop_all(entry, sorted(set(entry) - handled), where, report, {})
    return metric


def _weights(metrics: list[dict[str, Any]], where: Where, report: Report) -> None:
    """Give unweighted metrics an equal share of what the weighted ones leave (all or none here)."""
    given = [m for m in metrics if m.get("weight") is not None]
    missing = [m for m in metrics if m.get("weight") is None]
    if not given or not missing:
        return
    share = max(0.0, 1.0 - sum(float(m["weight"]) for m in given)) / len(missing)
    for m in missing:
        m["weight"] = round(share, 6)
    report.change(where.file, where.key("metrics"), f"metrics without a weight get {share:.4g} each")


def convert_evaluator(data: Mapping[str, Any], where: Where, report: Report) -> dict[str, Any]:
    """An evaluator file (`[evaluator]`); missing values take mixseek-core's defaults."""
    body = _table_or_top(data, "evaluator")
    at = Where(where.file, "evaluator" if body is not data else None)
    defaults = body.get("llm_default")
    defaults = defaults if isinstance(defaults, Mapping) else {}
    out: dict[str, Any] = {}
    model = body.get("default_model", defaults.get("model", body.get("model", LEGACY_DEFAULT_MODEL)))
    out["model"] = convert_model(model, at, "default_model", report)
    for key in ("temperature", "max_tokens", "max_retries", "timeout_seconds"):
        if key in body or key in defaults:
            out[key] = body.get(key, defaults.get(key))
    out.setdefault("timeout_seconds", LEGACY_EVALUATOR_TIMEOUT_SECONDS)
    customs = body.get("custom_metrics")
    custom = {
        name: f"{c['module']}:{c['class']}"
        for name, c in (customs.items() if isinstance(customs, Mapping) else ())
        if isinstance(c, Mapping) and isinstance(c.get("module"), str) and isinstance(c.get("class"), str)
    }
    metrics = []
    for i, entry in enumerate(body.get("metrics") or []):
        if isinstance(entry, Mapping):
            metric = _metric(entry, at.at(f"metrics[{i}]"), report, custom)
            if metric is not None:
                metrics.append(metric)
    if metrics:
        _weights(metrics, at, report)
        out["metrics"] = metrics
        if custom:  # mixseek-core averages its unbounded custom metrics with the 0-100 ones
            out["combine"] = "weighted_mean"
    elif body.get("metrics"):
        report.change(where.file, at.key("metrics"), "no metric carried over: the default metrics apply")
    from_defaults = carry_settings(defaults, out, at.at("llm_default"), report, SAMPLING_KEYS)
    handled = {
        "default_model",
        "llm_default",
        "metrics",
        *carry_settings(body, out, at, report, SAMPLING_KEYS),
    }
    handled |= set(out)
    if isinstance(customs, Mapping) and set(customs) == set(custom):  # each entry is a metric's class_path
        handled.add("custom_metrics")
    reasons = {"custom_metrics": "no equivalent: name a class with class_path in a metric"}
    drop_all(body, sorted(set(body) - handled), at, report, reasons)
    drop_all(
        defaults,
        sorted(
            set(defaults)
            - {"model", "temperature", "max_tokens", "max_retries", "timeout_seconds"}
            - from_defaults
        ),
        at.at("llm_default"),
        report,
        {},
    )
    return {"evaluator": prune_invalid(EvaluatorSettings, out, at, report)}


def convert_judgment(data: Mapping[str, Any], where: Where, report: Report) -> dict[str, Any]:
    """A judgment file (`[judgment]`); missing values take mixseek-core's defaults."""
    body = _table_or_top(data, "judgment")
    at = Where(where.file, "judgment" if body is not data else None)
    out: dict[str, Any] = {
        "model": convert_model(body.get("model", LEGACY_DEFAULT_MODEL), at, "model", report)
    }
    out.update(LEGACY_JUDGMENT)
    copy_keys(
        body,
        out,
        (
            "temperature",
            "max_tokens",
            "max_retries",
            "timeout_seconds",
            "system_instruction",
            "judge_on_final_round",
        ),
    )
    taken = carry_settings(body, out, at, report, SAMPLING_KEYS)
    drop_all(body, sorted(set(body) - {"model", *taken, *out}), at, report, {})
    return {"judgment": prune_invalid(JudgmentSettings, out, at, report)}


def convert_prompt_builder(data: Mapping[str, Any], where: Where, report: Report) -> dict[str, Any]:
    """`[prompt_builder]`: the three templates, each kept only if this mixseek's checker accepts it."""
    for key in sorted(set(data) - {"prompt_builder"}):
        report.drop(where.file, key, "unknown top-level key")
    body = data.get("prompt_builder")
    body = body if isinstance(body, Mapping) else {}
    at = Where(where.file, "prompt_builder")
    out: dict[str, Any] = {}
    for name in TEMPLATE_VARIABLES:
        text = body.get(name)
        if not isinstance(text, str):
            continue
        try:
            compile_prompt_template(name, text, where.file)
        except PromptTemplateError as exc:
            detail = str(exc).split("): ", 1)[-1]  # the message without the template's name and file
            report.drop(where.file, at.key(name), f"template not accepted ({detail}); the default applies")
            continue
        out[name] = text
    drop_all(body, sorted(set(body) - set(TEMPLATE_VARIABLES)), at, report, {})
    return {"prompt_builder": out}
