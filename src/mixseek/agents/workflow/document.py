"""The input document every workflow executor receives (format `mixseek.workflow.input/1`).

A function executor is called with it as a dict (its only argument). An agent executor is given
it as its task: one line saying what it is (`WORKFLOW_AGENT_PREAMBLE`), an empty line, then the document
as JSON (indented by 2, non-ASCII characters as they are). Keys:

- `format`: `"mixseek.workflow.input/1"`.
- `team_id`, `team_name`, `round_number` (from 1).
- `step`: `{"id", "index", "executor"}` — the step this executor runs in (index from 0) and its name.
- `user_prompt`: the execution's task as the user wrote it.
- `prompt`: this round's prompt for the team — the task with the team's history and rank, what
  a leader would be given.
- `previous_steps`: `[{"id", "results": [{"executor", "status", "content", "error"}]}]` — the step
  just before (`input = "previous"`, the default) or every earlier step (`input = "all"`), in
  step order, each step's results in the order of its executors; empty for the first step.
  `status` is `"SUCCESS"` (`error` is null) or `"ERROR"` (`content` is `""`, `error` says why:
  only a step with `continue_on_failure` passes failures on). `content` is always text: what a
  function returned that was not text is there as JSON text.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mixseek.agents.leader.models import MemberSubmission
from mixseek.config.prompt_defaults import WORKFLOW_AGENT_PREAMBLE

DOCUMENT_FORMAT = "mixseek.workflow.input/1"


@dataclass(frozen=True)
class StepResults:
    """The answers of one finished step, in the order of its executors."""

    step_id: str
    results: Sequence[MemberSubmission]

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.step_id,
            "results": [
                {"executor": r.agent_name, "status": r.status, "content": r.content, "error": r.error_message}
                for r in self.results
            ],
        }


@dataclass(frozen=True)
class RoundInput:
    """What every executor of one team round shares."""

    team_id: str
    team_name: str
    round_number: int
    user_prompt: str
    prompt: str


def input_document(
    shared: RoundInput, *, step_id: str, step_index: int, executor: str, previous: Sequence[StepResults]
) -> dict[str, Any]:
    """The document for one executor of one step."""
    return {
        "format": DOCUMENT_FORMAT,
        "team_id": shared.team_id,
        "team_name": shared.team_name,
        "round_number": shared.round_number,
        "step": {"id": step_id, "index": step_index, "executor": executor},
        "user_prompt": shared.user_prompt,
        "prompt": shared.prompt,
        "previous_steps": [p.as_json() for p in previous],
    }


def agent_task(document: dict[str, Any]) -> str:
    """The task text an agent executor is given: one line of explanation, then the document."""
    return f"{WORKFLOW_AGENT_PREAMBLE}\n\n{json.dumps(document, ensure_ascii=False, indent=2)}"
