"""OpenTelemetry: the span tree of a scripted execution, the `--otel` switch and its config key.

Spans are collected by an SDK `TracerProvider` with an `InMemorySpanExporter` handed to mixseek
(`configure_telemetry(provider)`); every test leaves telemetry off again (the autouse fixture),
and the one test that installs a global provider restores the API's globals after it.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.util._once import Once
from pydantic_ai import Agent
from typer.testing import CliRunner

import mixseek.telemetry as telemetry
from e2e.db import rows
from e2e.scripted import World, write_workspace
from e2e.strategies import StrategyWorld, write_strategies_workspace
from mixseek import (
    EvaluatorSettings,
    JudgmentSettings,
    LeaderAgentConfig,
    Mixseek,
    OrchestratorSettings,
    TeamConfig,
)
from mixseek.cli.app import app
from mixseek.config.bundle import load_execution_config
from mixseek.config.workspace import Workspace
from mixseek.llm import override_models
from mixseek.orchestrator.orchestrator import Orchestrator

RUN_SCRIPTED = Path(__file__).parent / "e2e" / "run_scripted.py"
SDK_MODULES = (
    "opentelemetry.sdk.resources",
    "opentelemetry.sdk.trace",
    "opentelemetry.sdk.trace.export",
    "opentelemetry.exporter.otlp.proto.http.trace_exporter",
)


@pytest.fixture(autouse=True)
def _telemetry_off_after(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("MIXSEEK_ORCHESTRATOR__TELEMETRY", raising=False)
    yield
    telemetry.configure_telemetry("off")
    assert Agent._instrument_default is False  # pydantic-ai's instrumentation is mixseek's to undo


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    """mixseek's spans (and pydantic-ai's model calls) into memory."""
    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    telemetry.configure_telemetry(provider)
    yield spans
    telemetry.configure_telemetry("off")
    provider.shutdown()


@pytest.fixture
def global_exporter(monkeypatch: pytest.MonkeyPatch) -> Iterator[InMemorySpanExporter]:
    """A global tracer provider, as an application would install one; the API's globals are
    restored afterwards (it lets a process set them only once)."""
    monkeypatch.setattr(trace, "_TRACER_PROVIDER", None)
    monkeypatch.setattr(trace, "_TRACER_PROVIDER_SET_ONCE", Once())
    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    trace.set_tracer_provider(provider)
    yield spans
    provider.shutdown()


def two_teams(root: Path, *, max_rounds: int = 2, extra: str = "") -> Path:
    """scripted.py's workspace without gamma: alpha (a leader and its member) and beta (a leader)."""
    ws = write_workspace(root, max_rounds=max_rounds, extra=extra)
    config = ws / "configs" / "orchestrator.toml"
    text = config.read_text(encoding="utf-8")
    config.write_text(
        text.replace('[[orchestrator.teams]]\nconfig = "agents/gamma.toml"\n', ""), encoding="utf-8"
    )
    return ws


def run_exec(ws: Path, models: Any, *args: str) -> tuple[int, dict[str, Any], str]:
    with override_models(models):
        result = CliRunner().invoke(app, ["exec", "課題", "-w", str(ws), "-f", "json", *args])
    assert "Traceback" not in result.output
    return result.exit_code, json.loads(result.stdout) if result.stdout.strip() else {}, result.stderr


class Tree:
    """The finished spans as a tree."""

    def __init__(self, spans: tuple[ReadableSpan, ...]) -> None:
        self.spans = spans

    def named(self, name: str) -> list[ReadableSpan]:
        return [s for s in self.spans if s.name == name]

    def parent(self, span: ReadableSpan) -> ReadableSpan | None:
        if span.parent is None:
            return None
        return next(s for s in self.spans if s.context.span_id == span.parent.span_id)

    def children(self, span: ReadableSpan, name: str | None = None) -> list[ReadableSpan]:
        return [
            s
            for s in self.spans
            if s.parent is not None
            and s.parent.span_id == span.context.span_id
            and (name is None or s.name == name)
        ]

    def descendants(self, span: ReadableSpan, name: str | None = None) -> list[ReadableSpan]:
        found: list[ReadableSpan] = []
        for child in self.children(span):
            if name is None or child.name == name:
                found.append(child)
            found.extend(self.descendants(child, name))
        return found


