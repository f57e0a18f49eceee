"""`mixseek runs export ID --format html`: one self-contained page of a finished execution.

The execution is a real scripted run through `mixseek exec` (tests/e2e/scripted.py); the
report is read back as HTML (the standard library's parser) and checked for what a reader
sees and for what it must never carry: scripts, event handlers, outside resources.
"""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest
from typer.testing import CliRunner

from e2e.html_report import CONTROLS, HTML_PAYLOAD, Exported, HostileWorld, export_scripted
from mixseek.cli.app import app
from mixseek.storage.aggregation_store import AggregationStore

PROMPT = "最良の回答を"
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
SVG_NAMESPACE = "http://www.w3.org/2000/svg"


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    text: str = ""
    children: list[Element] = field(default_factory=list)

    def iter(self) -> list[Element]:
        return [self, *(e for child in self.children for e in child.iter())]

    def find_all(self, tag: str, **attrs: str) -> list[Element]:
        return [e for e in self.iter() if e.tag == tag and all(e.attrs.get(k) == v for k, v in attrs.items())]

    def find(self, tag: str, **attrs: str) -> Element:
        (found,) = self.find_all(tag, **attrs)
        return found

    def all_text(self) -> str:
        return self.text + "".join(child.all_text() for child in self.children)

    def cells(self) -> list[list[str]]:
        """A table's body rows as the whitespace-normalised text of their cells."""
        return [
            [" ".join(c.all_text().split()) for c in row.children if c.tag in ("td", "th")]
            for body in self.find_all("tbody")
            for row in body.children
            if row.tag == "tr"
        ]


VOID = {"meta", "br", "img", "hr", "input", "link", "col", "source", "wbr", "area", "base", "embed"}


