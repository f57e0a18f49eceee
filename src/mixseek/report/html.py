"""One execution as a self-contained HTML file (`runs export --format html`): inline CSS and SVG, no script or
outside reference (it reads the same offline); its own CSP forbids anything else slipped past the escaping."""

from __future__ import annotations

from jinja2 import Environment, PackageLoader, StrictUndefined

from mixseek.report import agreement as agreement_rows
from mixseek.report import content, formatting
from mixseek.report import pairwise as pairwise_rows
from mixseek.report.charts import score_chart_svg
from mixseek.report.markdown import render_markdown
from mixseek.storage.views import ExecutionView

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
)
"""Nothing loads but the inline styles and data: images; no script runs, no form posts."""

TEMPLATES = Environment(
    loader=PackageLoader("mixseek.report", "templates"),
    autoescape=True,
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)
TEMPLATES.filters.update(formatting.FILTERS, markdown=render_markdown)
"""The report templates (`report/templates`), autoescaped; every self-contained page renders here."""


def report_title(prompt: str, limit: int = 80) -> str:
    """The prompt's first line, cut to `limit` characters."""
    first = next((line.strip() for line in prompt.splitlines() if line.strip()), "")
    return first if len(first) <= limit else first[: limit - 1] + "…"


def render_html_report(view: ExecutionView) -> str:
    """The report page: header, grid, leaderboard, chart, judgments, usage, failures, best submissions."""
    view = content.without_controls(view)
    pairwise = view.pairwise
    return TEMPLATES.get_template("report.html").render(
        pairwise={
            "heading": pairwise_rows.heading(pairwise),
            "standing_headers": pairwise_rows.STANDING_HEADERS,
            "standings": pairwise_rows.standing_rows(pairwise),
            "controlled_title": pairwise_rows.CONTROLLED_TITLE,
            "controlled": pairwise_rows.standing_rows(pairwise, controlled=True),
            "comparison_headers": pairwise_rows.COMPARISON_HEADERS,
            "bias": pairwise_rows.bias_lines(pairwise),
            "comparisons": list(
                zip(pairwise_rows.comparison_rows(pairwise), pairwise.comparisons, strict=True)
            ),
        }
        if pairwise is not None
        else None,
        agreement={
            "headers": agreement_rows.AGREEMENT_HEADER,
            "rows": agreement_rows.agreement_rows(view),
            "flagged": agreement_rows.flagged_lines(view),
        }
        if view.agreement
        else None,
        view=view,
        title=report_title(view.user_prompt),
        csp=CONTENT_SECURITY_POLICY,
        grid=content.round_grid(view),
        chart=score_chart_svg(view),
        judgments=content.judgment_rows(view),
        failures=content.failures(view),
        best_rounds=content.best_rounds(view),
        round_tokens=content.round_tokens,
        round_seconds=content.round_seconds,
    )
