"""A bench report as one self-contained HTML file, in the style (and CSP) of the execution report."""

from __future__ import annotations

from mixseek.report.html import CONTENT_SECURITY_POLICY, TEMPLATES
from mixseek.tasksets.markdown import BASELINE_HEADERS, baseline_row, excerpt, interval
from mixseek.tasksets.report import LEVEL, BenchReport
from mixseek.text_safety import strip_controls


def render_html(report: BenchReport) -> str:
    page = TEMPLATES.get_template("bench.html").render(
        report=report,
        csp=CONTENT_SECURITY_POLICY,
        level=LEVEL,
        interval=interval,
        excerpt=excerpt,
        baseline_headers=BASELINE_HEADERS,
        baseline_row=baseline_row,
    )
    return strip_controls(page)
