"""Metrics by name: built-ins, registered or installed (`mixseek.metrics` entry points), and `class_path`s."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from mixseek.config.bundle import ExecutionConfig
from mixseek.config.evaluator import EvaluatorSettings, MetricConfig, ScaleBounds, scale_bounds
from mixseek.config.registries import METRICS
from mixseek.errors import ConfigError, MixseekError
from mixseek.plugins import load_class

if TYPE_CHECKING:
    from mixseek.evaluator.metrics.base import Metric

ENTRY_POINT_GROUP = METRICS.group


def register_metric(name: str, cls: type[Metric]) -> None:
    """Make `name = "<name>"` in evaluator.toml score with `cls`; plugins call this at import time."""
    from mixseek.evaluator.metrics.base import Metric

    if not (isinstance(cls, type) and issubclass(cls, Metric)):
        raise TypeError(f"{cls!r} is not a subclass of mixseek.evaluator.metrics.Metric")
    METRICS.register(name, cls)


def unregister_metric(name: str) -> None:
    """Forget a metric registered with `register_metric` (no error if unknown)."""
    METRICS.unregister(name)


def known_metrics() -> list[str]:
    """Every metric name evaluator.toml may use without a class_path."""
    return METRICS.names()


def metric_class(config: MetricConfig, *, base_dir: Path | None = None) -> type[Metric]:
    """The `Metric` class an entry names; metric code (and pydantic-ai) is imported only here."""
    from mixseek.evaluator.metrics.base import Metric

    if config.class_path is not None:
        return load_class(config.class_path, Metric, base_dir=base_dir)
    return METRICS.load_subclass(config.name, Metric, "mixseek.evaluator.metrics.Metric")


def create_metric(
    config: MetricConfig, settings: EvaluatorSettings, *, base_dir: Path | None = None
) -> Metric:
    """The metric a `[[evaluator.metrics]]` entry describes."""
    return metric_class(config, base_dir=base_dir).create(config, settings, base_dir=base_dir)


def metric_problems(config: ExecutionConfig) -> list[ConfigError]:
    """Registered or installed metrics that fail to import or are no `Metric`, and scales that mix."""
    loaded = config.evaluator
    origin = loaded.sources.get("metrics", "")
    from_env = origin.startswith("env ")
    problems: list[ConfigError] = []
    base_dir = loaded.file.parent if loaded.file else config.workspace.configs  # as the evaluator's
    try:
        loaded.value.overall_scale({m.name: _scale(m, base_dir) for m in loaded.value.metrics})
    except ConfigError as exc:
        problems.append(ConfigError(origin if from_env else loaded.file, exc.key, exc.reason))
    except MixseekError:
        pass  # a metric class that cannot be loaded: reported with the class paths
    for i, metric in enumerate(loaded.value.metrics):
        if metric.json_schema is not None:
            problems.extend(_schema_problems(metric.json_schema, loaded.file, base_dir, i))
        if metric.class_path is not None or metric.name in METRICS.builtin_names():
            continue
        try:
            metric_class(metric)
        except MixseekError as exc:
            source = origin if from_env else loaded.file
            key = None if from_env else f"evaluator.metrics[{i}].name"
            problems.append(ConfigError(source, key, str(exc)))
    return problems


def _scale(metric: MetricConfig, base_dir: Path) -> ScaleBounds:
    """The metric's scale: its entry's, else its class's."""
    if metric.scale is not None or (metric.class_path is None and metric.name in METRICS.builtin_names()):
        return scale_bounds(metric.scale or "0-100")  # a built-in's class is not imported to check it
    return scale_bounds(metric_class(metric, base_dir=base_dir).scale)


def _schema_problems(
    value: dict[str, Any] | str, file: Path | None, base_dir: Path, index: int
) -> list[ConfigError]:
    """A `json_schema` that cannot be read or is no JSON Schema, found before any model is built."""
    from mixseek.evaluator.metrics.schema_file import load_schema

    try:
        load_schema(value, base_dir)
    except ValueError as exc:
        return [ConfigError(file, f"evaluator.metrics[{index}].json_schema", str(exc))]
    return []
