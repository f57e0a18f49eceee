"""The mixseek-core side of `bench/versus_core.py`: runs in mixseek-core's own virtualenv.

    CORE_PYTHON bench/_core_child.py WORKSPACE TEAMS LATENCY

Writes a workspace of TEAMS identical teams (a leader, 2 plain members, 3 metrics, a judgment;
3 rounds, min_rounds 1, no judgment after the last), replaces mixseek-core's model factory
(`create_authenticated_model`, in every module that imported it) with pydantic-ai
`FunctionModel`s that sleep LATENCY seconds per call and answer the way `bench/_sim.py` does
(the leader asks every member at once, then answers; structured outputs get schema-valid
values, `should_continue` true), times `Orchestrator.execute` and prints its result line.
It imports nothing of this repository: `mixseek` here is mixseek-core.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

FACTORY_USERS = (
    "mixseek.core.auth",
    "mixseek.evaluator.llm_client",
    "mixseek.agents.member.plain",
    "mixseek.agents.leader.agent",
    "mixseek.round_controller.judgment_client",
)
METRICS = ("ClarityCoherence", "Coverage", "Relevance")
# the line `bench/orchestration.py`'s children start their result with (it cannot be imported here)
RESULT_MARK = "@@result "


def write_workspace(root: Path, teams: int) -> Path:
    configs = root / "configs"
    (configs / "agents").mkdir(parents=True)
    (root / "logs").mkdir()
    refs = "".join(f'[[orchestrator.teams]]\nconfig = "configs/agents/team{n}.toml"\n' for n in range(teams))
    (configs / "orchestrator.toml").write_text(
        "[orchestrator]\ntimeout_per_team_seconds = 600\nmin_rounds = 1\nmax_rounds = 3\n"
        "submission_timeout_seconds = 300\njudgment_timeout_seconds = 300\n"
        'evaluator_config = "configs/evaluator.toml"\njudgment_config = "configs/judgment.toml"\n' + refs
    )
    member = 'type = "plain"\nmodel = "openai:sim-member"\nsystem_instruction = "member"\n'
    for n in range(teams):
        (configs / "agents" / f"team{n}.toml").write_text(
            f'[team]\nteam_id = "team{n}"\nteam_name = "Team {n}"\nmax_concurrent_members = 2\n'
            '[team.leader]\nsystem_instruction = "leader"\nmodel = "openai:sim-leader"\n'
            f'[[team.members]]\nname = "m1"\ntool_name = "ask_m1"\ntool_description = "one"\n{member}'
            f'[[team.members]]\nname = "m2"\ntool_name = "ask_m2"\ntool_description = "two"\n{member}'
        )
    weights = (0.4, 0.3, 0.3)
    (configs / "evaluator.toml").write_text(
        'default_model = "openai:sim-metric"\n'
        + "".join(f'[[metrics]]\nname = "{m}"\nweight = {w}\n' for m, w in zip(METRICS, weights, strict=True))
    )
    (configs / "judgment.toml").write_text('model = "openai:sim-judgment"\njudge_on_final_round = false\n')
    return configs / "orchestrator.toml"


def sample(schema: dict[str, Any], defs: dict[str, Any]) -> Any:
    """A value valid for `schema`: numbers at 80 within their bounds, booleans true."""
    if "$ref" in schema:
        return sample(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return sample(next(s for s in schema[key] if s.get("type") != "null"), defs)
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object":
        return {name: sample(sub, defs) for name, sub in schema.get("properties", {}).items()}
    if kind in ("number", "integer"):
        value = min(max(80, schema.get("minimum", 0)), schema.get("maximum", 100))
        return int(value) if kind == "integer" else float(value)
    if kind == "boolean":
        return True
    if kind == "array":
        return [sample(schema.get("items", {"type": "string"}), defs)]
    return "ok"


class Sim:
    def __init__(self, latency: float) -> None:
        self.latency = latency
        self.calls: list[str] = []
        self.models: dict[str, FunctionModel] = {}

    def model(self, model_id: str, *args: Any, **kwargs: Any) -> FunctionModel:
        role = model_id.rsplit("sim-", 1)[-1]
        if role not in self.models:
            self.models[role] = FunctionModel(self._respond(role), model_name=f"sim-{role}")
        return self.models[role]

    def _respond(self, role: str) -> Any:
        async def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            self.calls.append(role)
            await asyncio.sleep(self.latency)
            returned = any(isinstance(p, ToolReturnPart) for p in getattr(messages[-1], "parts", []))
            if info.function_tools and not returned:
                return ModelResponse(parts=[ToolCallPart(t.name, _args(t)) for t in info.function_tools])
            if info.output_tools:
                return ModelResponse(
                    parts=[ToolCallPart(info.output_tools[0].name, _args(info.output_tools[0]))]
                )
            return ModelResponse(parts=[TextPart(f"{role} answer")])

        return respond


def _args(tool: Any) -> Any:
    schema = tool.parameters_json_schema
    return sample(schema, schema.get("$defs", {}))


def main() -> None:
    root, teams, latency = Path(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    orchestrator_file = write_workspace(root, teams)
    os.environ.setdefault("OPENAI_API_KEY", "sk-sim-" + "0" * 40)  # its credential check; never used
    sim = Sim(latency)
    for name in FACTORY_USERS:
        importlib.import_module(name).create_authenticated_model = sim.model  # type: ignore[attr-defined]
    from mixseek.orchestrator import Orchestrator, load_orchestrator_settings  # mixseek-core's

    settings = load_orchestrator_settings(orchestrator_file, workspace=root)
    started, cpu_started = time.perf_counter(), time.process_time()
    asyncio.run(Orchestrator(settings).execute("日本の少子化対策を3つ提案してください"))
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    result = {"wall_s": wall, "cpu_s": cpu, "calls": len(sim.calls), "peak_rss_mb": peak}
    print(RESULT_MARK + json.dumps(result))


if __name__ == "__main__":
    main()
