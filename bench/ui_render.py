"""Benchmark: the dashboard's execution page on a large execution, and its live updates.

Builds a workspace whose store holds one execution of TEAMS x ROUNDS team rounds (default 64 x 10),
written through the real store API the way an execution writes it: each round's start, its saved
submission (a few KB of Markdown) with member answers, per-metric scores and comments, usage and
message history, its judgment, and the model calls of every role. Then it times, through the
dashboard's ASGI app (httpx's ASGITransport: security middleware, a read-only open of the store,
the read, the rendering):

- page:    GET /executions/{id}, the execution page as a reload or another browser gets it: the
           progress checked, the sections kept since the last change reused,
- fresh:   the same, the kept sections dropped before each request: the first view after a
           change (the outline read and every section rendered; the target: p95 <= 100 ms, as
           for page and stream),
- runs:    GET /, the runs page,
- stream:  GET /executions/{id}/stream of the finished execution, kept sections dropped: one
           full update (the progress, the outline, every section rendered as server-sent events)
           and the end.

Before the execution finishes, with the last round under way, it also times `live`: on a real
server (uvicorn on 127.0.0.1), from a team's round being saved to the stream's update that shows
it, poll interval included (the aim: within 1 s).

Prints a table, then one JSON line:

    {"bench": "ui_render", "page_p95_ms": ..., "target_ms": 100, ...}

Run: python bench/ui_render.py [--teams N] [--rounds N] [--runs N] [--live N] [--workspace DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import random
import socket
import statistics
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from mixseek.config.workspace import Workspace
from mixseek.storage import AggregationStore, RoundRecord
from mixseek.storage.models import RoundDecision, RoundKey
from mixseek.ui.app import create_app
from mixseek.ui.pages_execution import Renderings
from mixseek.ui.settings import UISettings

TARGET_MS = 100.0
STANDING = {"team_id", "team_name", "rounds_completed", "best_round", "best_score", "error"}
LIVE_TARGET_MS = 1000.0
EXECUTION_ID = "bench-64x10"
METRICS = ("clarity_coherence", "coverage", "relevance")
MEMBERS = ("researcher", "analyst", "writer")
WORDS = tuple(
    [
        "market",
        "analysis",
        "growth",
        "risk",
        "revenue",
        "customer",
        "segment",
        "pricing",
        "model",
        "strategy",
        "channel",
        "retention",
        "forecast",
        "margin",
        "supply",
        "demand",
        "regulation",
        "competitor",
        "advantage",
        "survey",
        "evidence",
        "scenario",
    ]
)


def team_id(index: int) -> str:
    return f"team-{index:02d}"


def text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


def submission(rng: random.Random, team: str, round_number: int) -> str:
    """A few KB of Markdown, as a leader writes one."""
    sections = [f"# {team}: round {round_number}\n"]
    for heading in ("Summary", "Analysis", "Risks", "Recommendation"):
        bullets = "\n".join(f"- {text(rng, 12)}" for _ in range(4))
        sections.append(f"## {heading}\n\n{text(rng, 80)}.\n\n{bullets}\n")
    sections.append("```python\nprint('forecast', 42)\n```\n")
    return "\n".join(sections)


def usage(tokens: int) -> dict[str, int]:
    return {"requests": 1, "tool_calls": 0, "input_tokens": tokens, "output_tokens": tokens // 8}


def round_record(rng: random.Random, index: int, round_number: int, started: datetime) -> RoundRecord:
    team = team_id(index)
    score = min(100.0, 40.0 + round_number * 4.0 + rng.uniform(0, 20))
    answers = [
        {
            "agent_name": member,
            "agent_type": "plain",
            "content": text(rng, 150),
            "status": "ERROR" if rng.random() < 0.02 else "SUCCESS",
            "error_message": None,
            "usage": usage(900),
            "timestamp": started.isoformat(),
            "execution_time_ms": rng.uniform(800, 4000),
        }
        for member in MEMBERS
    ]
    by_site = {
        f"leader of team '{team}'": usage(2400),
        **{f"member '{m}' of team '{team}'": usage(900) for m in MEMBERS},
    }
    by_site.update({f"evaluator metric '{metric}'": usage(3000) for metric in METRICS})
    messages = [{"kind": "request", "parts": [{"part_kind": "user-prompt", "content": text(rng, 300)}]}]
    return RoundRecord(
        execution_id=EXECUTION_ID,
        team_id=team,
        team_name=f"Team {index:02d}",
        round_number=round_number,
        submission_content=submission(rng, team, round_number),
        submission_format="markdown",
        evaluation_score=round(score, 2),
        evaluation_feedback=text(rng, 60),
        score_details={metric: {"score": round(score, 2), "comment": text(rng, 30)} for metric in METRICS},
        usage_info={
            "team": usage(2400 + 3 * 900),
            "leader": usage(2400),
            "members": usage(3 * 900),
            "evaluation": usage(3 * 3000),
            "by_site": by_site,
        },
        message_history=json.dumps(messages),
        member_submissions_record={
            "team_id": team,
            "team_name": f"Team {index:02d}",
            "round_number": round_number,
            "submissions": answers,
        },
        started_at=started,
        ended_at=started + timedelta(seconds=rng.uniform(20, 90)),
    )


def model_calls(index: int, round_number: int) -> list[dict[str, Any]]:
    team = team_id(index)
    base = {"team_id": team, "round_number": round_number}
    calls = [
        {
            **base,
            "site": f"leader of team '{team}'",
            "model": "openai:gpt-4o",
            "input_tokens": 1200,
            "output_tokens": 300,
            "cost": 0.006,
        },
        {
            **base,
            "site": f"leader of team '{team}'",
            "model": "openai:gpt-4o",
            "input_tokens": 1200,
            "output_tokens": 300,
            "cost": 0.006,
        },
    ]
    calls += [
        {
            **base,
            "site": f"member '{m}' of team '{team}'",
            "model": "openai:gpt-4o-mini",
            "input_tokens": 900,
            "output_tokens": 110,
            "cost": 0.0002,
        }
        for m in MEMBERS
    ]
    calls += [
        {
            **base,
            "site": f"evaluator metric '{metric}'",
            "model": "anthropic:claude-sonnet-4-5",
            "input_tokens": 3000,
            "output_tokens": 375,
            "cost": 0.015,
        }
        for metric in METRICS
    ]
    return calls


class Builder:
    """Writes the execution round by round through the store API, as the orchestrator would."""

    def __init__(self, db: Path, teams: int, rounds: int) -> None:
        self.store = AggregationStore(db)
        self.teams = teams
        self.rounds = rounds
        self.rng = random.Random(12)
        self.start = datetime(2030, 1, 1, 9, 0, tzinfo=UTC)

    def started(self, round_number: int) -> datetime:
        return self.start + timedelta(minutes=2 * round_number)

    async def create(self) -> None:
        config = {"teams": {team_id(i): {"member_dispatch": "selective"} for i in range(self.teams)}}
        await self.store.create_execution(
            EXECUTION_ID, "Write a market-entry strategy. " + text(self.rng, 60), config
        )

    async def save(self, index: int, round_number: int) -> None:
        record = round_record(self.rng, index, round_number, self.started(round_number))
        await self.store.save_round(record, model_calls=model_calls(index, round_number))

    async def judge(self, index: int, round_number: int) -> None:
        last = round_number == self.rounds
        decision = RoundDecision(
            should_continue=not last,
            reason="max_rounds" if last else "judgment",
            reasoning=None if last else text(self.rng, 50),
            confidence=None if last else round(self.rng.uniform(0.5, 0.95), 2),
        )
        await self.store.update_judgment(
            RoundKey(EXECUTION_ID, team_id(index), round_number),
            decision,
            model_calls=[]
            if last
            else [
                {
                    "team_id": team_id(index),
                    "round_number": round_number,
                    "site": "judgment",
                    "model": "openai:gpt-4o-mini",
                    "input_tokens": 2000,
                    "output_tokens": 120,
                    "cost": 0.0004,
                }
            ],
        )

    async def round(self, round_number: int, *, save: bool = True) -> None:
        """Start every team's round; with `save`, save and judge them all too."""
        await self.store.mark_rounds_started(
            EXECUTION_ID, round_number, [team_id(i) for i in range(self.teams)]
        )
        if save:
            await asyncio.gather(*(self.save(i, round_number) for i in range(self.teams)))
            await asyncio.gather(*(self.judge(i, round_number) for i in range(self.teams)))

    async def finish(self) -> None:
        """End the execution with the summary an orchestrator writes (from the rows, here)."""
        view = await self.store.get_execution_view(EXECUTION_ID)
        assert view is not None
        teams = [
            {**team.model_dump(include=STANDING), "status": "completed", "exit_reason": "max_rounds"}
            for team in view.teams
        ]
        summary = {
            "execution_id": EXECUTION_ID,
            "status": "completed",
            "stop_reason": "finished",
            "best": view.best.model_dump(mode="json") if view.best else None,
            "leaderboard": [entry.model_dump() for entry in view.leaderboard],
            "teams": teams,
            "rounds_run": self.rounds,
            "usage": view.usage.model_dump(),
            "usage_by_site": {site: u.model_dump() for site, u in view.usage_by_site.items()},
            "duration_seconds": 120.0 * (self.rounds + 1),
            "degraded_reasons": [],
        }
        ended = self.started(self.rounds + 1)
        await self.store.finish_execution(EXECUTION_ID, "completed", summary, ended_at=ended)
        await self.store.aclose()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(settings: UISettings) -> tuple[uvicorn.Server, threading.Thread]:
    app = create_app(settings)
    gc.freeze()  # as `mixseek ui` does before it serves
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=settings.port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("the dashboard did not start")
        time.sleep(0.01)
    return server, thread


