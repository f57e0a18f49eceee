"""The fixed texts around history and ranking per prompt language: English (`en`) says what Japanese (`ja`)
says, in the same structure, so a prompt of English templates does not switch language."""

from __future__ import annotations

from dataclasses import dataclass, replace

from mixseek.config.prompt_builder import PromptLanguage
from mixseek.prompt_builder.constants import NO_RANKING_TEXT, NO_SUBMISSION_HISTORY_TEXT


@dataclass(frozen=True)
class PromptTexts:
    """Format strings of one language; the `{…}` fields are filled by the formatters."""

    round_block: str
    preview_cut: str
    omitted_rounds: str
    no_history: str
    no_ranking: str
    own_team_line: str
    team_line: str
    omitted_teams: str
    first_place: str
    top_three: str
    other_place: str


JAPANESE = PromptTexts(
    round_block=(
        "## ラウンド {round}\nスコア: {score:.2f}/100\nスコア詳細:\n{details}\nあなたの提出内容: {submission}"
    ),
    preview_cut="…（以下{omitted}文字省略）",
    omitted_rounds="（古い{omitted}ラウンド分の提出履歴は省略しています）",
    no_history=NO_SUBMISSION_HISTORY_TEXT,
    no_ranking=NO_RANKING_TEXT,
    own_team_line="**#{rank} {name} (あなたのチーム) - スコア: {score:.2f}/100 (ラウンド数: {rounds})**",
    team_line="#{rank} {name} - スコア: {score:.2f}/100 (ラウンド数: {rounds})",
    omitted_teams="…（{omitted}チーム省略）",
    first_place="🏆 現在、あなたのチームは1位です！この調子で頑張ってください。",
    top_three="現在、{total}チーム中{position}位です。素晴らしい成績です！",
    other_place="現在、{total}チーム中{position}位です。",
)

ENGLISH = PromptTexts(
    round_block=(
        "## Round {round}\nScore: {score:.2f}/100\nScore details:\n{details}\nYour submission: {submission}"
    ),
    preview_cut="… ({omitted} more characters left out)",
    omitted_rounds="(the {omitted} oldest rounds are left out)",
    no_history="No submissions yet.",
    no_ranking="No ranking yet.",
    own_team_line="**#{rank} {name} (your team) - score: {score:.2f}/100 (rounds: {rounds})**",
    team_line="#{rank} {name} - score: {score:.2f}/100 (rounds: {rounds})",
    omitted_teams="… ({omitted} teams left out)",
    first_place="🏆 Your team is in first place! Keep it up.",
    top_three="You are #{position} of {total} teams. Great work!",
    other_place="You are #{position} of {total} teams.",
)

TEXTS: dict[PromptLanguage, PromptTexts] = {"ja": JAPANESE, "en": ENGLISH}


def prompt_texts(language: PromptLanguage, *, percent: bool = True) -> PromptTexts:
    """The texts of `language` (`ja` or `en`); without the seed's `/100` after a score when the run's
    scores are not on 0–100 (a Sharpe ratio of -0.40 is not -0.40/100)."""
    texts = TEXTS[language]
    if percent:
        return texts
    lines = ("round_block", "own_team_line", "team_line")
    return replace(texts, **{name: getattr(texts, name).replace("/100", "") for name in lines})
