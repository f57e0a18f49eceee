"""One mixseek-core round as this mixseek stores it: score, per-metric `{name: {"score", "comment"}}`,
judgment (exit reasons renamed), member answers, and the usage of the leader's responses and each member's
answer (model `unknown`; evaluator and judgment usage was not recorded)."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError

from mixseek.migrate.report import Report
from mixseek.migrate.settings import METRIC_NAMES
from mixseek.storage.import_history import ModelCallUsage
from mixseek.storage.models import RoundRecord, as_utc

_EXIT_REASONS = {"max_rounds_reached": "max_rounds", "no_improvement_expected": "judgment"}
UNKNOWN_MODEL = "unknown"

Row = dict[str, Any]


def _json(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return None
    return value


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _score_details(details: Any) -> tuple[dict[str, Any], str | None]:
    """mixseek-core's `{"metrics": [{"metric_name", "score", "evaluator_comment"}]}` as this
    mixseek's `{name: {"score", "comment"}}`, and the feedback text built from it."""
    metrics = details.get("metrics") if isinstance(details, Mapping) else None
    if not isinstance(metrics, list):
        return {}, None
    out: dict[str, Any] = {}
    for m in metrics:
        legacy_name = m.get("metric_name") if isinstance(m, Mapping) else None
        if isinstance(legacy_name, str):
            name = METRIC_NAMES.get(legacy_name, legacy_name)
            out[name] = {"score": m.get("score"), "comment": m.get("evaluator_comment")}
    feedback = "\n".join(f"[{n}] {v['comment']}" for n, v in out.items() if v["comment"]) or None
    return out, feedback


def _leader_usage(messages: Any) -> tuple[int, int, int, str]:
    """(requests, input tokens, output tokens, model) summed over the leader's model responses."""
    requests = tokens_in = tokens_out = 0
    model = UNKNOWN_MODEL
    for message in messages if isinstance(messages, list) else []:
        if not isinstance(message, Mapping) or message.get("kind") != "response":
            continue
        requests += 1
        usage = _mapping(message.get("usage"))
        tokens_in += _int(usage.get("input_tokens", usage.get("request_tokens")))
        tokens_out += _int(usage.get("output_tokens", usage.get("response_tokens")))
        if isinstance(message.get("model_name"), str) and message["model_name"]:
            model = message["model_name"]
    return requests, tokens_in, tokens_out, model


def _member_record(record: Any, team_id: str, team_name: str, round_number: int) -> dict[str, Any]:
    """The member answers in this mixseek's stored form (without mixseek-core's derived fields)."""
    keys = (
        "agent_name",
        "agent_type",
        "content",
        "status",
        "error_message",
        "usage",
        "timestamp",
        "execution_time_ms",
    )
    return {
        "team_id": team_id,
        "team_name": team_name,
        "round_number": round_number,
        "submissions": [{k: s[k] for k in keys if k in s} for s in _submissions(record)],
    }


def _submissions(record: Any) -> list[Mapping[str, Any]]:
    submissions = record.get("submissions") if isinstance(record, Mapping) else None
    return [s for s in submissions or [] if isinstance(s, Mapping)]


def _usage(team_id: str, number: int, history: Row | None, board: Row, at: datetime) -> list[ModelCallUsage]:
    """The leader's and each member's usage in one round, as model_calls rows."""
    calls = []
    messages = _json(history.get("message_history")) if history else None
    requests, tokens_in, tokens_out, model = _leader_usage(messages)
    if not requests:  # early releases kept the leader's usage on the board
        info = _json(board.get("usage_info"))
        info = info if isinstance(info, Mapping) else {}
        requests, tokens_in, tokens_out = (
            _int(info.get(k)) for k in ("requests", "input_tokens", "output_tokens")
        )
    if requests or tokens_in or tokens_out:
        site = f"leader of team '{team_id}'"
        calls.append(ModelCallUsage(team_id, number, site, model, requests, tokens_in, tokens_out, at))
    record = _json(history.get("member_submissions_record")) if history else None
    per_member: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for s in _submissions(record):
        if isinstance(s.get("agent_name"), str):
            usage = _mapping(s.get("usage"))
            totals = per_member[s["agent_name"]]
            for i, key in enumerate(("requests", "input_tokens", "output_tokens")):
                totals[i] += _int(usage.get(key))
    for name, (req, t_in, t_out) in per_member.items():
        if req or t_in or t_out:
            site = f"member '{name}' of team '{team_id}'"
            calls.append(ModelCallUsage(team_id, number, site, UNKNOWN_MODEL, req, t_in, t_out, at))
    return calls


