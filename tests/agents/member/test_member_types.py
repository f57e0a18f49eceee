"""Member types behind the delegation tool: web-fetch and code-exec with real servers/subprocesses,
web-search refusal, and custom classes."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    TextPart,
    ToolCallPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from mixseek.agents.member.base import MemberAgent, MemberResult
from mixseek.agents.member.registry import (
    create_member,
    known_member_types,
    register_member_type,
    unregister_member_type,
)
from mixseek.config.agent_models import MemberAgentConfig
from mixseek.errors import MixseekError
from mixseek.llm import override_models
from scripting import tool_returns


class _Page(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = "<html><head><title>Doc</title></head><body><p>答えは42です</p></body></html>".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        return


@pytest.fixture
def page_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/doc"
    server.shutdown()
    server.server_close()


def tool_then_echo(tool: str, args: dict[str, object]) -> FunctionModel:
    """Calls `tool` once, then answers with the tool's return text."""

    def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        returns = list(tool_returns(messages).values())
        if not returns:
            assert [t.name for t in info.function_tools] == [tool]
            return ModelResponse(parts=[ToolCallPart(tool, args)])
        return ModelResponse(parts=[TextPart(returns[0])])

    return FunctionModel(fn)


def member(agent_type: str, **extra: object) -> MemberAgentConfig:
    return MemberAgentConfig.model_validate(
        {"agent_name": "m", "agent_type": agent_type, "tool_description": "d", "model": "script:m", **extra}
    )


async def test_web_fetch_member_reads_a_local_page(page_url: str) -> None:
    config = member("web-fetch", web_fetch={"allow_private_addresses": True})
    with override_models({"script:m": tool_then_echo("fetch_url", {"url": page_url})}):
        result = await create_member(config).run("ページを読んで")
    assert f"URL: {page_url}" in result.content
    assert "Title: Doc" in result.content
    assert result.content.endswith("答えは42です")
    assert result.usage.requests == 2 and result.usage.tool_calls == 1


async def test_web_fetch_member_refuses_loopback_by_default(page_url: str) -> None:
    with override_models({"script:m": tool_then_echo("fetch_url", {"url": page_url})}):
        result = await create_member(member("web-fetch")).run("ページを読んで")
    assert result.content.startswith("ERROR: refused to fetch")
    assert "loopback" in result.content


async def test_code_exec_member_runs_python_in_a_subprocess() -> None:
    code = f"import os\nprint(sum(range(10)), os.getpid() != {os.getpid()})"
    config = member("code-exec", code_exec={"timeout_seconds": 10})
    with override_models({"script:m": tool_then_echo("run_python", {"code": code})}):
        result = await create_member(config).run("計算して")
    assert "status: exit code 0" in result.content
    assert "45 True" in result.content


async def test_code_exec_member_reports_timeout() -> None:
    config = member("code-exec", code_exec={"timeout_seconds": 1})
    with override_models({"script:m": tool_then_echo("run_python", {"code": "while True: pass"})}):
        result = await create_member(config).run("無限ループ")
    assert "timed out after 1.0 s" in result.content


def test_web_search_member_refuses_a_model_without_native_search(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_BASE_URL", "http://127.0.0.1:9/v1")
    config = member("web-search", model="ollama:llama3")
    with pytest.raises(MixseekError) as info:
        create_member(config, role="member 'm' of team 't'")
    assert str(info.value) == (
        "model 'ollama:llama3' for member 'm' of team 't' has no built-in web search; "
        "use a model whose provider offers one (e.g. openai-responses:, anthropic:, google-gla:, groq:)"
    )


async def test_web_search_member_offers_the_native_search_tool() -> None:
    seen: dict[str, object] = {}

    def fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen["native"] = [type(t).__name__ for t in info.model_request_parameters.native_tools]
        return ModelResponse(parts=[TextPart("検索結果")])

    config = member("web-search", web_search={"max_uses": 3})
    with override_models({"script:m": FunctionModel(fn)}):
        result = await create_member(config).run("最新情報")
    assert result.content == "検索結果"
    assert seen["native"] == ["WebSearchTool"]


class Shouter(MemberAgent):
    async def run(self, task, *, usage=None, usage_limits=None):  # type: ignore[no-untyped-def]
        return MemberResult(content=task.upper())


async def test_registered_custom_type_needs_no_patching() -> None:
    register_member_type("shouter", Shouter)
    try:
        assert "shouter" in known_member_types()
        result = await create_member(member("shouter")).run("hello")
        assert result.content == "HELLO"
    finally:
        unregister_member_type("shouter")
    assert "shouter" not in known_member_types()


async def test_custom_member_from_a_file(tmp_path: Path) -> None:
    (tmp_path / "echo_member.py").write_text(
        "from mixseek.agents.member.base import MemberAgent, MemberResult\n"
        "class Echo(MemberAgent):\n"
        "    async def run(self, task, *, usage=None, usage_limits=None):\n"
        "        return MemberResult(content=f'{self.config.agent_name}:{task}')\n",
        encoding="utf-8",
    )
    config = member("custom", class_path="echo_member.py:Echo")
    result = await create_member(config, base_dir=tmp_path).run("hi")
    assert result.content == "m:hi"


def test_custom_class_must_subclass_member_agent(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text("class NotAMember:\n    pass\n", encoding="utf-8")
    with pytest.raises(MixseekError) as info:
        create_member(member("custom", class_path="bad.py:NotAMember"), base_dir=tmp_path)
    assert str(info.value) == (
        "class_path 'bad.py:NotAMember': NotAMember must subclass mixseek.agents.member.base.MemberAgent"
    )


def test_custom_type_without_class_path_is_a_config_error() -> None:
    with pytest.raises(ValueError) as info:
        member("custom")
    assert 'agent_type "custom" needs class_path' in str(info.value)


def test_json_roundtrip_of_options() -> None:
    config = member("web-fetch", web_fetch={"max_redirects": 2})
    assert json.loads(config.model_dump_json())["web_fetch"]["max_redirects"] == 2
