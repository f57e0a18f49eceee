"""Benchmark: `UserPromptBuilder.build_team_prompt` latency.

Cases (64 teams on the leaderboard, 10 KB submissions in the history):

- round 1:         no history, the store is not asked (seed 001 §1.2),
- round 10:        9 rounds of 10 KB history, 64-team ranking from an in-memory store,
- round 10 limits: the same with max_submission_history_items=5,
                   submission_preview_chars=200, max_leaderboard_display_teams=10,
- round 10 duckdb: the same as "round 10" with a real AggregationStore (DuckDB file
                   in a temporary directory), when mixseek.storage is importable.

Seed 001 §5 targets: round 1 < 10 ms p95, later rounds < 50 ms p95 (aim: < 1 ms
for the builder itself). Prints a table, then one JSON line:

    {"bench": "prompt_builder", "round1_p95_ms": ..., "round10_p95_ms": ..., ...}

Run: python bench/prompt_builder.py [--calls N] [--teams N] [--rounds N] [--submission-kb N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from mixseek.prompt_builder import LeaderBoardSource, RoundPromptContext, UserPromptBuilder
from mixseek.round_controller.models import RoundState

TARGET_ROUND1_MS = 10.0
TARGET_LATER_MS = 50.0
EXECUTION = "bench-exec"
OWN_TEAM = "team-042"


class MemoryStore:
    def __init__(self, ranking: list[dict[str, Any]]) -> None:
        self.ranking = ranking

    async def get_leader_board_ranking(self, execution_id: str) -> list[dict[str, Any]]:
        return self.ranking


def team_id(index: int) -> str:
    return f"team-{index:03d}"


def score(team: int, round_number: int) -> float:
    return float((team * 37 + round_number * 11) % 1000) / 10.0


def make_history(rounds: int, submission_bytes: int) -> list[RoundState]:
    start = datetime(2025, 11, 19, tzinfo=UTC)
    unit = "提出内容のサンプル。Submission text. "  # mixed ASCII / Japanese
    body = (unit * (submission_bytes // len(unit.encode()) + 1)).encode()[:submission_bytes]
    content = body.decode("utf-8", errors="ignore")
    return [
        RoundState(
            round_number=r,
            submission_content=f"[round {r}] {content}",
            evaluation_score=score(42, r),
            score_details={"正確性": 80.0 + r, "網羅性": 70.0, "構造性": 65.5, "comment": "良い分析です"},
            evaluation_feedback="もっと具体的に",
            round_started_at=start + timedelta(minutes=r),
            round_ended_at=start + timedelta(minutes=r, seconds=30),
        )
        for r in range(1, rounds + 1)
    ]


def make_ranking(teams: int, rounds: int) -> list[dict[str, Any]]:
    entries = [
        {
            "team_id": team_id(t),
            "team_name": f"Team {t}",
            "max_score": max(score(t, r) for r in range(1, rounds + 1)),
            "total_rounds": rounds,
        }
        for t in range(teams)
    ]
    return sorted(entries, key=lambda e: (-e["max_score"], e["team_id"]))


def context(
    round_number: int, history: list[RoundState], store: LeaderBoardSource | None
) -> RoundPromptContext:
    return RoundPromptContext(
        user_prompt="日本の再生可能エネルギー政策の現状と課題を調査し、提言をまとめてください。",
        round_number=round_number,
        round_history=history,
        team_id=OWN_TEAM,
        team_name="Team 42",
        execution_id=EXECUTION,
        store=store,
    )


async def timed(calls: int, op: Callable[[], Awaitable[str]]) -> tuple[list[float], int]:
    prompt = ""
    for _ in range(min(50, calls)):  # warm-up
        prompt = await op()
    samples = []
    for _ in range(calls):
        start = time.perf_counter()
        await op()
        samples.append((time.perf_counter() - start) * 1000)
    return samples, len(prompt)


def percentile(samples: list[float], q: int) -> float:
    return statistics.quantiles(samples, n=100, method="inclusive")[q - 1]


async def duckdb_store(root: Path, teams: int, rounds: int, history: list[RoundState]) -> Any | None:
    """A real AggregationStore filled with teams x rounds, or None if storage is unavailable."""
    try:
        from mixseek.storage import AggregationStore, RoundRecord
    except ImportError:
        return None
    store = AggregationStore(root / "mixseek.db")
    await store.create_execution(EXECUTION, "bench", {})
    for t in range(teams):
        for state in history[:rounds]:
            await store.save_round(
                RoundRecord(
                    execution_id=EXECUTION,
                    team_id=team_id(t),
                    team_name=f"Team {t}",
                    round_number=state.round_number,
                    submission_content=state.submission_content,
                    evaluation_score=score(t, state.round_number),
                    score_details=state.score_details,
                    started_at=state.round_started_at,
                    ended_at=state.round_ended_at,
                )
            )
    return store


async def main() -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--teams", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=10, help="the round whose prompt is built")
    parser.add_argument("--submission-kb", type=int, default=10)
    parser.add_argument("--no-duckdb", action="store_true", help="skip the real-store case")
    args = parser.parse_args()

    done = args.rounds - 1
    history = make_history(done, args.submission_kb * 1024)
    memory = MemoryStore(make_ranking(args.teams, done))
    results: dict[tuple[str, str], tuple[list[float], int]] = {}
    later_label = f"round {args.rounds}"

    with tempfile.TemporaryDirectory() as tmp:
        plain_ws = Path(tmp) / "plain"
        (plain_ws / "configs").mkdir(parents=True)
        limited_ws = Path(tmp) / "limited"
        (limited_ws / "configs").mkdir(parents=True)
        (limited_ws / "configs" / "prompt_builder.toml").write_text(
            "[prompt_builder]\nmax_submission_history_items = 5\nsubmission_preview_chars = 200\n"
            "max_leaderboard_display_teams = 10\n",
            encoding="utf-8",
        )
        builder = UserPromptBuilder(plain_ws)
        limited = UserPromptBuilder(limited_ws)
        first = context(1, [], memory)
        later = context(args.rounds, history, memory)

        results["round 1", "round1"] = await timed(args.calls, lambda: builder.build_team_prompt(first))
        results[later_label, "later"] = await timed(args.calls, lambda: builder.build_team_prompt(later))
        results[f"{later_label} limits", "later_limits"] = await timed(
            args.calls, lambda: limited.build_team_prompt(later)
        )

        store = None if args.no_duckdb else await duckdb_store(Path(tmp), args.teams, done, history)
        if store is not None:
            on_disk = context(args.rounds, history, store)
            results[f"{later_label} duckdb", "later_duckdb"] = await timed(
                min(args.calls, 300), lambda: builder.build_team_prompt(on_disk)
            )
            await store.aclose()

    print(
        f"teams={args.teams} history={done} rounds x {args.submission_kb} KB; "
        f"targets p95: round 1 < {TARGET_ROUND1_MS:g} ms, later < {TARGET_LATER_MS:g} ms"
    )
    print(f"{'case':<18} {'calls':>5} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'prompt chars':>13}")
    for (name, _), (samples, chars) in results.items():
        p50, p95 = percentile(samples, 50), percentile(samples, 95)
        print(f"{name:<18} {len(samples):>5} {p50:>8.3f} {p95:>8.3f} {max(samples):>8.3f} {chars:>13,}")

    line: dict[str, Any] = {"bench": "prompt_builder", "teams": args.teams, "later_round": args.rounds}
    line["submission_kb"] = args.submission_kb
    for (_, key), (samples, _chars) in results.items():
        line[f"{key}_p50_ms"] = round(percentile(samples, 50), 4)
        line[f"{key}_p95_ms"] = round(percentile(samples, 95), 4)
    line["target_round1_p95_ms"] = TARGET_ROUND1_MS
    line["target_later_p95_ms"] = TARGET_LATER_MS
    print(json.dumps(line))


if __name__ == "__main__":
    asyncio.run(main())
