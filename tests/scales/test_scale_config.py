"""A metric's `scale` and the evaluator's `combine`: parsing, scores refused outside the scale, and the
config-load refusal of a weighted mean across scales (one line, exit 2)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from pydantic import ValidationError

from mixseek.config.evaluator import EvaluatorSettings, MetricConfig, ScaleBounds, scale_bounds
from mixseek.errors import ConfigError
from mixseek.evaluator.evaluator import EvaluationError, Evaluator
from mixseek.evaluator.metrics.base import Metric, MetricOutcome
from scales.sharpe_metric import SharpeMetric
from scales.sharpe_world import METRIC_FILE, write_sharpe_workspace
from scales.test_sharpe_end_to_end import mixseek

SHARPE = f'[[evaluator.metrics]]\nname = "sharpe"\nclass_path = "{METRIC_FILE.as_posix()}:SharpeMetric"\n'
LENGTH = '[[evaluator.metrics]]\nname = "length"\nmin_chars = 5\n'


class Fixed(Metric):
    """Scores every submission with the value its metric's name carries (`fixed:<value>`)."""

    async def score(self, user_prompt: str, submission: str, evaluator_prompt: str) -> MetricOutcome:
        return MetricOutcome(score=float(self.name.split(":")[1]), comment="fixed")


def evaluator(*metrics: tuple[str, object], combine: str | None = None) -> Evaluator:
    configs = [MetricConfig(name=n, class_path="m:C", **({"scale": s} if s else {})) for n, s in metrics]
    settings = EvaluatorSettings(model="test", metrics=configs, combine=combine)
    return Evaluator(settings, lambda u, s: s, metrics=[Fixed(c, settings) for c in configs])


@pytest.mark.parametrize(
    ("given", "bounds"),
    [
        ("0-100", ScaleBounds(min=0.0, max=100.0)),
        ("unbounded", ScaleBounds()),
        ({"min": -100.0}, ScaleBounds(min=-100.0)),
        ({"min": -100.0, "max": 10.0}, ScaleBounds(min=-100.0, max=10.0)),
    ],
)
def test_a_scale_is_0_to_100_unbounded_or_bounds(given: object, bounds: ScaleBounds) -> None:
    config = MetricConfig(name="mine", class_path="m:C", scale=given)
    assert config.scale is not None and scale_bounds(config.scale) == bounds


@pytest.mark.parametrize("given", ["0..100", {"min": 5.0, "max": 1.0}, {"low": 0}, {"max": math.inf}])
def test_a_bad_scale_is_refused(given: object) -> None:
    with pytest.raises(ValidationError):
        MetricConfig(name="mine", class_path="m:C", scale=given)


async def test_a_score_outside_its_metrics_scale_is_refused_naming_metric_score_and_scale() -> None:
    with pytest.raises(EvaluationError) as info:
        await evaluator(("fixed:150", None)).evaluate("task", "answer")
    assert (
        str(info.value)
        == "evaluator metric 'fixed:150' failed: ValueError: score 150.0 is outside its scale 0-100"
    )
    with pytest.raises(EvaluationError, match=r"score -101.0 is outside its scale \{ min = -100.0 \}"):
        await evaluator(("fixed:-101", {"min": -100.0})).evaluate("task", "answer")
    assert (await evaluator(("fixed:-100", {"min": -100.0})).evaluate("task", "answer")).score == -100.0


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
async def test_nan_and_infinities_are_refused_even_unbounded(value: str) -> None:
    with pytest.raises(EvaluationError, match=f"score {float(value)} is outside its scale unbounded"):
        await evaluator((f"fixed:{value}", "unbounded")).evaluate("task", "answer")


async def test_combine_takes_one_metrics_score_or_the_weighted_mean_across_scales() -> None:
    metrics = (("fixed:-0.4", "unbounded"), ("fixed:80", None))
    chosen = await evaluator(*metrics, combine="metric:fixed:-0.4").evaluate("task", "answer")
    assert chosen.score == -0.4 and [m.score for m in chosen.metrics] == [-0.4, 80.0]
    mean = await evaluator(*metrics, combine="weighted_mean").evaluate("task", "answer")
    assert mean.score == pytest.approx(39.8)
    with pytest.raises(ConfigError, match="would mix scales"):
        evaluator(*metrics)


def test_a_class_declares_its_default_scale_and_the_entry_overrides_it() -> None:
    settings = EvaluatorSettings(model="test", metrics=[MetricConfig(name="s", class_path="m:C")])
    assert Evaluator(
        settings, lambda u, s: s, metrics=[SharpeMetric(settings.metrics[0], settings)]
    ).scale == (ScaleBounds())
    with pytest.raises(ValidationError, match="combine must be"):
        EvaluatorSettings(
            model="test", metrics=[MetricConfig(name="s", class_path="m:C")], combine="metric:x"
        )


def test_mixing_scales_without_combine_is_one_line_exit_2(tmp_path: Path) -> None:
    ws = write_sharpe_workspace(
        tmp_path / "ws", evaluator=f'[evaluator]\nmodel = "script:judgment"\n{SHARPE}{LENGTH}'
    )
    done = mixseek("exec", "trade", "-w", str(ws))
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"error: {ws / 'configs' / 'evaluator.toml'}: evaluator.metrics: the weighted mean would mix scales "
        '(sharpe is unbounded; length is 0-100): set combine = "metric:<name>" (that metric decides) or '
        '"weighted_mean", or give one scale'
    ]


@pytest.mark.parametrize(
    "evaluator",
    [f'combine = "weighted_mean"\n{SHARPE}{LENGTH}', f"{SHARPE}[evaluator.metrics.scale]\nmax = 100.0\n"],
)
def test_combine_or_one_declared_scale_is_accepted(tmp_path: Path, evaluator: str) -> None:
    ws = write_sharpe_workspace(
        tmp_path / "ws", evaluator=f'[evaluator]\nmodel = "script:judgment"\n{evaluator}'
    )
    done = mixseek("config", "validate", "-w", str(ws))
    assert done.returncode == 0, done.stderr


def test_a_bad_combine_is_one_line_exit_2(tmp_path: Path) -> None:
    ws = write_sharpe_workspace(
        tmp_path / "ws",
        evaluator=f'[evaluator]\nmodel = "script:judgment"\ncombine = "metric:nope"\n{SHARPE}',
    )
    done = mixseek("exec", "trade", "-w", str(ws))
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert "evaluator.toml" in line and "combine" in line and "metric:nope" in line
