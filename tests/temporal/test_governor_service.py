"""The governor service in-process: admission, budget refusal, slots given back, bad tokens refused."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from pydantic_ai import Agent, RunUsage
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage
from typer.testing import CliRunner

from e2e.db import rows
from e2e.scripted import World, write_workspace
from mixseek.cli.app import app
from mixseek.llm import override_models
from mixseek.llm.governor import Budget, BudgetExceeded, Governor, GovernorUnreachable, ModelLimit
from mixseek.orchestrator.temporal.governor_client import GovernorClient
from mixseek.orchestrator.temporal.governor_service import GovernorService
from mixseek.orchestrator.temporal.messages import GovernorAccess

MODEL = "openai:gpt-x"
OTHER = "openai:other"


def _governor(*, max_requests: int | None = None, concurrent: int = 1) -> Governor:
    return Governor(
        Budget(max_requests=max_requests),
        ModelLimit(concurrent, None),
        {OTHER: ModelLimit(100, None)},
    )


@asynccontextmanager
async def _serving(governor: Governor) -> AsyncIterator[GovernorService]:
    async with GovernorService(governor) as service:
        yield service


async def _settled(client: GovernorClient) -> None:
    """Every message this client sent before has been handled by the service (they go in order)."""
    async with client.admission(OTHER):
        pass


async def test_a_slot_is_shared_by_all_workers_and_freed_when_the_request_ends() -> None:
    async with _serving(_governor(concurrent=1)) as service:
        one, two = GovernorClient(service.access), GovernorClient(service.access)
        try:
            second_in = asyncio.Event()

            async def second() -> None:
                async with two.admission(MODEL):
                    second_in.set()

            async with one.admission(MODEL) as first:
                waiting = asyncio.create_task(second())
                await _settled(two)
                assert not second_in.is_set()  # the other worker's request holds the model's one slot
                first.spent = RunUsage(requests=1, input_tokens=10)
            await waiting  # the first request ended: its slot went to the waiting one
            assert second_in.is_set()
        finally:
            await one.aclose()
            await two.aclose()
    assert service.governor.ledger.total.requests == 1
    assert service.governor.ledger.total.input_tokens == 10


async def test_the_budget_refuses_requests_once_reached_with_the_local_message() -> None:
    governor = _governor(max_requests=2, concurrent=5)
    async with _serving(governor) as service:
        client = GovernorClient(service.access)
        try:
            for _ in range(2):
                async with client.admission(MODEL) as ticket:
                    ticket.spent = RunUsage(requests=1)
            with pytest.raises(BudgetExceeded) as refused:
                async with client.admission(MODEL):
                    pytest.fail("admitted over the budget")
        finally:
            await client.aclose()
    assert str(refused.value) == "budget max_requests = 2 reached (2 spent)"
    assert governor.ledger.total.requests == 2
    # counted towards the budget, not recorded: the workers' rows are what the store keeps
    assert governor.ledger.take_unsaved_rows() == []


async def test_a_dropped_connection_gives_back_the_slots_it_held() -> None:
    async with _serving(_governor(concurrent=1)) as service:
        doomed, other = GovernorClient(service.access), GovernorClient(service.access)
        try:
            admitted = asyncio.Event()
            hang = asyncio.Event()

            async def hold() -> None:
                async with doomed.admission(MODEL):
                    admitted.set()
                    await hang.wait()

            holder = asyncio.create_task(hold())
            await admitted.wait()
            assert doomed._link is not None
            await doomed._link.connection.close()  # the worker process is gone mid-request
            async with other.admission(MODEL):
                pass  # the slot came back
            holder.cancel()
            await asyncio.gather(holder, return_exceptions=True)
        finally:
            await other.aclose()


async def test_a_request_cancelled_while_waiting_takes_no_slot() -> None:
    async with _serving(_governor(concurrent=1)) as service:
        client = GovernorClient(service.access)
        try:
            async with client.admission(MODEL):
                waiting = asyncio.create_task(_enter(client))
                await _settled(client)
                waiting.cancel()
                await asyncio.gather(waiting, return_exceptions=True)
                await _settled(client)
            async with client.admission(MODEL):
                pass  # would wait for ever had the cancelled request been given the slot
        finally:
            await client.aclose()


async def _enter(client: GovernorClient) -> None:
    async with client.admission(MODEL):
        pass


async def test_a_worker_with_another_token_is_refused_and_told_which_service() -> None:
    async with _serving(_governor()) as service:
        access = service.access
        client = GovernorClient(GovernorAccess(address=access.address, token="not-the-token"))
        with pytest.raises(GovernorUnreachable) as refused:
            async with client.admission(MODEL):
                pytest.fail("admitted with a bad token")
    assert str(refused.value) == (
        f"the governor service at {access.address} refused this worker (HTTP 401: not this execution's token)"
    )
    assert service.admitted == 0


async def test_an_unreachable_service_is_named_in_the_error() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens there
    address = f"ws://127.0.0.1:{port}"
    client = GovernorClient(GovernorAccess(address=address, token="t"))
    with pytest.raises(GovernorUnreachable, match=f"^cannot reach the governor service at {address} "):
        async with client.admission(MODEL):
            pytest.fail("admitted without a service")


async def test_governed_models_of_a_worker_ask_the_service_and_keep_their_own_rows() -> None:
    authority = _governor(max_requests=3, concurrent=5)

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart("ok")], usage=RequestUsage(input_tokens=7, output_tokens=3))

    async with _serving(authority) as service:
        worker = _governor(concurrent=5)  # no budget of its own: the service's decides
        client = GovernorClient(service.access)
        worker.authority = client
        agent = Agent(worker.wrap(FunctionModel(answer), MODEL, "leader"))
        try:
            for _ in range(3):
                await agent.run("go")
            with pytest.raises(BudgetExceeded, match="max_requests = 3 reached"):
                await agent.run("go")
        finally:
            await client.aclose()
    assert authority.ledger.total.requests == 3
    assert authority.ledger.total.input_tokens == 21
    rows = worker.ledger.take_unsaved_rows()
    assert [(r["site"], r["requests"], r["input_tokens"]) for r in rows] == [("leader", 1, 7)] * 3


async def test_the_service_listens_where_it_is_told() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    async with GovernorService(_governor(), listen=f"127.0.0.1:{port}") as service:
        assert service.access.address == f"ws://127.0.0.1:{port}"


def test_governor_listen_is_only_for_the_temporal_engine(tmp_path: Path, runner: CliRunner) -> None:
    ws = write_workspace(tmp_path / "ws")
    with override_models(World().models()):
        result = runner.invoke(app, ["exec", "task", "-w", str(ws), "--governor-listen", "127.0.0.1:0"])
    assert result.exit_code == 2
    assert result.stderr.strip() == "error: --governor-listen: only with --engine temporal"


@pytest.mark.parametrize("listen", ["nowhere", "127.0.0.1:99999", "in-use"])
def test_a_governor_address_that_cannot_be_listened_on_is_refused_before_anything_starts(
    tmp_path: Path, runner: CliRunner, listen: str
) -> None:
    ws = write_workspace(tmp_path / "ws")
    with socket.create_server(("127.0.0.1", 0)) as taken:
        if listen == "in-use":
            listen = f"127.0.0.1:{taken.getsockname()[1]}"
        with override_models(World().models()):
            result = runner.invoke(
                app, ["exec", "task", "-w", str(ws), "--engine", "temporal", "--governor-listen", listen]
            )
    assert result.exit_code == 2
    line = result.stderr.strip()
    if ":" not in listen or listen.endswith("99999"):
        assert line == f"error: --governor-listen: {listen!r}: expected HOST:PORT"
    else:
        assert line.startswith(f"error: --governor-listen: cannot listen on {listen} ("), line
    assert not (ws / "mixseek.db").exists() or rows(ws / "mixseek.db", "SELECT count(*) FROM executions") == [
        (0,)
    ]
