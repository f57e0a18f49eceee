"""The exported HTML report's Judgments table in a real Chromium: a team's name keeps its words
whole however long the judges' reasoning beside it (it broke as `Analys`/`ts`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from e2e.html_report import Exported, export_scripted
from e2e.scripted import World

TEAM_NAME = "Senior Analysts Collective"
REASONING = " ".join(["The submission weighs each option against the brief and its sources."] * 12)


class VerboseJudge(World):
    """The scripted world whose judge writes a long paragraph of reasoning for every round."""

    def judgment(self) -> FunctionModel:
        inner = super().judgment()

        async def judge(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            response: ModelResponse = await inner.function(messages, info)  # type: ignore[misc]
            call = response.parts[0]
            assert isinstance(call, ToolCallPart) and isinstance(call.args, dict)
            args = {**call.args, "reasoning": f"{call.args['reasoning']}. {REASONING}"}
            return replace(response, parts=[replace(call, args=args)])

        return FunctionModel(judge, model_name="judgment")


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Exported:
    """Made before the browser starts (tests name it first), as in test_export_html_browser."""
    root = tmp_path_factory.mktemp("judgments")
    return export_scripted(root, "Compare the options", world=VerboseJudge(), team_name=TEAM_NAME)


SPLIT_WORDS = """table => {
    const split = [];
    for (const name of table.querySelectorAll('.team-name')) {
        const text = name.firstChild;
        for (const word of text.textContent.matchAll(/\\S+/g)) {
            const range = document.createRange();
            range.setStart(text, word.index);
            range.setEnd(text, word.index + word[0].length);
            const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
            if (lines.size > 1) split.push(word[0]);
        }
    }
    return split;
}"""
"""The words of the table's team names that the layout spread over more than one line."""


@pytest.mark.parametrize("width", [480, 800, 1200])
def test_team_names_in_the_judgments_table_never_break_inside_a_word(
    exported: Exported, browser: Any, width: int
) -> None:
    context = browser.new_context(viewport={"width": width, "height": 900})
    try:
        page = context.new_page()
        page.goto(exported.report.as_uri())
        table = page.locator("table.judgments")
        assert TEAM_NAME in table.inner_text()
        assert table.evaluate(SPLIT_WORDS) == []
    finally:
        context.close()
