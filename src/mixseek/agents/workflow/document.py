"""The input document every workflow executor receives (format `mixseek.workflow.input/1`, its
keys documented in the README's workflow section): a function gets it as a dict, an agent as JSON."""

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
