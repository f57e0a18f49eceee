"""The Markdown export, rendered as a permissive viewer renders it, runs nothing in Chromium.

A real execution is stored by `mixseek exec` with scripted models whose every output carries XSS
vectors (raw HTML with scripts and event handlers, `javascript:` links, autolinks and link
definitions, entity-encoded schemes, code-span tricks): in the prompt, the team's id and name, the
submissions, the members' answers and errors, the metrics' comments, the judge's reasoning and the
pairwise judge's reasons. `mixseek runs export --format markdown` (a real subprocess) writes the
report; markdown-it renders it as CommonMark with raw HTML on — once as it comes, once also
accepting any link target, as a viewer without markdown-it's URL check would — and Chromium opens
each page from a file.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from scripting import tool_returns

from .html_scan import scan
from .stored_runs import EVIL_TEAM_ID, run_exec, write_xss_workspace

VECTORS = (
    "<script>window.__xss=1</script>",
    '<img src=x onerror="window.__xss=1">',
    "<svg onload=window.__xss=1>",
    '"><svg onload=window.__xss=1>',
    "<details open ontoggle=window.__xss=1>",
    '<iframe srcdoc="<script>parent.__xss=1</script>"></iframe>',
    '<a href="javascript:window.__xss=1">a</a>',
    '<a href="&#106;avascript:window.__xss=1">b</a>',
    "<javascript:window.__xss=1>",
    "[c](javascript:window.__xss=1)",
    "[d](<javascript:window.__xss=1>)",
    "[e](jav&#x61;script:window.__xss=1)",
    '![f](x" onerror="window.__xss=1)',
    "[g][ref] [ref]: javascript:window.__xss=1",
    "`x`<img src=y onerror=window.__xss=1>`",
    "\\<script>window.__xss=1</script>",
    "<!-- c --><script>window.__xss=1</script>",
    "<math><mi xlink:href=javascript:window.__xss=1>h</mi></math>",
    "&lt;script&gt;window.__xss=1&lt;/script&gt;",
)
VECTOR_LINE = " ".join(VECTORS)
VECTOR_BLOCK = "\n\n".join(VECTORS)
# line-initial vectors: a link definition and an HTML block work only at the start of a line
LINE_START = "[ref]: javascript:window.__xss=1\n<div onmouseover=window.__xss=1>i</div>\n"


def _usage(output_tokens: int) -> RequestUsage:
    return RequestUsage(input_tokens=50, output_tokens=output_tokens)


def _leader(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if info.function_tools and not tool_returns(messages):
        calls = [ToolCallPart(tool.name, {"task": VECTOR_LINE}) for tool in info.function_tools]
        return ModelResponse(parts=calls, usage=_usage(10))
    return ModelResponse(parts=[TextPart(f"{LINE_START}\n{VECTOR_BLOCK}")], usage=_usage(20))


def _member(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart(LINE_START + VECTOR_BLOCK)], usage=_usage(5))


def _broken(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    raise RuntimeError(f"broken: {VECTOR_LINE}")


def _tool_call(info: AgentInfo, args: dict[str, Any]) -> ModelResponse:
    return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, args)], usage=_usage(8))


def models() -> dict[str, Model]:
    """The models of `stored_runs.write_xss_workspace`, and a pairwise judge, writing the vectors."""
    return {
        "script:xss-leader": FunctionModel(_leader, model_name="leader"),
        "script:xss-member": FunctionModel(_member, model_name="member"),
        "script:xss-broken": FunctionModel(_broken, model_name="broken"),
        "script:xss-metric": FunctionModel(
            lambda m, info: _tool_call(info, {"score": 64.0, "comment": LINE_START + VECTOR_BLOCK}),
            model_name="metric",
        ),
        "script:xss-judgment": FunctionModel(
            lambda m, info: _tool_call(
                info, {"should_continue": True, "reasoning": VECTOR_BLOCK, "confidence_score": 0.5}
            ),
            model_name="judgment",
        ),
        "script:xss-pairwise": FunctionModel(
            lambda m, info: _tool_call(info, {"winner": "A", "reasoning": LINE_START + VECTOR_BLOCK}),
            model_name="pairwise",
        ),
    }


@dataclass(frozen=True)
class Rendered:
    markdown: str
    pages: dict[str, Path]


def _permissive(html: bool) -> MarkdownIt:
    parser = MarkdownIt("commonmark", {"html": html})
    parser.validateLink = lambda url: True  # type: ignore[method-assign]
    return parser


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Rendered:
    """Made before the browser starts (tests name it first): `mixseek exec` runs its own event
    loop, which cannot start while Playwright's sync API holds one in this thread."""
    out = tmp_path_factory.mktemp("markdown")
    root = write_xss_workspace(out / "ws")
    pairwise = '[pairwise]\nenabled = true\nmodel = "script:xss-pairwise"\nbootstrap_samples = 10\n'
    (root / "configs" / "pairwise.toml").write_text(pairwise, encoding="utf-8")
    execution_id = run_exec(root, f"{VECTOR_LINE}\n\n{LINE_START}{VECTOR_BLOCK}", models())
    report = out / "report.md"
    export = ["runs", "export", execution_id, "-w", str(root), "--format", "markdown", "-o", str(report)]
    exported = subprocess.run(
        [sys.executable, "-m", "mixseek.cli", *export],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert exported.returncode == 0, exported.stderr
    markdown = report.read_text(encoding="utf-8")
    renderers = {"commonmark": MarkdownIt("commonmark", {"html": True}), "any-link": _permissive(True)}
    pages: dict[str, Path] = {}
    for name, parser in renderers.items():
        pages[name] = out / f"{name}.html"
        pages[name].write_text(
            f'<!doctype html><meta charset="utf-8"><title>report</title><body>{parser.render(markdown)}',
            encoding="utf-8",
        )
    return Rendered(markdown, pages)


FIND_PROBLEMS = """() => {
  const problems = [];
  for (const el of document.querySelectorAll('*')) {
    for (const attr of el.attributes) {
      if (attr.name.toLowerCase().startsWith('on')) problems.push(`${el.tagName} ${attr.name}`);
      const plain = attr.value.replace(/[\\u0000-\\u0020\\u007f]/g, '').toLowerCase();
      if (plain.startsWith('javascript:')) problems.push(`${el.tagName} ${attr.name}=${attr.value}`);
    }
  }
  for (const script of document.scripts) problems.push('script: ' + script.outerHTML.slice(0, 100));
  for (const a of document.links) {
    if (a.protocol === 'javascript:') problems.push('link: ' + a.outerHTML.slice(0, 100));
  }
  for (const frame of document.querySelectorAll('iframe, object, embed')) problems.push(frame.tagName);
  return problems;
}"""


@pytest.mark.parametrize("renderer", ["commonmark", "any-link"])
def test_rendered_export_runs_no_script(rendered: Rendered, page: Any, renderer: str) -> None:
    # the report carries the vectors in every part: the prompt, tables, judgments, submissions
    for section in ("## Leaderboard", "## Pairwise ranking", "## Winning submission", "Submission:"):
        assert section in rendered.markdown
    path = rendered.pages[renderer]
    assert scan(path.read_text(encoding="utf-8")).problems == []
    page.goto(path.as_uri(), wait_until="load")
    page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
    assert page.evaluate("() => typeof window.__xss") == "undefined"
    assert page.evaluate(FIND_PROBLEMS) == []
    text = page.inner_text("body")
    for vector in VECTORS:  # every vector reads as it was written, wherever the report shows it
        assert vector in text, f"{vector!r} is not shown as text"
    assert EVIL_TEAM_ID in text