class _Tree(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(element)
        if tag not in VOID:
            self.stack.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Element(tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(Element("#text", {}, data))


def parse(html: str) -> Element:
    tree = _Tree()
    tree.feed(html)
    tree.close()
    return tree.root


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Exported:
    return export_scripted(tmp_path_factory.mktemp("report"), PROMPT)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Exported:
    world = HostileWorld(failing_teams={"beta"})
    return export_scripted(
        tmp_path_factory.mktemp("hostile"),
        f"{HTML_PAYLOAD} {CONTROLS}\nsecond line",
        world=world,
        team_name=f"Alpha {HTML_PAYLOAD}",
    )


def _doc(exported: Exported) -> Element:
    return parse(exported.report.read_text(encoding="utf-8"))


def assert_inert(html: str) -> None:
    """No script, no event handler, no javascript: URL, and nothing loaded from anywhere."""
    tree = parse(html)
    assert not tree.find_all("script")
    for tag in ("link", "iframe", "object", "embed", "base", "form", "audio", "video", "source"):
        assert not tree.find_all(tag), tag
    for element in tree.iter():
        for name, value in element.attrs.items():
            assert not name.startswith("on"), (element.tag, name, value)
            assert name != "style", element.tag
            assert "javascript:" not in value.replace(" ", "").lower(), (element.tag, name, value)
            if name in ("src", "srcset", "poster", "data", "xlink:href", "background"):
                assert value.startswith("data:"), (element.tag, name, value)
    for style in tree.find_all("style"):
        css = style.all_text()
        assert "@import" not in css and "url(" not in css


def test_header_carries_status_prompt_times_and_stop_reason(finished: Exported) -> None:
    html = finished.report.read_text(encoding="utf-8")
    doc = parse(html)
    assert doc.find("head").find("title").all_text() == f"mixseek run: {PROMPT}"
    assert doc.find("h1").all_text() == PROMPT
    facts = {
        " ".join(div.find("dt").all_text().split()): " ".join(div.find("dd").all_text().split())
        for div in doc.find("dl", **{"class": "facts"}).children
        if div.tag == "div"
    }
    assert facts["Status"] == "completed"
    assert facts["Stop reason"] == "finished"
    assert facts["Rounds"] == "4"
    assert facts["Teams"] == "3"
    assert facts["Tokens"] == "4,029"
    assert facts["Cost"] == "–"
    assert facts["Execution"] == finished.execution_id
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", facts["Started"])
    assert re.fullmatch(r"\d+\.\d s", facts["Duration"])
    assert doc.find("pre", **{"class": "prompt"}).all_text() == PROMPT
    assert not doc.find_all("div", id="degraded")


def test_leaderboard_grid_and_chart(finished: Exported) -> None:
    doc = _doc(finished)
    assert doc.find("table", **{"class": "leaderboard"}).cells() == [
        ["1", "Gamma gamma", "99.0", "4"],
        ["2", "Alpha alpha", "80.0", "3"],
        ["3", "Beta beta", "72.0", "2"],
    ]
    grid = doc.find("table", **{"class": "grid"})
    rows = grid.cells()
    assert [row[0].split()[:3] for row in rows] == [
        ["Gamma", "gamma", "completed"],
        ["Alpha", "alpha", "completed"],
        ["Beta", "beta", "completed"],
    ]
    # scores by round; a round the team did not play is a dash
    assert [[cell.split()[0] for cell in row[1:]] for row in rows] == [
        ["50.0", "75.0", "78.0", "99.0"],
        ["60.0", "75.0", "80.0", "–"],
        ["70.0", "72.0", "–", "–"],
    ]
    # tokens of a round: the team's run and its evaluation (alpha: leader 2 calls, member 1, 3 metrics)
    assert "439 tokens" in rows[1][1]
    assert "294 tokens" in rows[2][1]  # beta: the leader alone
    assert all(re.search(r"\d+\.\d s$", cell) for row in rows for cell in row[1:] if cell != "–")

    chart = doc.find("section", id="chart").find("svg")
    series = chart.find_all("g", **{"class": "chart-series"})
    assert [g.attrs["data-team"] for g in series] == ["gamma", "alpha", "beta"]
    points = [len(g.find("polyline").attrs["points"].split()) for g in series]
    assert points == [4, 3, 2]


def test_judgments_with_reasoning(finished: Exported) -> None:
    rows = _doc(finished).find("table", **{"class": "judgments"}).cells()
    assert rows == [
        ["Gamma", "1", "continue", "judgment", "0.80", "gamma after 1"],
        ["Gamma", "2", "continue", "judgment", "0.80", "gamma after 2"],
        ["Gamma", "3", "continue", "judgment", "0.80", "gamma after 3"],
        ["Gamma", "4", "stop", "max_rounds", "–", ""],
        ["Alpha", "1", "continue", "judgment", "0.80", "alpha after 1"],
        ["Alpha", "2", "continue", "judgment", "0.80", "alpha after 2"],
        ["Alpha", "3", "stop", "judgment", "0.80", "alpha after 3"],
        ["Beta", "1", "continue", "judgment", "0.80", "beta after 1"],
        ["Beta", "2", "stop", "judgment", "0.80", "beta after 2"],
    ]


def test_usage_by_role_and_by_model(finished: Exported) -> None:
    doc = _doc(finished)
    by_role = doc.find("table", id="usage-by-role").cells()
    assert by_role[0] == ["evaluator metric 'clarity_coherence'", "9", "450", "72", "522", "–"]
    assert ["leader of team 'gamma'", "8", "800", "120", "920", "–"] in by_role
    assert ["member 'helper' of team 'alpha'", "3", "90", "15", "105", "–"] in by_role
    assert ["judgment", "8", "320", "48", "368", "–"] in by_role
    assert by_role[-1] == ["Total", "58", "3,480", "549", "4,029", "–"]
    assert doc.find("table", id="usage-by-model").cells() == [
        ["script:judgment", "8", "320", "48", "368", "–"],
        ["script:leader-alpha", "6", "600", "90", "690", "–"],
        ["script:leader-beta", "2", "200", "40", "240", "–"],
        ["script:leader-gamma", "8", "800", "120", "920", "–"],
        ["script:member", "7", "210", "35", "245", "–"],
        ["script:metric", "27", "1,350", "216", "1,566", "–"],
        ["Total", "58", "3,480", "549", "4,029", "–"],
    ]


def test_best_submission_of_each_team_with_its_metrics(finished: Exported) -> None:
    doc = _doc(finished)
    articles = doc.find("section", id="submissions").find_all("article")
    assert [a.attrs["data-team"] for a in articles] == ["gamma", "alpha", "beta"]
    gamma = articles[0]
    assert " ".join(gamma.find("h3").all_text().split()) == "Gamma gamma · round 4 · score 99.0"
    assert gamma.find("table", **{"class": "metrics"}).cells() == [
        [metric, "99.0", "gamma answer v4 ok"] for metric in ("clarity_coherence", "coverage", "relevance")
    ]
    markdown = gamma.find("div", **{"class": "markdown"})
    assert [p.all_text() for p in markdown.find_all("p")] == ["gamma answer v4 (member did round 4)"]
    assert " ".join(doc.find("section", id="failures").all_text().split()) == (
        "Failures No team, round or member failed."
    )


def test_self_contained_and_inert(finished: Exported) -> None:
    html = finished.report.read_text(encoding="utf-8")
    doc = parse(html)
    head = doc.find("head")
    first_meta = [e for e in head.children if e.tag != "#text"][:2]
    assert first_meta[0].attrs == {"charset": "utf-8"}
    # the policy comes before anything it governs
    assert first_meta[1].attrs["http-equiv"] == "Content-Security-Policy"
    assert first_meta[1].attrs["content"].startswith(CSP)
    assert_inert(html)
    assert "<script" not in html.lower()
    # the only absolute URL is the SVG namespace name, which nothing fetches
    assert set(re.findall(r"\w+://[^\s\"'<>)]*", html)) == {SVG_NAMESPACE}
    assert len(doc.find_all("style")) == 1


def test_model_text_is_escaped_and_stripped_of_controls(hostile: Exported) -> None:
    html = hostile.report.read_text(encoding="utf-8")
    assert_inert(html)
    assert "<script" not in html.lower()
    for control in ("\x1b", "\u202e"):
        assert control not in html
    doc = parse(html)
    # the payloads read as the text they are
    assert doc.find("h1").all_text() == f"{HTML_PAYLOAD} redevil"
    assert doc.find("pre", **{"class": "prompt"}).all_text() == f"{HTML_PAYLOAD} redevil\nsecond line"
    board = doc.find("table", **{"class": "leaderboard"}).cells()
    assert f"Alpha {HTML_PAYLOAD} alpha" in [row[1] for row in board]
    reasoning = [row[5] for row in doc.find("table", **{"class": "judgments"}).cells()]
    assert f"gamma after 1 {HTML_PAYLOAD} redevil" in reasoning
    # the chart's legend and tooltips escape the team name too
    chart = doc.find("section", id="chart").find("svg")
    assert f"Alpha {HTML_PAYLOAD}" in [t.all_text() for t in chart.find_all("title")]
    # a submission's Markdown: the javascript: link is no link, raw HTML stays text,
    # the outside image becomes a plain link (nothing loads)
    gamma = doc.find("article", **{"data-team": "gamma"}).find("div", **{"class": "markdown"})
    links = gamma.find_all("a")
    assert [(a.all_text(), a.attrs["href"]) for a in links] == [
        ("tracker", "https://tracker.example/pixel.png")
    ]
    assert "[click me](javascript:alert(1))" in gamma.all_text()
    assert not gamma.find_all("img") and not gamma.find_all("svg")
    assert "<svg onload=alert(2)></svg>" in gamma.all_text()
    assert HTML_PAYLOAD in gamma.all_text()


def test_failures_with_their_messages(hostile: Exported) -> None:
    doc = _doc(hostile)
    facts = doc.find("dl", **{"class": "facts"}).all_text()
    assert "partial_failure" in facts
    rows = doc.find("table", **{"class": "failures"}).cells()
    member_down = f"RuntimeError: member is down {HTML_PAYLOAD}"
    assert rows == [
        *(["Gamma", str(n), "helper", "member failed", member_down] for n in (1, 2, 3, 4)),
        *([f"Alpha {HTML_PAYLOAD}", str(n), "helper", "member failed", member_down] for n in (1, 2, 3)),
        # the team failed because its first round did: one row, at that round
        ["Beta", "1", "–", "failed", "RuntimeError: beta leader is broken"],
    ]
    grid = {row[0].split()[0]: row for row in doc.find("table", **{"class": "grid"}).cells()}
    assert grid["Beta"][0].split()[:3] == ["Beta", "beta", "failed"]


def test_html_to_stdout_is_the_same_page(finished: Exported, runner: CliRunner) -> None:
    result = runner.invoke(
        app, ["runs", "export", finished.execution_id, "--format", "html", "-w", str(finished.workspace)]
    )
    assert result.exit_code == 0, result.output
    assert result.stdout == finished.report.read_text(encoding="utf-8")


def test_unknown_format_names_html(finished: Exported, runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["runs", "export", finished.execution_id, "--format", "pdf", "-w", str(finished.workspace)]
    )
    assert (result.exit_code, result.stderr) == (
        2,
        "error: --format: must be 'json', 'markdown' or 'html' (got 'pdf')\n",
    )
    missing = runner.invoke(
        app, ["runs", "export", "nope", "--format", "html", "-w", str(finished.workspace)]
    )
    assert missing.exit_code == 2
    assert (
        missing.stderr == f"error: runs export: no execution 'nope' in {finished.workspace / 'mixseek.db'}\n"
    )


def test_an_execution_without_rounds_yet(tmp_path: Path, runner: CliRunner) -> None:
    """Exported while it runs, before any round ended: the page says so rather than failing."""

    async def started(db: Path) -> None:
        async with AggregationStore(db) as store:
            await store.create_execution("just-started", "a prompt", {})

    ws = tmp_path / "ws"
    ws.mkdir()
    asyncio.run(started(ws / "mixseek.db"))
    result = runner.invoke(app, ["runs", "export", "just-started", "--format", "html", "-w", str(ws)])
    assert result.exit_code == 0, result.output
    assert_inert(result.stdout)
    doc = parse(result.stdout)
    assert doc.find("span", id="status").all_text() == "running"
    texts = {section.attrs["id"]: " ".join(section.all_text().split()) for section in doc.find_all("section")}
    assert texts["leaderboard"] == "Leaderboard No team has completed a round."
    assert texts["judgments"] == "Judgments No round has been judged yet."
    assert texts["submissions"] == "Best submissions No team has a scored submission yet."
    assert "No scores yet" in texts["chart"]
    assert not doc.find("section", id="chart").find_all("polyline")


def test_needs_only_the_core_install(finished: Exported) -> None:
    """The dashboard's extra (starlette, uvicorn, multipart) is not needed to export a report."""
    code = (
        "import sys\n"
        "for name in ('starlette', 'uvicorn', 'multipart', 'python_multipart'):\n"
        "    sys.modules[name] = None  # importing it now fails, as without the extra\n"
        "from mixseek.cli.entry import main\n"
        "sys.argv = ['mixseek', *sys.argv[1:]]\n"
        "main()\n"
    )
    args = ["runs", "export", finished.execution_id, "--format", "html", "-w", str(finished.workspace)]
    result = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, encoding="utf-8", check=False
    )
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == finished.report.read_text(encoding="utf-8")
