"""`mixseek` with four scripted teams whose model calls are logged to one file all processes share.

Test-only, for the Temporal tests of budgets and rate limits across workers:
GOVERNED_LOG=path — every process appends `ask|enter|exit PID MODEL` lines: `ask` as a governed
  model asks leave for a request, `enter`/`exit` around the scripted model's work. The lines are
  single O_APPEND writes, so their order in the file is the order they happened in.
GOVERNED_BARRIER=N — a leader call waits until leaders of N different processes have entered:
  with `--concurrency 1` each, N workers are each sure to hold a team round.
GOVERNED_HOLD=MODEL — the first call of MODEL (in any process) waits until another process asks
  for MODEL: a second request of that model is sure to be wanted while the first is in flight.
"""

from __future__ import annotations

import asyncio
import os
import sys
from contextlib import AbstractAsyncContextManager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1]))

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from mixseek.cli.app import app
from mixseek.llm import override_models
from mixseek.llm.governor import Governor, Ticket

TEAMS = ("t1", "t2", "t3", "t4")
POLL = 0.05  # how often a waiting call looks at the log again (waits are for events, not times)


def _log(event: str, model: str) -> None:
    path = os.environ.get("GOVERNED_LOG")
    if path:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, f"{event} {os.getpid()} {model}\n".encode())
        finally:
            os.close(fd)


def _lines() -> list[list[str]]:
    return [line.split() for line in Path(os.environ["GOVERNED_LOG"]).read_text().splitlines()]


async def _barrier() -> None:
    wanted = int(os.environ.get("GOVERNED_BARRIER", "0"))
    while len({pid for event, pid, model in _lines() if event == "enter" and "leader" in model}) < wanted:
        await asyncio.sleep(POLL)


async def _hold(model: str) -> None:
    if os.environ.get("GOVERNED_HOLD") != model:
        return
    try:
        os.close(os.open(os.environ["GOVERNED_LOG"] + ".held", os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        return  # only the first call of the model waits
    me = str(os.getpid())
    while not any(e == "ask" and pid != me and m == model for e, pid, m in _lines()):
        await asyncio.sleep(POLL)


def _logged(model: str, answer: ModelResponse | None = None) -> FunctionModel:
    async def call(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        _log("enter", model)
        try:
            if "leader" in model:
                await _barrier()
            await _hold(model)
            if answer is not None:
                return answer
            tool = info.output_tools[0].name
            if model == "script:metric":
                args: dict[str, object] = {"score": 50.0, "comment": "fine"}
            else:
                args = {"should_continue": False, "reasoning": "enough", "confidence_score": 0.5}
            return ModelResponse(
                parts=[ToolCallPart(tool, args)], usage=RequestUsage(input_tokens=10, output_tokens=2)
            )
        finally:
            _log("exit", model)

    return FunctionModel(call, model_name=model)


def models() -> dict[str, Model]:
    found: dict[str, Model] = {
        f"script:leader-{team}": _logged(
            f"script:leader-{team}",
            ModelResponse(
                parts=[TextPart(f"{team} answer")], usage=RequestUsage(input_tokens=100, output_tokens=20)
            ),
        )
        for team in TEAMS
    }
    found["script:metric"] = _logged("script:metric")
    found["script:judgment"] = _logged("script:judgment")
    return found


def main() -> None:
    admission = Governor.admission

    def asking(self: Governor, model_string: str) -> AbstractAsyncContextManager[Ticket]:
        _log("ask", model_string)
        return admission(self, model_string)

    Governor.admission = asking  # type: ignore[method-assign]
    with override_models(models()):
        app(sys.argv[1:], prog_name="mixseek")


if __name__ == "__main__":
    main()
