"""Inter-judge agreement of an execution's judge panels, derived on read from score_details. Krippendorff's
alpha (interval), not an ICC: a failed judge leaves a hole in its round, which alpha takes and the ICC forms
do not."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mixseek.stats.agreement import krippendorff_alpha_interval, spread

DEFAULT_THRESHOLD = 20.0  # the evaluator's default, for snapshots that do not say


def disagreement_threshold(config: Mapping[str, Any]) -> float:
    """The `[evaluator] disagreement_threshold` an execution was started with."""
    evaluator = config.get("evaluator")
    value = evaluator.get("disagreement_threshold") if isinstance(evaluator, Mapping) else None
    return float(value) if isinstance(value, int | float) else DEFAULT_THRESHOLD


def _judges(entry: Any) -> list[Mapping[str, Any]] | None:
    judges = entry.get("judges") if isinstance(entry, Mapping) else None
    if not isinstance(judges, list):
        return None
    return [j for j in judges if isinstance(j, Mapping) and isinstance(j.get("model"), str)]


def _score(judge: Mapping[str, Any]) -> float | None:
    value = judge.get("score")
    return float(value) if isinstance(value, int | float) else None


def panel_agreement(board: Sequence[Mapping[str, Any]], threshold: float) -> dict[str, dict[str, Any]]:
    """Per panel metric: alpha over `board`'s rounds (a failed judge a hole) and those beyond `threshold`."""
    rounds: dict[str, list[tuple[Mapping[str, Any], list[Mapping[str, Any]]]]] = {}
    aggregates: dict[str, str | None] = {}
    for row in sorted(board, key=lambda r: (r["team_id"], r["round_number"])):
        details = row.get("score_details")
        for metric, entry in (details or {}).items():
            judges = _judges(entry)
            if judges is None:
                continue
            rounds.setdefault(metric, []).append((row, judges))
            aggregates.setdefault(metric, entry.get("aggregate"))
    agreement: dict[str, dict[str, Any]] = {}
    for metric, scored in rounds.items():
        models: list[str] = []
        for _, judges in scored:
            models += [j["model"] for j in judges[len(models) :]]
        units: list[list[float | None]] = []
        flagged: list[dict[str, Any]] = []
        for row, judges in scored:
            scores = [_score(j) for j in judges] + [None] * (len(models) - len(judges))
            units.append(scores)
            answered = [s for s in scores if s is not None]
            gap = spread(answered)
            if len(answered) >= 2 and gap > threshold:
                flagged.append(
                    {
                        "team_id": row["team_id"],
                        "round_number": row["round_number"],
                        "spread": round(gap, 2),
                        "scores": scores,
                    }
                )
        agreement[metric] = {
            "judges": models,
            "aggregate": aggregates[metric],
            "submissions": sum(1 for u in units if sum(s is not None for s in u) >= 2),
            "alpha": krippendorff_alpha_interval(units),
            "threshold": threshold,
            "flagged": flagged,
        }
    return agreement
