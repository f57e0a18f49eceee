"""Benchmark: Bradley–Terry strengths with bootstrap intervals for T teams (a full round robin), mixseek's
fit (`mixseek.stats.bradley_terry`: Newton's method, every bootstrap sample at once, numpy) beside the
one it replaced (minorise–maximise in pure Python, one sample after another; kept here as the baseline).

    python bench/bradley_terry.py [--teams 8,64] [--samples 1000] [--repeat 5] [--baseline-samples 5]

The verdicts are drawn from known strengths (a tenth of them ties). Each bootstrap sample is an
independent fit, so the baseline is timed on `--baseline-samples` samples and its time for `--samples`
extrapolated linearly (at 64 teams one baseline fit takes about a second: 1,000 would take many minutes).
Both give the same strengths: the largest difference of any strength or interval end is printed
(same seed, same bootstrap draws). Prints medians of `--repeat` runs, then one JSON line.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import time
from collections.abc import Sequence

from mixseek.stats.bradley_terry import Comparison, Strength, bradley_terry
from mixseek.stats.resampling import percentile


def baseline_fit(
    items: Sequence[str], comparisons: Sequence[Comparison], prior: float = 1.0
) -> dict[str, float]:
    """The replaced fit: minorise–maximise until no log-strength moves by 1e-9."""
    index = {item: i for i, item in enumerate(items)}
    k = len(items)
    wins = [prior / 2] * k
    games: dict[tuple[int, int], float] = {}
    for c in comparisons:
        a, b = index[c.first], index[c.second]
        wins[a] += c.outcome
        wins[b] += 1.0 - c.outcome
        key = (a, b) if a < b else (b, a)
        games[key] = games.get(key, 0.0) + 1.0
    opponents: list[list[tuple[int, float]]] = [[] for _ in range(k)]
    for (a, b), n in games.items():
        opponents[a].append((b, n))
        opponents[b].append((a, n))
    p = [1.0] * k
    for _ in range(2000):
        updated = [
            wins[i] / (prior / (p[i] + 1.0) + sum(n / (p[i] + p[j]) for j, n in opponents[i]))
            for i in range(k)
        ]
        change = max(abs(math.log(u) - math.log(v)) for u, v in zip(updated, p, strict=True))
        p = updated
        if change < 1e-9:
            break
    logs = [math.log(v) for v in p]
    centre = sum(logs) / k
    return {item: logs[i] - centre for item, i in index.items()}


def baseline(
    items: Sequence[str], comparisons: Sequence[Comparison], samples: int, seed: int = 0
) -> list[Strength]:
    """The replaced bootstrap: `samples` resamples of the comparisons, fitted one after another."""
    point = baseline_fit(items, comparisons)
    draws: dict[str, list[float]] = {item: [] for item in items}
    rng = random.Random(seed)
    for _ in range(samples):
        for item, value in baseline_fit(items, rng.choices(comparisons, k=len(comparisons))).items():
            draws[item].append(value)
    order = sorted(items, key=lambda item: (-point[item], item))
    return [
        Strength(item, point[item], percentile(sorted(draws[item]), 0.025),
                 percentile(sorted(draws[item]), 0.975), rank, 0.0, 0)
        for rank, item in enumerate(order, start=1)
    ]  # fmt: skip


def verdicts(teams: int, seed: int = 1) -> tuple[list[str], list[Comparison]]:
    rng = random.Random(seed)
    names = [f"team-{i:02d}" for i in range(teams)]
    truth = {name: rng.gauss(0.0, 1.0) for name in names}
    games = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            p_a, u = 1 / (1 + math.exp(truth[b] - truth[a])), rng.random()
            games.append(Comparison(a, b, 0.5 if u < 0.1 else 1.0 if u < 0.1 + 0.9 * p_a else 0.0))
    return names, games


def timed(run: object) -> tuple[float, float, list[Strength]]:
    started, cpu_started = time.perf_counter(), time.process_time()
    result = run()  # type: ignore[operator]
    return time.perf_counter() - started, time.process_time() - cpu_started, result


def measure(teams: int, args: argparse.Namespace) -> dict[str, object]:
    names, games = verdicts(teams)
    ours = [timed(lambda: bradley_terry(names, games, samples=args.samples)) for _ in range(args.repeat)]
    theirs = [timed(lambda: baseline(names, games, args.baseline_samples)) for _ in range(args.repeat)]
    per_sample = statistics.median(t[0] for t in theirs) / (args.baseline_samples + 1)
    check = bradley_terry(names, games, samples=args.baseline_samples)
    reference = {s.item: s for s in theirs[0][2]}
    gap = max(
        abs(x - y)
        for a in check
        for x, y in ((a.strength, reference[a.item].strength), (a.low, reference[a.item].low),
                     (a.high, reference[a.item].high))
    )  # fmt: skip
    wall = statistics.median(t[0] for t in ours)
    return {
        "teams": teams,
        "comparisons": len(games),
        "samples": args.samples,
        "wall_s": round(wall, 3),
        "wall_range_s": [round(min(t[0] for t in ours), 3), round(max(t[0] for t in ours), 3)],
        "cpu_s": round(statistics.median(t[1] for t in ours), 3),
        "baseline_wall_s": round(per_sample * (args.samples + 1), 1),
        "speedup": round(per_sample * (args.samples + 1) / wall, 1),
        "max_difference": gap,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--teams", default="8,64")
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--baseline-samples", type=int, default=5)
    args = parser.parse_args()
    rows = [measure(int(t), args) for t in args.teams.split(",") if t.strip()]
    print(f"{args.samples} bootstrap samples, round robin; medians of {args.repeat} runs "
          f"(baseline extrapolated from {args.baseline_samples} samples)")  # fmt: skip
    header = (f"{'T':>4} {'pairs':>6} {'wall s':>8} {'range':>13} {'CPU s':>7} {'baseline s':>11} "
              f"{'speedup':>8} {'max diff':>9}")  # fmt: skip
    print(header)
    print("-" * len(header))
    for r in rows:
        low, high = r["wall_range_s"]  # type: ignore[misc]
        print(f"{r['teams']:>4} {r['comparisons']:>6} {r['wall_s']:>8.3f} {f'{low:.3f}-{high:.3f}':>13} "
              f"{r['cpu_s']:>7.3f} {r['baseline_wall_s']:>11.1f} {r['speedup']:>8.1f} "
              f"{r['max_difference']:>9.1e}")  # fmt: skip
    print(
        json.dumps(
            {"bench": "bradley_terry", "samples": args.samples, "repeat": args.repeat, "results": rows}
        )
    )


if __name__ == "__main__":
    main()