def attrs(span: ReadableSpan) -> dict[str, Any]:
    return {
        k.removeprefix("mixseek."): v for k, v in (span.attributes or {}).items() if k.startswith("mixseek.")
    }


def model_calls(tree: Tree, span: ReadableSpan) -> list[str]:
    """pydantic-ai's model-request spans below `span` (its instrumentation, not mixseek's)."""
    return [
        s.name
        for s in tree.descendants(span)
        if s.instrumentation_scope is not None
        and s.instrumentation_scope.name == "pydantic-ai"
        and s.name.startswith("chat ")
    ]


def test_scripted_execution_gives_the_span_tree(tmp_path: Path, exporter: InMemorySpanExporter) -> None:
    ws = two_teams(tmp_path / "ws")
    code, summary, stderr = run_exec(ws, World().models())
    assert code == 0, stderr
    tree = Tree(exporter.get_finished_spans())
    execution_id = summary["execution_id"]

    (execution,) = tree.named("mixseek.execution")
    assert execution.parent is None
    assert attrs(execution) == {
        "execution_id": execution_id,
        "resumed": False,
        "teams": 2,
        "max_rounds": 2,
        "status": "completed",
        "stop_reason": "finished",
        "rounds": 2,
        "best_team_id": "alpha",
        "best_score": 75.0,
        "input_tokens": summary["usage"]["input_tokens"],
        "output_tokens": summary["usage"]["output_tokens"],
        "requests": summary["usage"]["requests"],
    }
    rounds = tree.children(execution, "mixseek.round")
    assert len(tree.named("mixseek.round")) == len(rounds) == 2
    assert [attrs(r)["round"] for r in rounds] == [1, 2]

    scores = {("alpha", 1): 60.0, ("alpha", 2): 75.0, ("beta", 1): 70.0, ("beta", 2): 72.0}
    seen = {}
    for round_span in rounds:
        for team_round in tree.children(round_span, "mixseek.team_round"):
            a = attrs(team_round)
            team, number = a["team_id"], a["round"]
            assert number == attrs(round_span)["round"]
            assert a["execution_id"] == execution_id and a["status"] == "completed"
            assert a["tokens"] > 0 and "error" not in a
            seen[(team, number)] = a["score"]

            (leader,) = tree.children(team_round, "mixseek.leader")
            assert attrs(leader)["team_id"] == team
            assert model_calls(tree, leader)[0] == f"chat leader-{team}"
            members = tree.descendants(leader, "mixseek.member")
            if team == "alpha":  # the leader delegated to its member through a tool
                (member,) = members
                assert attrs(member) == {
                    "agent_name": "helper",
                    "agent_type": "plain",
                    "status": "SUCCESS",
                    "input_tokens": 30,
                    "output_tokens": 5,
                    "requests": 1,
                }
                assert model_calls(tree, member) == ["chat member"]
            else:
                assert members == []

            (evaluation,) = tree.children(team_round, "mixseek.evaluation")
            assert attrs(evaluation)["score"] == scores[(team, number)]
            metrics = tree.children(evaluation, "mixseek.metric")
            assert sorted((attrs(m)["metric"], attrs(m)["score"]) for m in metrics) == [
                (name, scores[(team, number)]) for name in ("clarity_coherence", "coverage", "relevance")
            ]
            assert all(model_calls(tree, m) == ["chat metric"] for m in metrics)

            # the judgment is made at the round barrier, after the team round, yet filed under it
            judgments = tree.children(team_round, "mixseek.judgment")
            if number == 1:
                (judgment,) = judgments
                assert attrs(judgment)["should_continue"] is True
                assert attrs(judgment)["reason"] == "judgment"
                assert attrs(judgment)["confidence"] == 0.8
                assert model_calls(tree, judgment) == ["chat judgment"]
            else:  # the last round is decided by max_rounds, without asking the judgment model
                assert judgments == []
    assert seen == scores
    assert len(tree.named("mixseek.judgment")) == 2
    # every span belongs to the execution's trace
    assert {s.context.trace_id for s in tree.spans} == {execution.context.trace_id}


