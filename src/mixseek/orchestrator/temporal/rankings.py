"""A worker's copy of each round's ranking, asked of the workflow by a query once per round. Inputs carry no
ranking (they grew as T², past gRPC's 4 MB at 256 teams); a round's activities on a worker share one query."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from datetime import timedelta
from typing import Any

from temporalio import activity
from temporalio.client import WorkflowHandle, WorkflowQueryFailedError
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError

from mixseek.errors import describe_exception
from mixseek.orchestrator.temporal.messages import (
    GOVERNOR_UNREACHABLE,
    RANKING_QUERY,
    RankingAsk,
    workflow_id,
)

# the queries one round of a few executions needs; an older one is asked again if ever needed
KEPT = 32
# the `mixseek exec` process answers it (it runs the workflow): past this, it is taken for gone
QUERY_TIMEOUT = timedelta(seconds=60)

Ranking = list[dict[str, Any]]
_Key = tuple[str, int]


class Rankings:
    """`await rankings.get(execution_id, round_number)` inside a team round."""

    def __init__(self) -> None:
        self._asked: OrderedDict[_Key, asyncio.Task[Ranking]] = OrderedDict()

    async def get(self, execution_id: str, round_number: int) -> Ranking:
        """The ranking of the workflow running this activity; a failed ask is asked again next time."""
        key = (execution_id, round_number)
        asked = self._asked.get(key)
        if asked is None:
            info = activity.info()
            handle = activity.client().get_workflow_handle(
                info.workflow_id or workflow_id(execution_id), run_id=info.workflow_run_id
            )
            asked = asyncio.create_task(_ask(handle, RankingAsk(round_number=round_number)))
            asked.add_done_callback(lambda task: self._forget_failed(key, task))
            self._asked[key] = asked
            while len(self._asked) > KEPT:
                self._asked.popitem(last=False)
        self._asked.move_to_end(key)
        # one activity cancelled (its worker lost the heartbeat) leaves the query to the others
        return await asyncio.shield(asked)

    def _forget_failed(self, key: _Key, task: asyncio.Task[Ranking]) -> None:
        if (task.cancelled() or task.exception() is not None) and self._asked.get(key) is task:
            del self._asked[key]


async def _ask(handle: WorkflowHandle[Any, Any], ask: RankingAsk) -> Ranking:
    try:
        ranking: Ranking = await handle.query(
            RANKING_QUERY, ask, result_type=Ranking, rpc_timeout=QUERY_TIMEOUT
        )
    except WorkflowQueryFailedError as exc:
        # the workflow is past the round's team rounds: this attempt's result would be ignored
        raise ApplicationError(f"worker: {exc}", type="RankingGone", non_retryable=True) from None
    except RPCError as exc:
        # as when its governor service is unreachable: the workflow waits for a resumed `exec`
        raise ApplicationError(
            f"worker: cannot ask workflow {handle.id} for round {ask.round_number}'s ranking "
            f"({describe_exception(exc)})",
            type=GOVERNOR_UNREACHABLE,
        ) from None
    return ranking
