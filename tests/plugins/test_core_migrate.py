"""`mixseek migrate` of a mixseek-core workspace whose members and metric are plugins written to its API:
the migrated workspace passes `config validate` and runs, the plugins unchanged."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from e2e.db import rows
from migrate.legacy import write

from .test_core_plugins import LOOKUP_FILE, mixseek

ORCHESTRATOR = """\
[orchestrator]
min_rounds = 1
max_rounds = 1
evaluator_config = "configs/evaluators/evaluator.toml"
judgment_config = "configs/judgment/judgment.toml"

[[orchestrator.teams]]
config = "configs/agents/team.toml"
"""

TEAM = """\
[team]
team_id = "core"
team_name = "Core Team"

[team.leader]
model = "script:leader-alpha"

[[team.members]]
config = "configs/agents/echo.toml"

[[team.members]]
config = "configs/agents/lookup.toml"
"""

ECHO = """\
[agent]
name = "echo"
type = "custom"
model = "script:member"
tool_description = "Echoes its task"

[agent.plugin]
agent_module = "core_plugins.echo_agent"
agent_class = "EchoAgent"

[agent.metadata]
tag = "migrated"
"""

LOOKUP = f"""\
[agent]
name = "lookup"
type = "custom"
model = "script:lookup"
description = "Looks values up"

[agent.plugin]
path = "{LOOKUP_FILE.as_posix()}"
agent_class = "LookupAgent"

[agent.metadata.tool_settings.lookup]
capital = "Tokyo"
"""

EVALUATOR = """\
default_model = "script:metric"

[[metrics]]
name = "Coverage"
weight = 0.5

[[metrics]]
name = "round_metric"
weight = 0.5

[custom_metrics]
round_metric = { module = "core_plugins.round_metric", class = "RoundMetric" }
"""


def test_migrated_plugins_validate_and_run_unchanged(tmp_path: Path) -> None:
    source, dest = tmp_path / "core", tmp_path / "new"
    for rel, text in {
        "configs/orchestrator.toml": ORCHESTRATOR,
        "configs/agents/team.toml": TEAM,
        "configs/agents/echo.toml": ECHO,
        "configs/agents/lookup.toml": LOOKUP,
        "configs/evaluators/evaluator.toml": EVALUATOR,
        "configs/judgment/judgment.toml": 'model = "script:judgment"\n',
    }.items():
        write(source, rel, text)
    migrated = mixseek("migrate", str(source), "-w", str(dest))
    assert migrated.returncode == 0, migrated.stderr
    assert "custom_metrics:" not in migrated.stdout and "metadata" not in migrated.stdout, migrated.stdout
    assert "metrics[1].name: class_path = 'core_plugins.round_metric:RoundMetric' (from custom_metrics)" in (
        migrated.stdout
    )
    echo = tomllib.loads((dest / "configs/agents/echo.toml").read_text(encoding="utf-8"))["member"]
    assert (echo["class_path"], echo["options"]) == ("core_plugins.echo_agent:EchoAgent", {"tag": "migrated"})

    lookup = tomllib.loads((dest / "configs/agents/lookup.toml").read_text(encoding="utf-8"))["member"]
    assert lookup["options"] == {"tool_settings": {"lookup": {"capital": "Tokyo"}}}

    validate = mixseek("config", "validate", "-w", str(dest))
    assert validate.returncode == 0, validate.stderr

    done = mixseek("exec", "a task", "-w", str(dest), "-f", "json")
    assert done.returncode == 0, done.stderr
    (details, record), *_ = rows(
        dest / "mixseek.db",
        "SELECT score_details::TEXT, member_submissions_record::TEXT FROM leader_board JOIN round_history "
        "USING (execution_id, team_id, round_number)",
    )
    execution = json.loads(done.stdout)["execution_id"]
    assert json.loads(str(details))["round_metric"]["comment"] == f"execution {execution} team core round 1"
    answers = {s["agent_name"]: s["content"] for s in json.loads(str(record))["submissions"]}
    assert answers.get("lookup") == "lookup said Tokyo" or answers.get("echo", "").startswith(
        "[echo migrated]"
    )