def test_a_failed_team_round_is_an_error_span(tmp_path: Path, exporter: InMemorySpanExporter) -> None:
    ws = two_teams(tmp_path / "ws", max_rounds=1)
    code, _, stderr = run_exec(ws, World(failing_teams={"beta"}).models())
    assert code == 1, stderr
    tree = Tree(exporter.get_finished_spans())
    by_team = {attrs(s)["team_id"]: s for s in tree.named("mixseek.team_round")}
    assert by_team["alpha"].status.status_code == trace.StatusCode.UNSET
    failed = by_team["beta"]
    assert attrs(failed)["status"] == "failed"
    assert "beta leader is broken" in attrs(failed)["error"]
    assert failed.status.status_code == trace.StatusCode.ERROR
    assert "beta leader is broken" in (failed.status.description or "")
    (execution,) = tree.named("mixseek.execution")
    assert attrs(execution)["status"] == "partial_failure"


def test_workflow_and_broadcast_teams_give_member_spans(
    tmp_path: Path, exporter: InMemorySpanExporter
) -> None:
    ws = write_strategies_workspace(tmp_path / "ws", max_rounds=1)
    code, _, stderr = run_exec(ws, StrategyWorld().models())
    assert code == 0, stderr
    tree = Tree(exporter.get_finished_spans())
    leaders = {attrs(s)["team_id"]: s for s in tree.named("mixseek.leader")}
    assert set(leaders) == {"alpha", "beta", "gamma"}

    gamma = leaders["gamma"]
    assert attrs(gamma)["workflow_steps"] == 3
    executors = {
        attrs(s)["agent_name"]: (attrs(s)["agent_type"], attrs(s)["step_id"], attrs(s)["status"])
        for s in tree.children(gamma, "mixseek.member")
    }
    assert executors == {
        "researcher": ("plain", "research", "SUCCESS"),
        "draft_a": ("plain", "draft", "SUCCESS"),
        "draft_b": ("function", "draft", "SUCCESS"),
        "editor": ("function", "edit", "SUCCESS"),
    }
    by_name = {attrs(s)["agent_name"]: s for s in tree.children(gamma, "mixseek.member")}
    assert model_calls(tree, by_name["researcher"]) == ["chat researcher"]
    assert model_calls(tree, by_name["editor"]) == []

    beta = leaders["beta"]  # broadcast: every member answers before the leader, under its span
    assert attrs(beta)["member_dispatch"] == "broadcast"
    assert len(tree.children(beta, "mixseek.member")) == 2


def test_off_records_nothing_even_into_a_global_provider(
    tmp_path: Path, global_exporter: InMemorySpanExporter
) -> None:
    """Off is off: an application's own global provider gets no mixseek (or model-call) spans
    until mixseek is given it (`configure_telemetry(provider)`)."""
    ws = two_teams(tmp_path / "ws", max_rounds=1)
    code, _, stderr = run_exec(ws, World().models())
    assert code == 0, stderr
    assert global_exporter.get_finished_spans() == ()
    with trace.get_tracer("app").start_as_current_span("the application's own"):
        pass
    assert [s.name for s in global_exporter.get_finished_spans()] == ["the application's own"]

    telemetry.configure_telemetry(trace.get_tracer_provider())
    code, _, stderr = run_exec(two_teams(tmp_path / "ws2", max_rounds=1), World().models())
    assert code == 0, stderr
    assert len([s for s in global_exporter.get_finished_spans() if s.name == "mixseek.execution"]) == 1


