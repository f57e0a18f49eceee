"""A real installed distribution in a temporary directory: modules plus a `.dist-info` with entry points.

Put the directory on `sys.path` (pytest's `monkeypatch.syspath_prepend`) and `importlib.metadata`
finds it exactly as it finds a package installed with pip.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from textwrap import dedent

_serial = itertools.count()


def unique_module_name(stem: str) -> str:
    """A module name no earlier test has imported (sys.modules keeps modules across tests)."""
    return f"{stem}_{next(_serial)}_{id(_serial):x}"


def write_distribution(
    site: Path, dist: str, modules: dict[str, str], entry_points: dict[str, dict[str, str]]
) -> Path:
    """Write `modules` (name -> source) and `<dist>-1.0.dist-info` declaring `entry_points` into `site`."""
    site.mkdir(parents=True, exist_ok=True)
    for name, source in modules.items():
        (site / f"{name}.py").write_text(dedent(source), encoding="utf-8")
    info = site / f"{dist}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n", encoding="utf-8")
    lines: list[str] = []
    for group, entries in entry_points.items():
        lines += [f"[{group}]", *(f"{name} = {target}" for name, target in entries.items()), ""]
    (info / "entry_points.txt").write_text("\n".join(lines), encoding="utf-8")
    return site


PLUGIN_SOURCE = '''
from pydantic import BaseModel, ConfigDict, Field

from mixseek.agents.member.base import MemberAgent, MemberResult
from mixseek.evaluator.metrics import Metric, MetricOutcome


class EchoOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    prefix: str
    repeat: int = Field(default=1, ge=1, le=5)


class Echo(MemberAgent):
    """Answers with its task, prefixed and repeated as its options say."""

    options_model = EchoOptions

    async def run(self, task, *, usage=None, usage_limits=None):
        assert isinstance(self.options, EchoOptions)
        return MemberResult(content=" ".join([self.options.prefix + task] * self.options.repeat))


class Brevity(Metric):
    """Shorter is better: 100 minus the submission's length."""

    async def score(self, user_prompt, submission, evaluator_prompt):
        return MetricOutcome(score=float(max(0, 100 - len(submission))), comment=f"{len(submission)} chars")
'''


def install_plugin(site: Path) -> str:
    """A distribution declaring member type `echo` and metric `brevity`; returns its module name."""
    module = unique_module_name("mixseek_echo_plugin")
    write_distribution(
        site,
        "mixseek-echo-plugin",
        {module: PLUGIN_SOURCE},
        {
            "mixseek.member_types": {"echo": f"{module}:Echo"},
            "mixseek.metrics": {"brevity": f"{module}:Brevity"},
        },
    )
    return module
