"""One stored execution as a Markdown report, and the text helpers `runs show` shares with it."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mixseek.cli.text_layout import score_text
from mixseek.report import pairwise as pairwise_rows
from mixseek.report.agreement import AGREEMENT_HEADER, agreement_rows, flagged_lines
from mixseek.report.content import without_controls
from mixseek.report.markdown_escape import Trusted, code_block, code_span, inline, table
from mixseek.storage.views import (
    ExecutionView,
    MemberAnswer,
    MetricScore,
    RankingEntry,
    RoundJudgment,
    RoundView,
    TeamView,
    UsageTotals,
)


def line(value: object) -> str:
    """Text for one line of the report (a heading, a list item): on one line, and inert."""
    return inline(one_line(value))


def judgment_text(judgment: RoundJudgment) -> str:
    if judgment.should_continue is None:
        return "none"
    text = "continue" if judgment.should_continue else "stop"
    details = [judgment.exit_reason] if judgment.exit_reason else []
    if judgment.confidence is not None:
        details.append(f"confidence {judgment.confidence:.2f}")
    if details:
        text += f" ({', '.join(details)})"
    return text + (f": {judgment.reasoning}" if judgment.reasoning else "")


def one_line(text: object) -> str:
    """`text` with every run of whitespace, line breaks included, as one space."""
    return " ".join(str(text).split()) if text is not None else ""


def status_text(view: ExecutionView) -> str:
    """The status and why it stopped, each said once, and why the run is degraded."""
    reasons = view.degraded_reasons
    return view.status_words + (f" — degraded: {'; '.join(reasons)}" if reasons else "")


def usage_text(usage: UsageTotals) -> str:
    """Usage totals as "N requests, X input + Y output tokens"."""
    return f"{usage.requests} requests, {usage.input_tokens} input + {usage.output_tokens} output tokens"


def team_heading(team: TeamView, text: Callable[[object], str] = str) -> str:
    """`Name (id)`, and the team's kind unless selective (or unknown); `text` writes each part."""
    kind = f" [{text(team.kind)}]" if team.kind not in (None, "selective") else ""
    return f"{text(team.team_name)} ({text(team.team_id)}){kind}"


def steps_text(answers: Sequence[MemberAnswer]) -> str | None:
    """A workflow round's executors by step: `research (researcher), drafts (draft_a: failed)`."""
    steps: dict[str, list[str]] = {}
    for answer in answers:
        if answer.step_id is not None:
            mark = "" if answer.succeeded else ": failed"
            steps.setdefault(answer.step_id, []).append(f"{answer.agent_name}{mark}")
    if not steps:
        return None
    return ", ".join(f"{step} ({', '.join(names)})" for step, names in steps.items())


def metric_rows(name: str, metric: MetricScore) -> list[list[str]]:
    """A metric's row (metric, score, comment); a panel's is followed by a row per judge."""
    if metric.judges is None:
        return [[name, score_text(metric.score), one_line(metric.comment)]]
    rows = [[name, score_text(metric.score), f"{metric.aggregate} of {len(metric.judges)} judges"]]
    for judge in metric.judges:
        said = judge.comment if judge.error is None else f"failed: {judge.error}"
        rows.append([f"  {judge.model}", score_text(judge.score), one_line(said)])
    return rows


LEADERBOARD_HEADERS = ["#", "team", "best score", "rounds"]
SITE_HEADERS = ["site", "requests", "input tokens", "output tokens"]


def leaderboard_rows(ranking: Sequence[RankingEntry]) -> list[list[str]]:
    return [
        [str(i), f"{e.team_name} ({e.team_id})", score_text(e.max_score), str(e.total_rounds)]
        for i, e in enumerate(ranking, start=1)
    ]


def site_rows(view: ExecutionView) -> list[list[str]]:
    return [
        [site, str(u.requests), str(u.input_tokens), str(u.output_tokens)]
        for site, u in view.usage_by_site.items()
    ]


def _metric_rows(name: str, metric: MetricScore) -> Sequence[Sequence[object]]:
    """A metric's table row; a judge panel's is followed by a row per judge."""
    if metric.judges is None:
        return [[name, score_text(metric.score), metric.comment]]
    return metric_rows(name, metric)


def _agreement_section(view: ExecutionView) -> list[str]:
    """Judge panels' agreement and the rounds their judges disagreed on; nothing without panels."""
    if not view.agreement:
        return []
    rows = [[*row[:-1], Trusted(row[-1])] for row in agreement_rows(view)]  # "1 (spread > 20)"
    out = ["## Judge agreement", "", "Krippendorff's alpha (interval data).", ""]
    out += [*table(AGREEMENT_HEADER, rows), ""]
    flagged = flagged_lines(view)
    out += [*(f"- flagged: {line(text)}" for text in flagged), ""] if flagged else []
    return out


