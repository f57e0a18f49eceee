"""A bench report as one self-contained HTML file (`mixseek bench -f html`), in the style of the
execution report (`report.html`): the same stylesheet inline, the same Content-Security-Policy,
autoescape on every variable."""

from __future__ import annotations

from jinja2 import Environment, PackageLoader, StrictUndefined

from mixseek.bench.markdown import excerpt, interval
from mixseek.bench.report import LEVEL, BenchReport
from mixseek.report import formatting
from mixseek.report.html import CONTENT_SECURITY_POLICY
from mixseek.text_safety import strip_controls

_ENV = Environment(
    loader=PackageLoader("mixseek.report", "templates"),
    autoescape=True,
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)
_ENV.filters.update(formatting.FILTERS)


def render_html(report: BenchReport) -> str:
    page = _ENV.get_template("bench.html").render(
        report=report, csp=CONTENT_SECURITY_POLICY, level=LEVEL, interval=interval, excerpt=excerpt
    )
    return strip_controls(page)
