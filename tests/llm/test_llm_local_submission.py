"""A leader on the embedded model never submits a copy of its own tool call (issue #9, item 16).

In the sample run, 6 of 19 submissions were a literal tool-call JSON string: once a leader's
delegation tools are withdrawn, its next reply was free text, and a small model that has just seen
its own tool call written as JSON writes it again. The scripted engine here does what SmolLM2 did:
left free, it repeats its last tool call; held to a grammar, it writes what the grammar allows
(test_llm_local_grammar.py shows llama.cpp holds a final answer to a non-JSON text).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from mixseek.cli.app import app
from mixseek.llm.local_model.engine import Generation, GenerationRequest, close_engine, get_engine

ANSWER = "保育の無償化、育児休業の拡充、住宅支援の3つを提案します。"
MEMBER_ANSWER = "保育と住宅の支援が有効です。"


def smollm2_like(request: GenerationRequest) -> str:
    """A reply as SmolLM2 wrote them in the sample run."""
    schema = request.grammar_schema
    own_calls = [turn["content"] for turn in request.prompt.turns if turn["role"] == "assistant"]
    if schema is None:
        return own_calls[-1] if own_calls else MEMBER_ANSWER
    alternatives = schema.get("anyOf", [schema])
    if any("tool" in alternative.get("properties", {}) for alternative in alternatives):
        return json.dumps(
            {"tool": "delegate_to_writer", "arguments": {"task": "案を書いて"}}, ensure_ascii=False
        )
    return json.dumps({"final_answer": ANSWER}, ensure_ascii=False)


@pytest.fixture
def scripted_gguf(tmp_path: Path) -> Iterator[tuple[Path, list[GenerationRequest]]]:
    path = (tmp_path / "scripted.gguf").resolve()
    path.write_bytes(b"GGUF" + bytes(28))
    engine = get_engine(path)
    requests: list[GenerationRequest] = []

    def generate(llama: Any, request: GenerationRequest, cancelled: threading.Event) -> Generation:
        requests.append(request)
        text = smollm2_like(request)
        return Generation(
            text=text,
            finish_reason="stop",
            prompt_tokens=100,
            completion_tokens=len(text),
            prompt_seconds=0.01,
            generation_seconds=0.01,
            max_tokens=request.max_tokens,
            grammar_used=request.grammar_schema is not None,
        )

    engine.load = lambda: object()  # type: ignore[method-assign]
    engine.generate = generate  # type: ignore[method-assign]
    yield path, requests
    close_engine(path)


def test_a_leader_whose_tools_were_withdrawn_answers_with_text_not_its_tool_call(
    scripted_gguf: tuple[Path, list[GenerationRequest]], tmp_path: Path
) -> None:
    gguf, requests = scripted_gguf
    team = tmp_path / "team.toml"
    team.write_text(
        f"""
[team]
team_id = "writers"
team_name = "Writers"

[team.leader]
model = "local:{gguf}"
max_delegation_rounds = 1

[[team.members]]
agent_name = "writer"
agent_type = "plain"
tool_description = "回答文を書きます。"
model = "local:{gguf}"
""",
        encoding="utf-8",
    )
    result = CliRunner().invoke(
        app, ["team", "-c", str(team), "-f", "json", "日本の少子化対策を3つ提案してください"]
    )
    assert result.exit_code == 0, result.output
    output = json.loads(result.stdout)
    assert output["content"] == ANSWER
    assert [m["content"] for m in output["members"]] == [MEMBER_ANSWER]
    # the leader delegated, then answered under a grammar that allows only a final answer
    leader_steps = [r for r in requests if any(t["role"] == "assistant" for t in r.prompt.turns)]
    assert len(leader_steps) == 1
    assert leader_steps[0].grammar_schema is not None
    assert list(leader_steps[0].grammar_schema["properties"]) == ["final_answer"]