def _pairwise_markdown(view: ExecutionView) -> list[str]:
    """The pairwise ranking, each comparison, and the judge's reasons in both orders."""
    pairwise = view.pairwise
    if pairwise is None:
        return []
    out = ["## Pairwise ranking", "", line(pairwise_rows.heading(pairwise)), ""]
    if pairwise.ranking:
        out += [*table(pairwise_rows.STANDING_HEADERS, pairwise_rows.standing_rows(pairwise)), ""]
    if controlled := pairwise_rows.standing_rows(pairwise, controlled=True):
        out += [
            f"### {pairwise_rows.CONTROLLED_TITLE}",
            "",
            *table(pairwise_rows.STANDING_HEADERS, controlled),
            "",
        ]
    if pairwise.comparisons:
        rows = [
            [*row, c.reasoning_a_first, c.reasoning_b_first]
            for row, c in zip(pairwise_rows.comparison_rows(pairwise), pairwise.comparisons, strict=True)
        ]
        headers = [*pairwise_rows.COMPARISON_HEADERS, "reason (a first)", "reason (b first)"]
        out += [*table(headers, rows), ""]
    bias = pairwise_rows.bias_lines(pairwise)
    return out + (["### Judge bias", "", *(f"- {line(b)}" for b in bias), ""] if bias else [])


def _round_markdown(r: RoundView, out_of: str) -> list[str]:
    final = " (final)" if r.is_final else ""
    out = [f"### Round {r.round_number}: {score_text(r.score)}{out_of}{final}", ""]
    if r.status != "completed":
        out += [f"status: {line(r.status)}{': ' + line(r.error) if r.error else ''}", ""]
    if r.metrics:
        rows = [row for m, v in r.metrics.items() for row in _metric_rows(m, v)]
        out += [*table(["metric", "score", "comment"], rows), ""]
    out += [
        f"- judgment: {line(judgment_text(r.judgment))}",
        f"- members: {r.members.succeeded} succeeded, {r.members.failed} failed",
    ]
    steps = steps_text(r.member_submissions)
    out += [f"- steps: {line(steps)}", ""] if steps else [""]
    return out + (["Submission:", "", code_block(r.submission), ""] if r.submission is not None else [])


def _team_markdown(team: TeamView, out_of: str) -> list[str]:
    out = [f"## Team {team_heading(team, line)}", ""]
    out += [f"- status: {line(team.status_words)}", f"- rounds scored: {team.rounds_completed}"]
    if team.best_round is not None:
        out.append(f"- best round: {team.best_round} ({score_text(team.best_score)})")
    out += [f"- stopped because: {line(team.exit_reason)}"] if team.exit_reason else []
    out += [f"- error: {line(team.error)}"] if team.error else []
    out.append("")
    return out + [text for r in team.rounds for text in _round_markdown(r, out_of)]


def markdown_report(view: ExecutionView) -> str:
    """A readable report with every submission; model and config text is inert Markdown."""
    view = without_controls(view)
    prompt = view.user_prompt
    first = prompt.strip().splitlines()[0] if prompt.strip() else ""
    title = first if len(first) <= 80 else first[:79] + "…"
    out = [f"# mixseek run: {line(title)}", ""]
    if view.demo_model_note:
        out += [f"> {line(view.demo_model_note)}", ""]
    if title != prompt:
        out += [code_block(prompt), ""]
    out += [
        f"- execution: {code_span(view.execution_id)}",
        f"- status: {line(status_text(view))}",
        f"- started: {view.started_at.isoformat()}",
        f"- duration: {view.duration_seconds:.1f} s",
        f"- rounds: {view.rounds_run}",
        f"- usage: {usage_text(view.usage)}",
        "",
        "## Leaderboard",
        "",
        *table(LEADERBOARD_HEADERS, leaderboard_rows(view.leaderboard)),
        "",
    ]
    out += _pairwise_markdown(view)
    out += _agreement_section(view)
    best = view.best
    if best:
        out += [
            "## Winning submission",
            "",
            f"{line(best.team_name)} ({line(best.team_id)}), round {best.round_number}, "
            f"score {score_text(best.score)}{view.out_of}",
            "",
            code_block(best.content),
            "",
        ]
    for team in view.teams:
        out += _team_markdown(team, view.out_of)
    out += ["## Usage by call site", ""]
    out += table(SITE_HEADERS, site_rows(view))
    return "\n".join(out) + "\n"
