"""Scripted pairwise judges: which team's submission is shown as A and as B, and a fixed rule."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from e2e.scripted import write_workspace
from scripting import first_user_text

SHOWN_RE = re.compile(r"# 提出内容([AB])\n(`{3,})\n(.*?)\n\2\n", re.S)
TEAM_RE = re.compile(r"^(\w+) answer v\d+")

Rule = Callable[[str, str], str]
"""(team shown as A, team shown as B) -> "A" | "B" | "tie"."""


def always_first(a: str, b: str) -> str:
    """A judge with pure position bias: whatever it reads first wins."""
    return "A"


def prefers(order: list[str]) -> Rule:
    """A judge that always prefers the team earlier in `order`, in whichever position it is."""
    return lambda a, b: "A" if order.index(a) < order.index(b) else "B"


@dataclass
class ScriptedJudge:
    """A pairwise judge answering by `rule`; it keeps every (A, B) it was shown."""

    rule: Rule
    shown: list[tuple[str, str]] = field(default_factory=list)

    def shown_teams(self, messages: list[ModelMessage]) -> tuple[str, str]:
        found = {label: TEAM_RE.match(text) for label, _, text in SHOWN_RE.findall(first_user_text(messages))}
        a, b = found["A"], found["B"]
        assert a and b
        return a.group(1), b.group(1)

    def model(self) -> FunctionModel:
        def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            a, b = self.shown_teams(messages)
            self.shown.append((a, b))
            winner = self.rule(a, b)
            return ModelResponse(
                parts=[ToolCallPart(info.output_tools[0].name, {"winner": winner, "reasoning": f"{a}/{b}"})],
                usage=RequestUsage(input_tokens=70, output_tokens=9),
            )

        return FunctionModel(fn, model_name="pairwise")


def pairwise_workspace(root: Path, settings: str, *, orchestrator_extra: str = "") -> Path:
    """The scripted three-team workspace (scores: gamma 99, alpha 80, beta 72) with `[pairwise]`."""
    write_workspace(root, extra=orchestrator_extra)
    given = {line.split("=")[0].strip() for line in settings.splitlines() if "=" in line}
    defaults = [
        f"{key} = {value}"
        for key, value in (("enabled", "true"), ("model", '"script:pairwise"'), ("bootstrap_samples", "200"))
        if key not in given
    ]
    lines = "\n".join([*defaults, settings])
    (root / "configs" / "pairwise.toml").write_text(f"[pairwise]\n{lines}\n", encoding="utf-8")
    return root