def test_off_spans_cost_nothing_and_leave_the_context_alone() -> None:
    assert not telemetry.enabled()
    outer = trace.get_current_span()
    with telemetry.span("mixseek.member", agent_name="helper") as span:
        assert span is trace.INVALID_SPAN
        assert trace.get_current_span() is outer
        telemetry.record(span, status="SUCCESS")
    assert telemetry.span("mixseek.round") is telemetry.span("mixseek.team_round")  # one shared no-op


@pytest.mark.parametrize(
    ("config_key", "env", "flag", "printed"),
    [
        ("console", None, None, True),
        (None, "console", None, True),
        (None, None, "console", True),
        ("console", None, "off", False),
        ("console", "console", "off", False),
        (None, None, None, False),
    ],
)
def test_otel_flag_wins_over_config_key_and_env(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    config_key: str | None,
    env: str | None,
    flag: str | None,
    printed: bool,
) -> None:
    if env is not None:
        monkeypatch.setenv("MIXSEEK_ORCHESTRATOR__TELEMETRY", env)
    extra = f'telemetry = "{config_key}"' if config_key else ""
    ws = two_teams(tmp_path / "ws", max_rounds=1, extra=extra)
    code, summary, stderr = run_exec(ws, World().models(), *(["--otel", flag] if flag else []))
    assert code == 0, stderr
    assert summary["status"] == "completed"  # stdout stays one JSON document: spans go to stderr
    assert ('"name": "mixseek.execution"' in stderr) is printed
    assert ('"name": "chat leader-alpha"' in stderr) is printed
    assert telemetry.enabled() is printed


def test_missing_sdk_is_one_line_and_starts_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in SDK_MODULES:
        monkeypatch.setitem(sys.modules, name, None)
    ws = two_teams(tmp_path / "ws", max_rounds=1, extra='telemetry = "otlp"')
    code, _, stderr = run_exec(ws, World().models())
    assert code == 2
    assert stderr == (
        f"error: {ws / 'configs' / 'orchestrator.toml'}: orchestrator.telemetry: otlp needs the "
        f"OpenTelemetry SDK and OTLP exporter: {telemetry.INSTALL_OTEL}\n"
    )
    code, _, stderr = run_exec(ws, World().models(), "--otel", "console")
    assert code == 2
    assert stderr == f"error: --otel: console needs the OpenTelemetry SDK: {telemetry.INSTALL_OTEL}\n"
    db = ws / "mixseek.db"
    assert not db.exists() or rows(db, "SELECT count(*) FROM executions") == [(0,)]
    assert not telemetry.enabled()


def test_bad_or_missing_logfire_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "logfire", None)
    ws = two_teams(tmp_path / "ws", max_rounds=1)
    code, _, stderr = run_exec(ws, World().models(), "--otel", "logfire")
    assert (code, stderr) == (2, "error: --otel: logfire needs the logfire package: pip install logfire\n")
    code, _, stderr = run_exec(ws, World().models(), "--otel", "jaeger")
    assert (code, stderr) == (2, "error: --otel: must be one of off, console, otlp, logfire (got 'jaeger')\n")


def test_logfire_mode_configures_logfire_and_its_pydantic_ai_instrumentation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, global_exporter: InMemorySpanExporter
) -> None:
    """logfire is not installed here: a module with its three functions stands in for it (its
    `configure` installs the global provider, as Logfire's does)."""
    calls: list[str] = []
    fake = ModuleType("logfire")
    fake.configure = lambda: calls.append("configure")  # type: ignore[attr-defined]
    fake.instrument_pydantic_ai = lambda: (calls.append("instrument_pydantic_ai"), Agent.instrument_all())  # type: ignore[attr-defined]
    fake.force_flush = lambda: calls.append("force_flush")  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "logfire", fake)
    ws = two_teams(tmp_path / "ws", max_rounds=1)
    code, _, stderr = run_exec(ws, World().models(), "--otel", "logfire")
    assert code == 0, stderr
    assert calls == ["configure", "instrument_pydantic_ai", "force_flush"]
    names = [s.name for s in global_exporter.get_finished_spans()]
    assert names.count("mixseek.execution") == 1 and "chat leader-alpha" in names