async def follow_grids(url: str, grids: asyncio.Queue[str]) -> None:
    """Put each update's grid in `grids`, following the stream as a browser does: reconnecting
    when a stream ends, with the id of the last update it got."""
    last_id: str | None = None
    async with httpx.AsyncClient(timeout=60) as client:
        while True:
            headers = {"Last-Event-ID": last_id} if last_id else {}
            async with client.stream("GET", url, headers=headers) as response:
                event, data = "", []
                async for line in response.aiter_lines():
                    if line.startswith("event: "):
                        event, data = line.removeprefix("event: "), []
                    elif line.startswith("data: "):
                        data.append(line.removeprefix("data: "))
                    elif line.startswith("id: "):
                        last_id = line.removeprefix("id: ")
                    elif not line and event == "grid":
                        await grids.put("\n".join(data))


def shows_saved(grid: str, team: str, round_number: int) -> bool:
    """Whether the grid shows the team's round as completed."""
    row = grid.split(f'data-team="{team}"', 1)[1].split("</tr>", 1)[0]
    cell = row.split(f'data-round="{round_number}"', 1)[0].rsplit("<td", 1)[1]
    return "cell-completed" in cell


async def live_latency(builder: Builder, root: Path, samples: int) -> list[float]:
    """Milliseconds from a round's save to the stream update showing it, on a real server; the
    last round is under way, and the first `samples` teams save theirs one by one."""
    settings = UISettings(workspace=Workspace(root), port=free_port())
    server, thread = serve(settings)
    last = builder.rounds
    results: list[float] = []
    grids: asyncio.Queue[str] = asyncio.Queue()
    url = f"http://127.0.0.1:{settings.port}/executions/{EXECUTION_ID}/stream"
    follower = asyncio.create_task(follow_grids(url, grids))
    try:
        await grids.get()  # the first update: the page as it is
        for index in range(samples):
            start = time.perf_counter()
            await builder.save(index, last)
            while not shows_saved(await grids.get(), team_id(index), last):
                pass
            results.append((time.perf_counter() - start) * 1000)
    finally:
        follower.cancel()
        server.should_exit = True
        thread.join(timeout=30)
    return results


