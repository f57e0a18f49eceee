"""Runs the `mixseek` CLI in a separate process with the scripted models of tests/e2e/scripted.py,
each round held until the test lets it go.

SCRIPTED_GO_DIR=dir: a leader called in round N first creates `dir/round-N.waiting`, then waits
until `dir/round-N.go` exists. A test thus sees each round start, looks at whatever it wants while
the execution is mid-round, and releases the round, without any sleep.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

TESTS = Path(__file__).parents[1]
sys.path.insert(0, str(TESTS))
sys.path.insert(0, str(TESTS / "e2e"))

from pydantic_ai.messages import ModelMessage, ModelResponse  # noqa: E402
from pydantic_ai.models import Model, ModelRequestParameters  # noqa: E402
from pydantic_ai.models.wrapper import WrapperModel  # noqa: E402
from pydantic_ai.settings import ModelSettings  # noqa: E402
from scripted import ROUND_RE, World  # noqa: E402

from mixseek.cli.app import app  # noqa: E402
from mixseek.llm import override_models  # noqa: E402
from scripting import first_user_text  # noqa: E402


def waiting_file(go_dir: Path, round_number: int) -> Path:
    return go_dir / f"round-{round_number}.waiting"


def go_file(go_dir: Path, round_number: int) -> Path:
    return go_dir / f"round-{round_number}.go"


class HeldLeader(WrapperModel):
    """A leader that answers in round N only once the test created round N's go file."""

    def __init__(self, wrapped: Model, go_dir: Path) -> None:
        super().__init__(wrapped)
        self.go_dir = go_dir

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        round_number = len(ROUND_RE.findall(first_user_text(messages))) + 1
        waiting_file(self.go_dir, round_number).touch()
        while not go_file(self.go_dir, round_number).exists():
            await asyncio.sleep(0.02)
        return await super().request(messages, model_settings, model_request_parameters)


def main() -> None:
    go_dir = Path(os.environ["SCRIPTED_GO_DIR"])
    models = World().models()
    for name in [n for n in models if n.startswith("script:leader-")]:
        models[name] = HeldLeader(models[name], go_dir)
    with override_models(models):
        app(sys.argv[1:], prog_name="mixseek")


if __name__ == "__main__":
    main()
