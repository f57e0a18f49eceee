"""History, ranking, position and clock as prompt text; limits, off by default, keep the seed's format."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from mixseek.config.prompt_builder import PromptLanguage
from mixseek.config.timezone import check_timezone_env, timezone_from_env
from mixseek.prompt_builder.texts import PromptTexts, prompt_texts
from mixseek.round_state import RoundState

__all__ = [
    "RANKING_KEYS",
    "check_timezone_env",
    "find_team_position",
    "format_ranking_table",
    "format_submission_history",
    "generate_position_message",
    "get_current_datetime_with_timezone",
    "timezone_from_env",
]

RANKING_KEYS = ("team_id", "team_name", "max_score", "total_rounds")


def _check_limit(name: str, value: int | None) -> None:
    if value is not None and value < 1:
        raise ValueError(f"{name} must be >= 1 or None, got {value}")


def _preview(content: str, preview_chars: int | None, texts: PromptTexts) -> str:
    if preview_chars is None or len(content) <= preview_chars:
        return content
    omitted = len(content) - preview_chars
    return content[:preview_chars] + texts.preview_cut.format(omitted=omitted)


PANEL_KEYS = ("judges", "aggregate")
"""What a judge panel adds to a metric's score_details; the prompt shows the metric without it."""


def _shown_details(details: Mapping[str, Any]) -> dict[str, Any]:
    """score_details as the history shows them: a panel metric without its per-judge entries."""
    return {
        name: (
            {k: v for k, v in value.items() if k not in PANEL_KEYS}
            if isinstance(value, Mapping) and "judges" in value
            else value
        )
        for name, value in details.items()
    }


def _format_round(state: RoundState, preview_chars: int | None, texts: PromptTexts) -> str:
    details = json.dumps(_shown_details(state.score_details), indent=2, ensure_ascii=False)
    return texts.round_block.format(
        round=state.round_number,
        score=state.evaluation_score,
        details=details,
        submission=_preview(state.submission_content, preview_chars, texts),
    )


def format_submission_history(
    round_history: Sequence[RoundState],
    *,
    max_items: int | None = None,
    preview_chars: int | None = None,
    language: PromptLanguage = "ja",
    percent: bool = True,
) -> str:
    """The team's past rounds, one block each (or the empty-case text); `max_items` keeps the last N rounds,
    `preview_chars` cuts each submission, both saying what they left out."""
    _check_limit("max_items", max_items)
    _check_limit("preview_chars", preview_chars)
    texts = prompt_texts(language, percent=percent)
    if not round_history:
        return texts.no_history
    shown = round_history if max_items is None else round_history[-max_items:]
    blocks = [_format_round(state, preview_chars, texts) for state in shown]
    omitted = len(round_history) - len(shown)
    if omitted:
        blocks.insert(0, texts.omitted_rounds.format(omitted=omitted))
    return "\n\n".join(blocks)


def _ranking_entry(entry: Mapping[str, Any], index: int) -> tuple[str, str, float, int]:
    try:
        return (
            str(entry["team_id"]),
            str(entry["team_name"]),
            float(entry["max_score"]),
            int(entry["total_rounds"]),
        )
    except KeyError:
        missing = next(key for key in RANKING_KEYS if key not in entry)
        raise ValueError(f"ranking entry {index} has no {missing!r}") from None


def _ranking_line(rank: int, entry: tuple[str, str, float, int], own: bool, texts: PromptTexts) -> str:
    _, name, score, rounds = entry
    line = texts.own_team_line if own else texts.team_line
    return line.format(rank=rank, name=name, score=score, rounds=rounds)


def format_ranking_table(
    ranking: Sequence[Mapping[str, Any]],
    team_id: str,
    team_name: str,
    *,
    max_teams: int | None = None,
    language: PromptLanguage = "ja",
    percent: bool = True,
) -> str:
    """One line per `ranking` entry, `team_id`'s in bold; `max_teams`: the top N plus the caller's line."""
    _check_limit("max_teams", max_teams)
    texts = prompt_texts(language, percent=percent)
    if not ranking:
        return texts.no_ranking
    entries = [_ranking_entry(entry, i) for i, entry in enumerate(ranking)]
    limit = len(entries) if max_teams is None else min(max_teams, len(entries))
    lines = [_ranking_line(i + 1, e, e[0] == team_id, texts) for i, e in enumerate(entries[:limit])]
    if limit == len(entries):
        return "\n".join(lines)
    own = next((i for i in range(limit, len(entries)) if entries[i][0] == team_id), None)
    if own is None:
        lines.append(texts.omitted_teams.format(omitted=len(entries) - limit))
        return "\n".join(lines)
    if own > limit:
        lines.append(texts.omitted_teams.format(omitted=own - limit))
    lines.append(_ranking_line(own + 1, entries[own], True, texts))
    if own + 1 < len(entries):
        lines.append(texts.omitted_teams.format(omitted=len(entries) - own - 1))
    return "\n".join(lines)


def find_team_position(ranking: Sequence[Mapping[str, Any]], team_id: str) -> int | None:
    """The 1-based rank of `team_id` in an ordered ranking, or None if it is not ranked."""
    for index, entry in enumerate(ranking):
        if entry.get("team_id") == team_id:
            return index + 1
    return None


def generate_position_message(position: int, total_teams: int, *, language: PromptLanguage = "ja") -> str:
    """A message about the team's rank; `ValueError` unless 1 <= position <= total_teams."""
    if total_teams < 1:
        raise ValueError("Invalid total_teams")
    if position < 1 or position > total_teams:
        raise ValueError("Invalid position")
    texts = prompt_texts(language)
    if position == 1:
        return texts.first_place
    line = texts.top_three if position <= 3 else texts.other_place
    return line.format(position=position, total=total_teams)


def get_current_datetime_with_timezone(*, now: datetime | None = None) -> str:
    """Now in $TZ, ISO 8601 with offset and microseconds; `now` replaces the clock; bad $TZ: ValueError."""
    tz = timezone_from_env()
    moment = datetime.now(tz) if now is None else now.astimezone(tz)
    return moment.isoformat(timespec="microseconds")