async def timed(runs: int, op: Callable[[], Awaitable[httpx.Response]]) -> list[float]:
    response = await op()  # first: imports, template compilation
    response.raise_for_status()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        response = await op()
        samples.append((time.perf_counter() - start) * 1000)
        response.raise_for_status()
    return samples


def percentile(samples: list[float], q: int) -> float:
    if len(samples) == 1:
        return samples[0]
    return statistics.quantiles(samples, n=100, method="inclusive")[q - 1]


def summary(samples: list[float]) -> dict[str, float]:
    return {
        "p50_ms": round(statistics.median(samples), 1),
        "p95_ms": round(percentile(samples, 95), 1),
        "max_ms": round(max(samples), 1),
    }


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--teams", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--runs", type=int, default=50, help="timed requests per case")
    parser.add_argument("--live", type=int, default=20, help="rounds saved while a stream listens")
    parser.add_argument(
        "--workspace", type=Path, help="build the workspace here (default: a temporary directory)"
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        root = args.workspace if args.workspace is not None else Path(tmp) / "ws"
        root.mkdir(parents=True, exist_ok=True)
        db = Workspace(root).db_path
        if db.exists():
            db.unlink()
        started = time.perf_counter()
        builder = Builder(db, args.teams, args.rounds)
        await builder.create()
        for round_number in range(1, args.rounds):
            await builder.round(round_number)
        await builder.round(args.rounds, save=False)
        build_s = time.perf_counter() - started
        print(
            f"built {args.teams} teams x {args.rounds - 1} rounds in {build_s:.1f} s "
            f"(round {args.rounds} under way)"
        )

        live = await live_latency(builder, root, min(args.live, args.teams))
        await asyncio.gather(
            *(builder.save(i, args.rounds) for i in range(min(args.live, args.teams), args.teams))
        )
        await asyncio.gather(*(builder.judge(i, args.rounds) for i in range(args.teams)))
        await builder.finish()
        print(f"store: {db.stat().st_size / 1e6:.1f} MB")

        app = create_app(UISettings(workspace=Workspace(root)))
        gc.freeze()  # as `mixseek ui` does before it serves
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as client:
            kept = Renderings()
            app.state.execution_renderings = kept

            def fresh(path: str) -> Callable[[], Awaitable[httpx.Response]]:
                def get() -> Awaitable[httpx.Response]:
                    kept.clear()
                    return client.get(path)

                return get

            page = f"/executions/{EXECUTION_ID}"
            results = {
                "page": await timed(args.runs, lambda: client.get(page)),
                "fresh": await timed(args.runs, fresh(page)),
                "runs": await timed(args.runs, lambda: client.get("/")),
                "stream": await timed(args.runs, fresh(f"{page}/stream")),
            }
            page_kb = len((await client.get(f"/executions/{EXECUTION_ID}")).content) / 1000
        results["live"] = live

    print(f"execution page: {page_kb:.0f} KB of HTML for {args.teams} x {args.rounds} team rounds")
    print(f"{'case':<8} {'n':>4} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}")
    for name, samples in results.items():
        s = summary(samples)
        print(f"{name:<8} {len(samples):>4} {s['p50_ms']:>8.1f} {s['p95_ms']:>8.1f} {s['max_ms']:>8.1f}")
    line: dict[str, Any] = {"bench": "ui_render", "teams": args.teams, "rounds": args.rounds}
    for name, samples in results.items():
        line.update({f"{name}_{key}": value for key, value in summary(samples).items()})
    line.update(target_ms=TARGET_MS, live_target_ms=LIVE_TARGET_MS)
    print(json.dumps(line))


if __name__ == "__main__":
    asyncio.run(main())
