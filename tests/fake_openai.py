"""A fake OpenAI-compatible provider on 127.0.0.1 that counts the HTTP requests it receives.

It answers `POST /v1/chat/completions` the way a chat model would: it calls the structured-output
tool (`final_result...`) when offered one, calls the first function tool once per conversation,
and otherwise answers in text. Tool arguments are made up from the tool's JSON schema (numbers
in the middle of their allowed range). Its first `fail_first` requests (or all of them, with
`fail_always`) get `fail_status` with `Retry-After: 0`. With `echo_auth`, every text it writes
contains the request's `Authorization` header, as a misbehaving proxy might. With `echo_secrets`,
every text it writes (answers, tool-call arguments, error messages) contains each of those values
in each of its `encodings`, and so does the request's API key, which also comes back as the
answer's `model` and `id`.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

MODEL = "openai-chat:fake-gpt"


def encodings(secret: str) -> dict[str, str]:
    """The forms in which a provider may echo `secret`: as it is, escaped in a JSON string (with
    and without `\\u` escapes), with only its non-ASCII characters `\\u`-escaped, repr-escaped (as
    Python's repr and ascii write it) and percent-encoded (as a path or query part)."""
    return {
        "raw": secret,
        "json": json.dumps(secret, ensure_ascii=False)[1:-1],
        "json-ascii": json.dumps(secret)[1:-1],
        "u-escaped": "".join(c if c.isascii() else json.dumps(c)[1:-1] for c in secret),
        "repr": repr(secret)[1:-1],
        "ascii": ascii(secret)[1:-1],
        "percent": quote(secret, safe=""),
        "percent-plus": quote_plus(secret),
    }


class FakeOpenAI:
    def __init__(
        self,
        *,
        fail_first: int = 0,
        fail_always: bool = False,
        fail_status: int = 429,
        echo_auth: bool = False,
        echo_secrets: Sequence[str] = (),
    ) -> None:
        self.fail_first = fail_first
        self.fail_always = fail_always
        self.fail_status = fail_status
        self.echo_auth = echo_auth
        self.echo_secrets = tuple(echo_secrets)
        self.requests: list[dict[str, Any]] = []
        self.statuses: list[int] = []
        self._lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    @property
    def count(self) -> int:
        with self._lock:
            return len(self.requests)

    def _answer(self, body: dict[str, Any], auth: str) -> tuple[int, dict[str, Any]]:
        with self._lock:
            self.requests.append({**body, "_auth": auth})
            failing = self.fail_always or len(self.requests) <= self.fail_first
        key = auth.removeprefix("Bearer ")
        echoed = "".join(
            f" {form}"
            for secret in ((key, *self.echo_secrets) if self.echo_secrets else ())
            for form in encodings(secret).values()
        )
        if failing:
            error = {"message": f"try again ({auth}){echoed}", "type": "rate_limit"}
            return self.fail_status, {"error": error}
        words = (f"echo {auth}" if self.echo_auth else "echo") + echoed
        message = _reply(body, words)
        return 200, {
            "id": key if self.echo_secrets else f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "created": 1,
            "model": key if self.echo_secrets else body["model"],
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
                }
            ],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                status, answer = server._answer(body, self.headers.get("Authorization", ""))
                payload = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                if status != 200:
                    self.send_header("Retry-After", "0")
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, format: str, *args: object) -> None:
                return

        return Handler


def _reply(body: dict[str, Any], words: str) -> dict[str, Any]:
    tools = [tool["function"] for tool in body.get("tools") or []]
    output = [tool for tool in tools if tool["name"].startswith("final_result")]
    answered = any(message.get("role") == "tool" for message in body["messages"])
    chosen = output[0] if output else (tools[0] if tools and not answered else None)
    if chosen is None:
        return {"role": "assistant", "content": f"{words}: answer"}
    arguments = _arguments(chosen.get("parameters") or {}, words)
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": chosen["name"], "arguments": json.dumps(arguments)},
            }
        ],
    }


def _arguments(schema: dict[str, Any], words: str) -> dict[str, Any]:
    """A valid value for each property of an object schema."""
    values: dict[str, Any] = {}
    for name, prop in (schema.get("properties") or {}).items():
        kind = prop.get("type")
        if kind in ("number", "integer"):
            low, high = prop.get("minimum", 0), prop.get("maximum", 100)
            middle = (low + high) / 2
            values[name] = int(middle) if kind == "integer" else middle
        elif kind == "boolean":
            values[name] = False
        elif kind == "array":
            values[name] = []
        elif kind == "object":
            values[name] = {}
        else:
            values[name] = f"{words} ({name})"
    return values


@contextmanager
def fake_openai(**options: Any) -> Iterator[FakeOpenAI]:
    server = FakeOpenAI(**options)
    thread = threading.Thread(target=server.httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.httpd.shutdown()
        server.httpd.server_close()
        thread.join()


def write_fake_workspace(root: Path, *, max_rounds: int = 1, max_retries: int = 3, extra: str = "") -> Path:
    """A workspace whose every role (leader, member, metric, judgment) uses the fake provider:
    one team (a leader and a member); the judgment runs from `max_rounds = 2` on."""
    agents = root / "configs" / "agents"
    agents.mkdir(parents=True)
    (root / "configs" / "orchestrator.toml").write_text(
        f"""
[orchestrator]
max_rounds = {max_rounds}
min_rounds = 1
retry_base_delay_seconds = 0.01
retry_max_delay_seconds = 0.05
{extra}
[[orchestrator.teams]]
config = "agents/solo.toml"
""",
        encoding="utf-8",
    )
    (agents / "solo.toml").write_text(
        f"""
[team]
team_id = "solo"
team_name = "Solo"

[team.leader]
model = "{MODEL}"
max_retries = {max_retries}

[[team.members]]
agent_name = "helper"
agent_type = "plain"
tool_description = "手伝う"
model = "{MODEL}"
max_retries = {max_retries}
""",
        encoding="utf-8",
    )
    (root / "configs" / "evaluator.toml").write_text(
        f"""
[evaluator]
model = "{MODEL}"
max_retries = {max_retries}
[[evaluator.metrics]]
name = "relevance"
""",
        encoding="utf-8",
    )
    (root / "configs" / "judgment.toml").write_text(
        f'[judgment]\nmodel = "{MODEL}"\nmax_retries = {max_retries}\n', encoding="utf-8"
    )
    return root
