"""The plain-text layout of one stored execution: `runs show` (text)."""

from __future__ import annotations

from mixseek.cli.runs_export import (
    LEADERBOARD_HEADERS,
    SITE_HEADERS,
    judgment_text,
    leaderboard_rows,
    metric_rows,
    one_line,
    site_rows,
    status_text,
    steps_text,
    team_heading,
    usage_text,
)
from mixseek.cli.text_layout import columns, score_text, when
from mixseek.report import pairwise as pairwise_rows
from mixseek.report.agreement import AGREEMENT_HEADER, AGREEMENT_TITLE, agreement_rows, flagged_lines
from mixseek.report.content import without_controls
from mixseek.storage.pairwise_views import PairwiseView
from mixseek.storage.views import ExecutionView, TeamView

SHOWN_COMPARISONS = 30  # `runs show` lists up to this many comparisons; `runs export` all


def _team_lines(team: TeamView, out_of: str) -> list[str]:
    parts = [team.status_words, f"{team.rounds_completed} round(s) scored"]
    if team.best_round is not None:
        parts.append(f"best round {team.best_round} ({score_text(team.best_score)})")
    if team.exit_reason:
        parts.append(f"stopped because {team.exit_reason}")
    if team.error:
        parts.append(f"error: {one_line(team.error)}")
    lines = [f"team {team_heading(team)}: {', '.join(parts)}"]
    for r in team.rounds:
        state = "" if r.status == "completed" else f" [{r.status}]"
        final = " (final)" if r.is_final else ""
        lines.append(f"  round {r.round_number}: {score_text(r.score)}{out_of}{final}{state}")
        if r.error:
            lines.append(f"    error: {one_line(r.error)}")
        if r.metrics:
            rows = [row for name, m in r.metrics.items() for row in metric_rows(name, m)]
            lines += columns([["metric", "score", "comment"], *rows], indent="    ")
        lines.append(f"    judgment: {one_line(judgment_text(r.judgment))}")
        lines.append(f"    members: {r.members.succeeded} succeeded, {r.members.failed} failed")
        steps = steps_text(r.member_submissions)
        if steps:
            lines.append(f"    steps: {steps}")
    return lines


def _pairwise_lines(pairwise: PairwiseView) -> list[str]:
    """The pairwise ranking beside the score ranking: standings, then each comparison."""
    lines = [f"pairwise ranking: {pairwise_rows.heading(pairwise)}"]
    standings = pairwise_rows.standing_rows(pairwise)
    if standings:
        lines += columns([pairwise_rows.STANDING_HEADERS, *standings], indent="  ")
    comparisons = pairwise_rows.comparison_rows(pairwise)
    if comparisons and len(comparisons) <= SHOWN_COMPARISONS:
        lines += columns([pairwise_rows.COMPARISON_HEADERS, *comparisons], indent="  ")
    elif comparisons:
        lines.append(f"  {len(comparisons)} comparisons (all of them in 'mixseek runs export')")
    if controlled := pairwise_rows.standing_rows(pairwise, controlled=True):
        lines.append(f"  {pairwise_rows.CONTROLLED_TITLE.lower()}:")
        lines += columns([pairwise_rows.STANDING_HEADERS, *controlled], indent="    ")
    bias = pairwise_rows.bias_lines(pairwise)
    return lines + (["  judge bias:", *(f"    {b}" for b in bias)] if bias else [])


def show_lines(view: ExecutionView) -> list[str]:
    view = without_controls(view)
    prompt_lines = view.user_prompt.splitlines() or [""]
    lines = [
        f"execution {view.execution_id}: {status_text(view)}",
        *([view.demo_model_note] if view.demo_model_note else []),
        f"prompt: {prompt_lines[0]}",
        *(f"  {line}" for line in prompt_lines[1:]),
        f"started {when(view.started_at)} UTC, duration {view.duration_seconds:.1f} s, "
        f"{view.rounds_run} round(s)",
        "",
        "leaderboard",
    ]
    if view.leaderboard:
        lines += columns([LEADERBOARD_HEADERS, *leaderboard_rows(view.leaderboard)], indent="  ")
    else:
        lines.append("  no team has completed a round")
    if view.pairwise is not None:
        lines += ["", *_pairwise_lines(view.pairwise)]
    for team in view.teams:
        lines += ["", *_team_lines(team, view.out_of)]
    best = view.best
    lines.append("")
    if best:
        lines += [
            f"winning submission: {best.team_name} ({best.team_id}), round {best.round_number}, "
            f"score {score_text(best.score)}{view.out_of}",
            best.content,
        ]
    else:
        lines.append("no winning submission")
    if view.agreement:
        lines += ["", AGREEMENT_TITLE]
        lines += columns([AGREEMENT_HEADER, *agreement_rows(view)], indent="  ")
        lines += [f"  flagged: {line}" for line in flagged_lines(view)]
    lines += ["", f"usage: {usage_text(view.usage)}"]
    if view.usage_by_site:
        lines += columns([SITE_HEADERS, *site_rows(view)], indent="  ")
    return lines