def test_where_spans_go_is_not_part_of_the_config_a_resume_compares(tmp_path: Path) -> None:
    ws = two_teams(tmp_path / "ws", max_rounds=1)
    loaded = load_execution_config(Workspace(ws), None)
    on = dataclasses.replace(
        loaded,
        orchestrator=dataclasses.replace(
            loaded.orchestrator,
            value=loaded.orchestrator.value.model_copy(update={"telemetry": "console"}),
        ),
    )
    with override_models(World().models()):
        assert Orchestrator(loaded).config_snapshot()["hash"] == Orchestrator(on).config_snapshot()["hash"]


def test_python_api_switches_spans_on_with_the_orchestrator_setting(
    capsys: pytest.CaptureFixture[str],
) -> None:
    mx = Mixseek(
        [TeamConfig(team_id="solo", team_name="Solo", leader=LeaderAgentConfig(model="test"))],
        orchestrator=OrchestratorSettings(max_rounds=1, telemetry="console"),
        evaluator=EvaluatorSettings(model="test"),
        judgment=JudgmentSettings(model="test"),
    )
    result = mx.run_sync("課題")
    assert result.status == "completed"
    err = capsys.readouterr().err
    assert '"name": "mixseek.execution"' in err
    assert f'"mixseek.execution_id": "{result.execution_id}"' in err


class _Collector(BaseHTTPRequestHandler):
    """An OTLP/HTTP collector that keeps what it is sent."""

    received: list[tuple[str, str, bytes]]

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.server.received.append((self.path, self.headers["Content-Type"], body))  # type: ignore[attr-defined]
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        return


def _scripted_subprocess(ws: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(RUN_SCRIPTED), "exec", "課題", "-w", str(ws), "-f", "json", *args],
        env={**{k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "MIXSEEK_"))}, **env},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_otel_console_prints_spans_from_a_real_process(tmp_path: Path) -> None:
    ws = two_teams(tmp_path / "ws", max_rounds=1)
    proc = _scripted_subprocess(ws, {}, "--otel", "console")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["status"] == "completed"
    for name in ("mixseek.execution", "mixseek.team_round", "mixseek.member", "chat leader-alpha"):
        assert f'"name": "{name}"' in proc.stderr
    assert '"service.name": "mixseek"' in proc.stderr


def test_otel_otlp_posts_traces_to_the_collector_the_env_names(tmp_path: Path) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Collector)
    server.received = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        ws = two_teams(tmp_path / "ws", max_rounds=1)
        env = {
            "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{server.server_address[1]}",
            "OTEL_SERVICE_NAME": "mixseek-test",
            "NO_PROXY": "127.0.0.1",
        }
        proc = _scripted_subprocess(ws, env, "--otel", "otlp")
    finally:
        server.shutdown()
        server.server_close()
    assert proc.returncode == 0, proc.stderr
    received: list[tuple[str, str, bytes]] = server.received  # type: ignore[attr-defined]
    assert received and {(path, kind) for path, kind, _ in received} == {
        ("/v1/traces", "application/x-protobuf")
    }
    names: list[str] = []
    services: set[str] = set()
    for _, _, body in received:
        request = ExportTraceServiceRequest.FromString(body)
        for resource_spans in request.resource_spans:
            services.update(
                a.value.string_value for a in resource_spans.resource.attributes if a.key == "service.name"
            )
            names.extend(s.name for scope in resource_spans.scope_spans for s in scope.spans)
    assert services == {"mixseek-test"}
    assert names.count("mixseek.execution") == 1
    assert names.count("mixseek.team_round") == 2
    assert "chat leader-beta" in names
