"""The sample workspace on the embedded model, with scripted generations (no llama.cpp).

The scripted model answers every request with the instructions it was given — the system prompt,
the reply format, the prompt template's fixed words — as a 135M model often does. None of that
may be stored, and every surface says, in one line, that the run's text and LLM scores come from a
demo model. A run on another `local:` GGUF file gets no such line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mixseek import load_workspace
from mixseek.config.scaffold import write_workspace
from mixseek.llm import override_models
from mixseek.llm.demo_model import DEMO_MODEL_NOTE
from mixseek.llm.local_model.engine import Generation, GenerationRequest, close_engine
from mixseek.llm.local_model.model import LlamaCppModel

from .db import longest_common_run, rows

ANSWER = "1. 保育所を増やす\n2. 給付\n3. 働き方改革"
MIN_COPY = 30
"""The issue's measure: this many characters in common with an instruction text is a copy."""


class EchoingEngine:
    """Answers each request with its instructions, in whatever shape the request allows."""

    def __init__(self) -> None:
        self.instructions: list[str] = []

    def generate(self, llama: Any, request: GenerationRequest, cancelled: Any) -> Generation:
        echo = "\n".join(part for part in (request.prompt.system, *request.protected) if part)
        self.instructions.extend(text for text in (request.prompt.system, *request.protected) if text)
        text = self._reply(request, echo)
        return Generation(
            text=text,
            finish_reason="stop",
            prompt_tokens=50,
            completion_tokens=20,
            prompt_seconds=0.0,
            generation_seconds=0.0,
            max_tokens=request.max_tokens,
            grammar_used=request.grammar_schema is not None,
        )

    def _reply(self, request: GenerationRequest, echo: str) -> str:
        schema = request.grammar_schema
        if schema is None:
            return echo
        called = any(turn["role"] == "assistant" for turn in request.prompt.turns)
        for branch in schema.get("anyOf", []):
            properties = branch.get("properties", {})
            if "tool" in properties and not called:
                name = properties["tool"].get("const") or properties["tool"].get("enum", [""])[0]
                return json.dumps({"tool": name, "arguments": {"task": echo}}, ensure_ascii=False)
        if "anyOf" in schema or "final_answer" in schema.get("properties", {}):
            return json.dumps({"final_answer": f"{echo}\n{ANSWER}"}, ensure_ascii=False)
        fields: dict[str, Any] = {}
        for name, prop in schema.get("properties", {}).items():
            kind = prop.get("type")
            fields[name] = {"string": echo, "boolean": False, "integer": 50, "number": 0.5}.get(kind, echo)
        return json.dumps(fields, ensure_ascii=False)


@pytest.fixture
def gguf(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "models" / "scripted.gguf"
    path.parent.mkdir()
    path.write_bytes(b"GGUF" + bytes(28))
    yield path
    close_engine(path)


def run_sample(workspace: Path, model: str, gguf: Path) -> tuple[Any, EchoingEngine]:
    write_workspace(workspace, model)
    local = LlamaCppModel(gguf, model_name="scripted")
    engine = EchoingEngine()
    local.engine.load = lambda: object()  # type: ignore[method-assign]
    local.engine.generate = engine.generate  # type: ignore[method-assign]
    with override_models({model: local}):
        summary = load_workspace(workspace).run_sync((workspace / "prompt.txt").read_text(encoding="utf-8"))
    return summary, engine


def mixseek(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "mixseek.cli", *args], capture_output=True, text=True, env=env, timeout=120
    )


def stored_texts(db: Path) -> list[str]:
    texts = [str(c) for (c,) in rows(db, "SELECT submission_content FROM leader_board")]
    for (details,) in rows(db, "SELECT score_details FROM leader_board"):
        texts += [str(m["comment"]) for m in json.loads(str(details)).values()]
    texts += [str(r) for (r,) in rows(db, "SELECT judgment_reasoning FROM round_status") if r]
    for (record,) in rows(db, "SELECT member_submissions_record FROM round_history"):
        texts += [str(s["content"]) for s in json.loads(str(record))["submissions"]]
    return texts


def test_instruction_echoes_of_the_demo_model_are_never_stored_and_every_surface_says_demo(
    tmp_path: Path, gguf: Path
) -> None:
    ws = tmp_path / "ws"
    summary, engine = run_sample(ws, "local:smollm2", gguf)
    assert summary.status == "completed"
    db = ws / "mixseek.db"
    texts = stored_texts(db)
    assert any(text.endswith(ANSWER) for text in texts)  # the answer's own part stays
    instructions = set(engine.instructions)
    assert any("Reply with only a JSON object" in text for text in instructions)  # schema descriptions
    assert any("上記のフィードバックを基に" in text for text in instructions)  # the team template
    for text in texts:
        for instruction in instructions:
            assert longest_common_run(text, instruction) < MIN_COPY, (text, instruction)

    assert summary.demo_model is True
    execution_id = summary.execution_id
    show = mixseek("runs", "show", execution_id, "-w", str(ws))
    assert show.returncode == 0, show.stderr
    assert show.stdout.splitlines()[1] == DEMO_MODEL_NOTE
    shown = json.loads(mixseek("runs", "show", execution_id, "-w", str(ws), "-f", "json").stdout)
    assert shown["demo_model"] is True
    markdown = mixseek("runs", "export", execution_id, "--format", "markdown", "-w", str(ws)).stdout
    assert f"> {DEMO_MODEL_NOTE}" in markdown.splitlines()
    html = mixseek("runs", "export", execution_id, "--format", "html", "-w", str(ws)).stdout
    assert f'<p class="notice" id="demo-model-note">{DEMO_MODEL_NOTE}</p>' in html
    exported = json.loads(mixseek("runs", "export", execution_id, "--format", "json", "-w", str(ws)).stdout)
    assert exported["demo_model"] is True


def test_a_run_on_another_gguf_file_gets_no_demo_note(tmp_path: Path, gguf: Path) -> None:
    ws = tmp_path / "ws"
    summary, _ = run_sample(ws, f"local:{gguf}", gguf)
    assert summary.status == "completed"
    assert summary.demo_model is False
    show = mixseek("runs", "show", summary.execution_id, "-w", str(ws))
    assert "note: demo model" not in show.stdout
    shown = json.loads(mixseek("runs", "show", summary.execution_id, "-w", str(ws), "-f", "json").stdout)
    assert shown["demo_model"] is False
    for fmt in ("markdown", "html"):
        exported = mixseek("runs", "export", summary.execution_id, "--format", fmt, "-w", str(ws)).stdout
        assert "note: demo model" not in exported