def _judgment(status: Row, team_exit: str | None) -> dict[str, Any]:
    """A round's decision: its `round_status` judgment, on a team's last round its exit reason."""
    last = team_exit is not None
    judged = status.get("should_continue") is not None
    should_continue = bool(status["should_continue"]) if judged else (None if last else True)
    if team_exit:
        should_continue = False
    confidence = status.get("confidence_score")
    if confidence is not None and not 0.0 <= float(confidence) <= 1.0:
        confidence = None
    return {
        "should_continue": should_continue,
        "judgment_reasoning": status.get("reasoning"),
        "judgment_confidence": confidence,
        "exit_reason": _EXIT_REASONS.get(team_exit, team_exit) if team_exit else None,
    }


@dataclass
class RoundReader:
    report: Report
    label: str
    scale: float = 1.0

    def score(self, board: Row) -> float:
        """The round's score as mixseek-core stored it, on any scale (a 0–1 run's times `scale`: 0–100)."""
        return float(board.get("score", board.get("evaluation_score")) or 0.0) * self.scale

    def round(
        self, eid: str, board: Row, history: Row | None, status: Row | None, team_exit: str | None
    ) -> tuple[RoundRecord, list[ModelCallUsage], bool] | None:
        """One scored round (None, reported, if it cannot be stored); `team_exit`: the team's exit reason."""
        team_id, number = board["team_id"], int(board["round_number"])
        team_name = board.get("team_name") or team_id
        status = status or {}
        ended = (
            stored_time(status.get("round_ended_at"))
            or stored_time(board.get("created_at"))
            or datetime.now(UTC)
        )
        started = stored_time(status.get("round_started_at")) or ended
        usage = _usage(team_id, number, history, board, ended)
        details, feedback = _score_details(_json(board.get("score_details")))
        record_json = _json(history.get("member_submissions_record")) if history else None
        try:
            record = RoundRecord(
                execution_id=eid,
                team_id=team_id,
                team_name=team_name,
                round_number=number,
                submission_content=board.get("submission_content") or "",
                submission_format=board.get("submission_format") or "md",
                evaluation_score=self.score(board),
                evaluation_feedback=board.get("evaluation_feedback") or feedback,
                score_details=details,
                usage_info={
                    "team": {
                        "requests": sum(c.requests for c in usage),
                        "input_tokens": sum(c.input_tokens for c in usage),
                        "output_tokens": sum(c.output_tokens for c in usage),
                    }
                },
                message_history=history.get("message_history") if history else None,
                member_submissions_record=_member_record(record_json, team_id, team_name, number),
                started_at=started,
                ended_at=ended,
                **_judgment(status, team_exit),
            )
        except ValidationError as exc:
            problem = exc.errors()[0]
            field_name = ".".join(str(p) for p in problem["loc"])
            reason = f"team {team_id} round {number}: not imported ({field_name}: {problem['msg']})"
            self.report.drop(self.label, f"execution {eid}", reason)
            return None
        return record, usage, bool(board.get("final_submission"))


def stored_time(value: Any) -> datetime | None:
    """A stored time (a TIMESTAMP, or ISO text), in UTC; None when there is none."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return None
    return as_utc(value) if isinstance(value, datetime) else None


def when(value: Any) -> datetime:
    return stored_time(value) or datetime.min.replace(tzinfo=UTC)


def best_rounds(records: list[RoundRecord]) -> frozenset[tuple[str, int]]:
    """Each team's best round (the later one on a tie), as this mixseek marks the final one."""
    best: dict[str, RoundRecord] = {}
    for r in records:
        if r.team_id not in best or (r.evaluation_score, r.round_number) >= (
            best[r.team_id].evaluation_score,
            best[r.team_id].round_number,
        ):
            best[r.team_id] = r
    return frozenset((r.team_id, r.round_number) for r in best.values())
