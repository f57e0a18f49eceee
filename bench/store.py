"""Benchmark: leaderboard ranking latency on a large store.

Builds a database of EXECUTIONS x TEAMS x ROUNDS leader_board rows (default
1,000 x 64 x 10 = 640k) with set-based SQL, then times
`AggregationStore.get_leader_board_ranking` on random executions:

- warm:     the default store; back-to-back calls reuse the connection,
- cold:     idle_close_seconds=0, so every call opens and closes the file,
- barrier:  `max_round=ROUNDS` as the round controller asks it; no later
            round is on the board, so the team_standings summary answers,
- snapshot: `max_round=ROUNDS - 1`: later rounds are on the board, so the
            store aggregates leader_board directly (shows why the summary
            exists),
- typed:    `get_ranking`, the same ranking as `RankingEntry` values,
- view:     `get_execution_view`, everything `mixseek runs show` prints of
            one execution (TEAMS x ROUNDS rounds, read in one snapshot).

It also times one `save_round` into the large file, including the close.
Prints a table, then one JSON line (for the warm case, the target):

    {"bench": "store", "p50_ms": ..., "p95_ms": ..., "rows": ..., "target_ms": 5}

Run: python bench/store.py [--executions N] [--teams N] [--rounds N] [--calls N] [--db PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import random
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from mixseek.storage import AggregationStore, RoundRecord

TARGET_MS = 5.0


def execution_id(index: int) -> str:
    """The id of the index-th generated execution (the same hex digest SQL builds below)."""
    return hashlib.md5(f"exec-{index}".encode()).hexdigest()


def populate(path: Path, executions: int, teams: int, rounds: int) -> int:
    """Fill leader_board and executions in two INSERT ... SELECT statements; returns the row count."""
    conn = duckdb.connect(str(path))
    try:
        conn.execute(
            """
            INSERT INTO executions (execution_id, user_prompt, status, config, started_at, ended_at, summary)
            SELECT md5('exec-' || e), 'benchmark prompt ' || e, 'completed', '{}',
                   TIMESTAMPTZ '2025-01-01' + to_seconds(e * 60),
                   TIMESTAMPTZ '2025-01-01' + to_seconds(e * 60 + 30),
                   '{"best": 0}'
            FROM range(?) AS t(e)
            """,
            [executions],
        )
        conn.execute(
            """
            INSERT INTO leader_board (execution_id, team_id, team_name, round_number, evaluation_score,
                                      evaluation_feedback, score_details, submission_content, usage_info)
            SELECT md5('exec-' || e), 'team-' || lpad(t::TEXT, 3, '0'), 'Team ' || t, r::INTEGER,
                   (hash(e, t, r) % 2001) / 20.0,
                   'feedback for round ' || r, '{"clarity": 80, "coverage": 70}',
                   'submission of team ' || t || ' in round ' || r, '{"requests": 3, "input_tokens": 1200}'
            FROM range(?) AS a(e), range(?) AS b(t), range(1, ? + 1) AS c(r)
            ORDER BY e, r, t
            """,
            [executions, teams, rounds],
        )
        row = conn.execute("SELECT count(*) FROM leader_board").fetchone()
        return int(row[0]) if row else 0
    finally:
        conn.close()


async def timed(calls: int, executions: int, op: Callable[[str], Awaitable[object]]) -> list[float]:
    rng = random.Random(7)
    samples = []
    for _ in range(calls):
        target = execution_id(rng.randrange(executions))
        start = time.perf_counter()
        await op(target)
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def percentile(samples: list[float], q: float) -> float:
    return statistics.quantiles(samples, n=100, method="inclusive")[int(q) - 1]


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--executions", type=int, default=1000)
    parser.add_argument("--teams", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--db", type=Path, help="build the database here (default: a temporary directory)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        path = args.db if args.db is not None else Path(tmp) / "bench.db"
        if path.exists():
            path.unlink()
        start = time.perf_counter()
        builder = AggregationStore(path, idle_close_seconds=0)
        await builder.initialize()
        rows = populate(path, args.executions, args.teams, args.rounds)
        await builder.rebuild_standings()
        build_s = time.perf_counter() - start
        size_mb = path.stat().st_size / 1e6
        print(f"built {rows:,} leader_board rows in {build_s:.1f} s ({size_mb:.0f} MB)")

        warm = AggregationStore(path)
        await warm.get_leader_board_ranking(execution_id(0))  # first open: catalog and index load
        results = {"warm": await timed(args.calls, args.executions, warm.get_leader_board_ranking)}
        warm_opens = warm.connections_opened
        cold = AggregationStore(path, idle_close_seconds=0)
        results["cold"] = await timed(min(args.calls, 50), args.executions, cold.get_leader_board_ranking)

        async def barrier(target: str) -> object:
            return await warm.get_leader_board_ranking(target, max_round=args.rounds)

        async def snapshot(target: str) -> object:
            return await warm.get_leader_board_ranking(target, max_round=args.rounds - 1)

        results["barrier"] = await timed(args.calls, args.executions, barrier)
        results["snapshot"] = await timed(args.calls, args.executions, snapshot)
        results["typed"] = await timed(args.calls, args.executions, warm.get_ranking)
        results["view"] = await timed(min(args.calls, 50), args.executions, warm.get_execution_view)

        now = datetime.now(UTC)
        record = RoundRecord(
            execution_id=execution_id(1),
            team_id="team-new",
            team_name="New Team",
            round_number=1,
            submission_content="x" * 2000,
            evaluation_score=50.0,
            message_history="[]",
            started_at=now,
            ended_at=now,
        )
        writer = AggregationStore(path, idle_close_seconds=0)
        start = time.perf_counter()
        await writer.save_round(record)
        save_ms = (time.perf_counter() - start) * 1000
        warm.close()

    print(f"{'case':<9} {'calls':>5} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}")
    for name, samples in results.items():
        p50, p95 = percentile(samples, 50), percentile(samples, 95)
        print(f"{name:<9} {len(samples):>5} {p50:>8.2f} {p95:>8.2f} {max(samples):>8.2f}")
    print(f"warm store opened the file {warm_opens} time(s); save_round incl. open+close: {save_ms:.1f} ms")
    warm_samples = results["warm"]
    line = {
        "bench": "store",
        "p50_ms": round(percentile(warm_samples, 50), 3),
        "p95_ms": round(percentile(warm_samples, 95), 3),
        "rows": rows,
        "target_ms": TARGET_MS,
    }
    print(json.dumps(line))


if __name__ == "__main__":
    asyncio.run(main())
