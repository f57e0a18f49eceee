"""Three scripted teams scored by a Sharpe ratio: alpha submits 1.2, beta −0.4, gamma no number (−100).

Leaders, judgment and the pairwise judge are `FunctionModel`s; every prompt a leader or the judgment gets is
written to the directory `SHARPE_PROMPTS` names (as `<team>-<round>.txt`, `judgment-<n>.txt`)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from scripting import first_user_text

ANSWERS = {"alpha": "alpha: sharpe: 1.2", "beta": "beta: sharpe: -0.4", "gamma": "gamma: no idea"}
SCORES = {"alpha": 1.2, "beta": -0.4, "gamma": -100.0}
METRIC_FILE = Path(__file__).with_name("sharpe_metric.py")
ROUND_RE = re.compile(r"^## ラウンド (\d+)$", re.M)
SHOWN_RE = re.compile(r"# 提出内容([AB])\n(`{3,})\n(\w+): .*?\n\2\n", re.S)


def _keep(name: str, prompt: str) -> None:
    folder = os.environ.get("SHARPE_PROMPTS")
    if folder:
        (Path(folder) / f"{name}.txt").write_text(prompt, encoding="utf-8")


def _leader(team: str) -> FunctionModel:
    def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        prompt = first_user_text(messages)
        _keep(f"{team}-{len(ROUND_RE.findall(prompt)) + 1}", prompt)
        return ModelResponse(
            parts=[TextPart(ANSWERS[team])], usage=RequestUsage(input_tokens=10, output_tokens=5)
        )

    return FunctionModel(fn, model_name=f"leader-{team}")


def _structured(name: str, answer: dict[str, object]) -> FunctionModel:
    count = 0

    def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        nonlocal count
        count += 1
        _keep(f"{name}-{count}", first_user_text(messages))
        args = answer if name != "pairwise" else _verdict(first_user_text(messages))
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, args)])

    return FunctionModel(fn, model_name=name)


def _verdict(prompt: str) -> dict[str, object]:
    """The pairwise judge prefers the higher Sharpe ratio, in either position."""
    shown = {label: SCORES[team] for label, _, team in SHOWN_RE.findall(prompt)}
    return {"winner": "A" if shown["A"] > shown["B"] else "B", "reasoning": f"{shown}"}


def models() -> dict[str, Model]:
    stop = {"should_continue": False, "reasoning": "enough", "confidence_score": 0.9}
    return {
        **{f"script:leader-{team}": _leader(team) for team in ANSWERS},
        "script:judgment": _structured("judgment", stop),
        "script:pairwise": _structured("pairwise", {}),
    }


def write_sharpe_workspace(root: Path, *, evaluator: str | None = None) -> Path:
    """Three leader-only teams, two rounds at least and three at most, the Sharpe metric (beside `length`,
    the overall score being the Sharpe ratio) and a round-robin pairwise stage."""
    configs = root / "configs"
    (configs / "agents").mkdir(parents=True)
    teams = "".join(f'[[orchestrator.teams]]\nconfig = "agents/{t}.toml"\n' for t in ANSWERS)
    (configs / "orchestrator.toml").write_text(
        f"[orchestrator]\nmax_rounds = 3\nmin_rounds = 2\n{teams}", encoding="utf-8"
    )
    for team in ANSWERS:
        (configs / "agents" / f"{team}.toml").write_text(
            f'[team]\nteam_id = "{team}"\nteam_name = "{team.title()}"\n'
            f'[team.leader]\nmodel = "script:leader-{team}"\n',
            encoding="utf-8",
        )
    (configs / "evaluator.toml").write_text(
        evaluator
        or (
            '[evaluator]\nmodel = "script:judgment"\ncombine = "metric:sharpe"\n'
            f'[[evaluator.metrics]]\nname = "sharpe"\nclass_path = "{METRIC_FILE.as_posix()}:SharpeMetric"\n'
            '[[evaluator.metrics]]\nname = "length"\nmin_chars = 5\n'
        ),
        encoding="utf-8",
    )
    (configs / "judgment.toml").write_text('[judgment]\nmodel = "script:judgment"\n', encoding="utf-8")
    (configs / "pairwise.toml").write_text(
        '[pairwise]\nenabled = true\nmodel = "script:pairwise"\nschedule = "round_robin"\n',
        encoding="utf-8",
    )
    return root
