"""Runs the `mixseek` CLI in a separate process with the scripted models of `scripted.py`.

Test-only: SCRIPTED_KILL_AT="team:round" makes the process SIGKILL itself when
that team's leader is first called in that round (a power loss mid-round);
"*:round" does so at the first leader call of that round, whichever team
makes it (right after the previous round's decisions were stored).
SCRIPTED_LEADER_DELAY slows every leader call (to send Ctrl-C mid-round).
SCRIPTED_GATE=path with SCRIPTED_GATE_AT=round holds every leader call of that
round and later: the first one creates `path.waiting`, and all wait until
`path` exists (a process kept busy mid-run for as long as a test needs).
SCRIPTED_PIDS=dir makes every leader call write `dir/<pid>` and wait (at most
120 s) until two processes have done so: work that only two workers can finish.
SCRIPTED_JUDGMENT_GATE=path with SCRIPTED_JUDGMENT_GATE_TEAM=team holds that team's
judgments as SCRIPTED_GATE holds leaders (`path.waiting`, then wait for `path`).
SCRIPTED_DOWN=team makes that team's leader fail every request with an HTTP
500 (transient, so retried until the retries run out), each attempt appended
as a line to the file SCRIPTED_DOWN_LOG when it is set.
SCRIPTED_VERSION=v makes the process take itself for mixseek v (what the Temporal engine
tells the server its code is), as another installed version would.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))
sys.path.insert(0, str(Path(__file__).parent))

from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models import Model, ModelRequestParameters
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.wrapper import WrapperModel
from pydantic_ai.settings import ModelSettings
from scripted import ROUND_RE, World

from mixseek.cli.app import app
from mixseek.cli.entry import leave
from mixseek.llm import override_models
from scripting import first_user_text


class GatedModel(WrapperModel):
    """A model that, for the requests `holds` picks, waits for the file `gate` before answering
    (the first one held creates `gate.waiting`)."""

    def __init__(self, wrapped: Model, gate: Path, holds: Callable[[str], bool]) -> None:
        super().__init__(wrapped)
        self.gate = gate
        self.holds = holds

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        if self.holds(first_user_text(messages)):
            self.gate.with_name(self.gate.name + ".waiting").touch()
            while not self.gate.exists():
                await asyncio.sleep(0.05)
        return await super().request(messages, model_settings, model_request_parameters)


class PidGatedModel(WrapperModel):
    """A leader that records its process in `pids` and answers once two processes have."""

    PROCESSES = 2
    BOUND_SECONDS = 120.0

    def __init__(self, wrapped: Model, pids: Path) -> None:
        super().__init__(wrapped)
        self.pids = pids

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        (self.pids / str(os.getpid())).touch()
        deadline = time.monotonic() + self.BOUND_SECONDS
        while len(list(self.pids.iterdir())) < self.PROCESSES and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        return await super().request(messages, model_settings, model_request_parameters)


def down_model(team: str, log: Path | None) -> FunctionModel:
    """A leader whose provider answers every request with a server error."""

    def fail(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if log is not None:
            with log.open("a", encoding="utf-8") as out:
                out.write(f"{os.getpid()}\n")
        raise ModelHTTPError(500, f"leader-{team}", body="provider down")

    return FunctionModel(fail, model_name=f"leader-{team}")


def main() -> None:
    if version := os.environ.get("SCRIPTED_VERSION"):
        import mixseek.version

        mixseek.version.__version__ = version  # read when the Temporal engine is first imported
    kill_at = os.environ.get("SCRIPTED_KILL_AT", "")

    def hook(team: str, round_number: int) -> None:
        if kill_at in (f"{team}:{round_number}", f"*:{round_number}"):
            os.kill(os.getpid(), signal.SIGKILL)

    world = World(on_leader_call=hook, leader_delay=float(os.environ.get("SCRIPTED_LEADER_DELAY", "0")))
    models = world.models()
    if gate := os.environ.get("SCRIPTED_GATE"):
        from_round = int(os.environ["SCRIPTED_GATE_AT"])

        def from_the_round(prompt: str) -> bool:
            return len(ROUND_RE.findall(prompt)) + 1 >= from_round

        for name in [n for n in models if n.startswith("script:leader-")]:
            models[name] = GatedModel(models[name], Path(gate), from_the_round)
    if judgment_gate := os.environ.get("SCRIPTED_JUDGMENT_GATE"):
        answer = f"あなたの提出内容: {os.environ['SCRIPTED_JUDGMENT_GATE_TEAM']} answer"
        models["script:judgment"] = GatedModel(
            models["script:judgment"], Path(judgment_gate), lambda prompt: answer in prompt
        )
    if pids := os.environ.get("SCRIPTED_PIDS"):
        for name in [n for n in models if n.startswith("script:leader-")]:
            models[name] = PidGatedModel(models[name], Path(pids))
    if down := os.environ.get("SCRIPTED_DOWN"):
        log = os.environ.get("SCRIPTED_DOWN_LOG")
        models[f"script:leader-{down}"] = down_model(down, Path(log) if log else None)
    try:
        with override_models(models):
            app(sys.argv[1:], prog_name="mixseek")
    except SystemExit as exc:
        leave(exc.code)  # as `mixseek` ends


if __name__ == "__main__":
    main()
