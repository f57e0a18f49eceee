"""`ollama:` and OpenAI-compatible base-URL models against a tiny fake server on 127.0.0.1."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, Field
from pydantic_ai import Agent, models
from typer.testing import CliRunner

from mixseek.cli.app import app
from mixseek.llm import create_model

MEMBER_TOML = """
[member]
agent_name = "local"
agent_type = "plain"
tool_description = "d"
model = "ollama:qwen3"
"""


class FakeServer:
    """Answers /v1/chat/completions: plain text, or a call of the first offered tool."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                body["_path"] = self.path
                body["_auth"] = self.headers.get("Authorization")
                server.requests.append(body)
                if self.path != "/v1/chat/completions":
                    self.send_response(404)
                    self.end_headers()
                    return
                tools = body.get("tools") or []
                if tools:
                    message: dict[str, Any] = {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "call_1",
                                "type": "function",
                                "function": {
                                    "name": tools[0]["function"]["name"],
                                    "arguments": json.dumps({"score": 64, "comment": "まずまず"}),
                                },
                            }
                        ],
                    }
                    finish = "tool_calls"
                else:
                    last = body["messages"][-1]["content"]
                    message = {"role": "assistant", "content": f"echo: {last}"}
                    finish = "stop"
                payload = json.dumps(
                    {
                        "id": "chatcmpl-1",
                        "object": "chat.completion",
                        "created": 1,
                        "model": body["model"],
                        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                        "usage": {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15},
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, format: str, *args: object) -> None:
                return

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"


@pytest.fixture
def fake_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeServer]:
    # the server is on 127.0.0.1: real provider clients may talk to it
    monkeypatch.setattr(models, "ALLOW_MODEL_REQUESTS", True)
    server = FakeServer()
    thread = threading.Thread(target=server.httpd.serve_forever, daemon=True)
    thread.start()
    yield server
    server.httpd.shutdown()
    server.httpd.server_close()


async def test_ollama_model_talks_to_the_base_url(
    fake_server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OLLAMA_BASE_URL", fake_server.base_url)
    agent = Agent(create_model("ollama:llama3.1", role="member 'm'"))
    result = await agent.run("こんにちは")
    assert result.output == "echo: こんにちは"
    assert fake_server.requests[0]["model"] == "llama3.1"
    assert result.usage.input_tokens == 12 and result.usage.output_tokens == 3


class Score(BaseModel):
    score: float = Field(ge=0, le=100)
    comment: str


async def test_openai_compatible_server_gives_structured_output(
    fake_server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", fake_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "local-key")
    agent = Agent(
        create_model("openai-chat:qwen2.5-7b", role="evaluator metric 'coverage'"), output_type=Score
    )
    result = await agent.run("採点して")
    assert result.output == Score(score=64, comment="まずまず")
    request = fake_server.requests[0]
    assert (request["model"], request["_auth"]) == ("qwen2.5-7b", "Bearer local-key")
    assert request["tools"][0]["function"]["parameters"]["properties"]["score"]["type"] == "number"


def test_member_command_with_an_ollama_model(
    fake_server: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OLLAMA_BASE_URL", fake_server.base_url)
    member = tmp_path / "m.toml"
    member.write_text(
        MEMBER_TOML,
        encoding="utf-8",
    )
    result = CliRunner().invoke(app, ["member", "質問です", "-c", str(member), "-f", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["content"] == "echo: 質問です"
    assert data["usage"] == {"requests": 1, "tool_calls": 0, "input_tokens": 12, "output_tokens": 3}


def test_ollama_without_base_url_is_one_clear_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OLLAMA_BASE_URL", raising=False)
    member = tmp_path / "m.toml"
    member.write_text(
        MEMBER_TOML,
        encoding="utf-8",
    )
    result = CliRunner().invoke(app, ["member", "q", "-c", str(member)])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "error: model 'ollama:qwen3' for member 'local' needs credentials: "
        "set the environment variable OLLAMA_BASE_URL"
    )
