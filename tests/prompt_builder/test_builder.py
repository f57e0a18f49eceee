"""UserPromptBuilder: the seed 001 §4 contract examples verbatim, and the builder's rules."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

import mixseek
from mixseek.prompt_builder import (
    PromptBuilder,
    PromptTemplateError,
    RoundPromptContext,
    UserPromptBuilder,
)
from mixseek.round_controller.models import RoundState

from .seed_examples import COMPETITIVE, MINIMAL, PER_ROUND
from .support import FIXED_NOW, ListStore, entry, round_state, write_config

SEED_4_1 = """# ユーザから指定されたタスク
データ分析タスク

現在はラウンド1です。過去のSubmissionとランキング情報はまだありません。

---
現在日時: 2025-11-19T12:34:56.789012+00:00
"""

SEED_4_2 = """# ユーザから指定されたタスク
データ分析タスク

# 過去の提出履歴
## ラウンド 1
スコア: 75.50/100
スコア詳細:
{
  "accuracy": 80.0,
  "completeness": 70.0
}
あなたの提出内容: 初回の分析結果

# 現在のチームランキング
現在のリーダーボードに基づく順位:

**#1 Alpha (あなたのチーム) - スコア: 75.50/100 (ラウンド数: 1)**

🏆 現在、あなたのチームは1位です！この調子で頑張ってください。

# 今回のラウンドの目標
上記のフィードバックを基に提出内容を改善してください。これまでのラウンドで指摘された弱点に焦点を当てましょう。

---
現在日時: 2025-11-19T12:34:56.789012+00:00
"""

SEED_4_2_NO_STORE = """# ユーザから指定されたタスク
データ分析タスク

# 過去の提出履歴
## ラウンド 1
スコア: 75.50/100
スコア詳細:
{
  "accuracy": 80.0,
  "completeness": 70.0
}
あなたの提出内容: 初回の分析結果


# 今回のラウンドの目標
上記のフィードバックを基に提出内容を改善してください。これまでのラウンドで指摘された弱点に焦点を当てましょう。

---
現在日時: 2025-11-19T12:34:56.789012+00:00
"""
# (The two blank lines come from the verbatim seed 000 template: one before and one
# after its skipped `{% if ranking_table %}` block.)

HISTORY_BLOCK = """## ラウンド 1
スコア: 75.50/100
スコア詳細:
{
  "accuracy": 80.0,
  "completeness": 70.0
}
あなたの提出内容: 初回の分析結果"""

JUDGMENT_CRITERIA = """# 判定基準
- **継続**: 提出内容に重要な不足や誤りがあり、次のラウンドでスコアの向上が見込める場合
- **終了**: ユーザタスクに対して十分な回答に達している、またはこれ以上の改善が見込めない場合

---
現在日時: 2025-11-19T12:34:56.789012+00:00
"""


def seed_store() -> ListStore:
    return ListStore([{"team_id": "team1", "team_name": "Alpha", "max_score": 75.5, "total_rounds": 1}])


def seed_round_1() -> RoundState:
    return RoundState(
        round_number=1,
        submission_content="初回の分析結果",
        evaluation_score=75.5,
        score_details={"accuracy": 80.0, "completeness": 70.0},
        round_started_at=datetime.now(),
        round_ended_at=datetime.now(),
    )


def context(
    round_number: int = 1, history: list[RoundState] | None = None, **changes: Any
) -> RoundPromptContext:
    values: dict[str, Any] = {
        "user_prompt": "データ分析タスク",
        "round_number": round_number,
        "round_history": history if history is not None else [],
        "team_id": "team1",
        "team_name": "Alpha",
        "execution_id": "exec1",
        "store": None,
    }
    values.update(changes)
    return RoundPromptContext(**values)


# ---------------------------------------------------------------- seed 001 §4


async def test_seed_4_1_round_one(workspace: Path, fixed_clock: str) -> None:
    builder = UserPromptBuilder(workspace)
    assert await builder.build_team_prompt(context(1)) == SEED_4_1


async def test_seed_4_2_round_two_with_store(workspace: Path, fixed_clock: str) -> None:
    store = seed_store()
    builder = UserPromptBuilder(workspace)
    prompt = await builder.build_team_prompt(context(2, [seed_round_1()], store=store))
    assert prompt == SEED_4_2
    assert store.calls == ["exec1"]


async def test_round_two_without_store_skips_ranking(workspace: Path, fixed_clock: str) -> None:
    builder = UserPromptBuilder(workspace)
    assert await builder.build_team_prompt(context(2, [seed_round_1()])) == SEED_4_2_NO_STORE


async def test_round_one_with_store_does_not_ask_it(workspace: Path, fixed_clock: str) -> None:
    store = seed_store()
    builder = UserPromptBuilder(workspace, store=store)
    assert await builder.build_team_prompt(context(1, store=store)) == SEED_4_1
    assert store.calls == []


async def test_real_clock_in_prompt(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    prompt = await UserPromptBuilder(workspace).build_team_prompt(context(1))
    last = prompt.splitlines()[-1]
    assert re.fullmatch(r"現在日時: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+09:00", last)
    assert prompt.endswith("\n")


async def test_invalid_tz_fails_the_build(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "Invalid/Timezone")
    with pytest.raises(ValueError) as info:
        await UserPromptBuilder(workspace).build_team_prompt(context(1))
    assert str(info.value) == (
        "Invalid timezone in TZ environment variable: Invalid/Timezone. "
        "Valid examples: 'UTC', 'Asia/Tokyo', 'America/New_York'"
    )


# ---------------------------------------------------------------- store and variables

ALL_VARIABLES = (
    "[{{ user_prompt }}|{{ round_number }}|{{ submission_history }}|{{ ranking_table }}"
    "|{{ team_position_message }}|{{ current_datetime }}]"
)


def all_variables_builder(workspace: Path, store: ListStore | None = None) -> UserPromptBuilder:
    write_config(workspace, f"[prompt_builder]\nteam_user_prompt = '{ALL_VARIABLES}'\n")
    return UserPromptBuilder(workspace, store=store)


async def test_every_variable_defined_without_store(workspace: Path, fixed_clock: str) -> None:
    builder = all_variables_builder(workspace)
    assert await builder.build_team_prompt(context(1)) == (
        f"[データ分析タスク|1|まだ過去のSubmissionはありません。|||{FIXED_NOW}]"
    )


async def test_every_variable_defined_round_one_with_store(workspace: Path, fixed_clock: str) -> None:
    builder = all_variables_builder(workspace, seed_store())
    assert await builder.build_team_prompt(context(1)) == (
        f"[データ分析タスク|1|まだ過去のSubmissionはありません。|現在はランキング情報がありません。||{FIXED_NOW}]"
    )


async def test_empty_ranking_from_store(workspace: Path, fixed_clock: str) -> None:
    builder = all_variables_builder(workspace, ListStore([]))
    prompt = await builder.build_team_prompt(context(2, [seed_round_1()]))
    assert prompt == f"[データ分析タスク|2|{HISTORY_BLOCK}|現在はランキング情報がありません。||{FIXED_NOW}]"


async def test_team_not_ranked_has_no_position_message(workspace: Path, fixed_clock: str) -> None:
    builder = all_variables_builder(workspace, ListStore([entry("team9", "Zeta", 50.0, 1)]))
    prompt = await builder.build_team_prompt(context(2, [seed_round_1()]))
    assert prompt == (
        f"[データ分析タスク|2|{HISTORY_BLOCK}|#1 Zeta - スコア: 50.00/100 (ラウンド数: 1)||{FIXED_NOW}]"
    )


async def test_position_message_fourth_of_five(workspace: Path, fixed_clock: str) -> None:
    ranking = [entry(f"t{i}", f"T{i}", 90.0 - i, 1) for i in range(1, 6)]
    builder = all_variables_builder(workspace, ListStore(ranking))
    prompt = await builder.build_team_prompt(context(2, [seed_round_1()], team_id="t4", team_name="T4"))
    assert "**#4 T4 (あなたのチーム) - スコア: 86.00/100 (ラウンド数: 1)**\n#5 T5" in prompt
    assert "|現在、5チーム中4位です。|" in prompt


async def test_context_store_wins_over_builder_store(workspace: Path, fixed_clock: str) -> None:
    builder_store = ListStore([entry("team1", "Alpha", 10.0, 1)])
    context_store = ListStore([entry("team1", "Alpha", 99.0, 1)])
    builder = UserPromptBuilder(workspace, store=builder_store)
    prompt = await builder.build_team_prompt(context(2, [seed_round_1()], store=context_store))
    assert "スコア: 99.00/100 (ラウンド数: 1)**" in prompt
    assert (builder_store.calls, context_store.calls) == ([], ["exec1"])


async def test_builder_store_used_when_context_has_none(workspace: Path, fixed_clock: str) -> None:
    store = seed_store()
    builder = UserPromptBuilder(workspace, store=store)
    assert await builder.build_team_prompt(context(2, [seed_round_1()])) == SEED_4_2
    assert store.calls == ["exec1"]


async def test_ranking_given_as_data_gives_the_store_prompt(workspace: Path, fixed_clock: str) -> None:
    """The round controller hands over the ranking read at the round barrier: no store is needed."""
    ranking = seed_store().ranking
    prompt = await UserPromptBuilder(workspace).build_team_prompt(
        context(2, [seed_round_1()], ranking=ranking)
    )
    assert prompt == SEED_4_2


async def test_ranking_given_as_data_wins_over_every_store(workspace: Path, fixed_clock: str) -> None:
    builder_store = ListStore([entry("team1", "Alpha", 10.0, 1)])
    context_store = ListStore([entry("team1", "Alpha", 20.0, 1)])
    builder = UserPromptBuilder(workspace, store=builder_store)
    given = [entry("team1", "Alpha", 99.0, 1)]
    prompt = await builder.build_team_prompt(context(2, [seed_round_1()], store=context_store, ranking=given))
    assert "スコア: 99.00/100 (ラウンド数: 1)**" in prompt
    assert (builder_store.calls, context_store.calls) == ([], [])


async def test_ranking_given_as_data_round_one_and_judgment(workspace: Path, fixed_clock: str) -> None:
    builder = all_variables_builder(workspace)
    assert await builder.build_team_prompt(context(1, ranking=[])) == (
        f"[データ分析タスク|1|まだ過去のSubmissionはありません。|現在はランキング情報がありません。||{FIXED_NOW}]"
    )
    judged = await builder.build_judgment_prompt(context(1, [seed_round_1()], ranking=seed_store().ranking))
    assert "#1 Alpha (あなたのチーム) - スコア: 75.50/100 (ラウンド数: 1)" in judged


async def test_store_error_propagates(workspace: Path) -> None:
    class Failing:
        async def get_leader_board_ranking(self, execution_id: str) -> list[dict[str, Any]]:
            raise RuntimeError("database is locked")

    with pytest.raises(RuntimeError, match="database is locked"):
        await UserPromptBuilder(workspace).build_team_prompt(context(2, [seed_round_1()], store=Failing()))


# ---------------------------------------------------------------- values are data


async def test_template_syntax_in_values_is_literal(workspace: Path, fixed_clock: str) -> None:
    tricky = "{{ 7*7 }} {% if round_number %}x{% endif %} {% raw %}{{ y }}{% endraw %} {# c #}"
    history = [round_state(1, tricky, 10.0, {"{{ k }}": "{% v %}"})]
    store = ListStore([entry("team1", "{{ team_name }}", 10.0, 1)])
    prompt = await UserPromptBuilder(workspace).build_team_prompt(
        context(2, history, user_prompt=tricky, team_name="{{ 1 }}", store=store)
    )
    assert prompt.startswith(f"# ユーザから指定されたタスク\n{tricky}\n\n")
    assert f"あなたの提出内容: {tricky}\n" in prompt
    assert '"{{ k }}": "{% v %}"' in prompt
    assert "**#1 {{ team_name }} (あなたのチーム)" in prompt
    assert "49" not in prompt


def test_evaluator_values_are_literal(workspace: Path, fixed_clock: str) -> None:
    prompt = UserPromptBuilder(workspace).build_evaluator_prompt("{{ 7*7 }}", "{% if %}{{ submission }}")
    assert "\n{{ 7*7 }}\n" in prompt
    assert "\n{% if %}{{ submission }}\n" in prompt


# ---------------------------------------------------------------- evaluator and judgment defaults


def test_default_evaluator_prompt(workspace: Path, fixed_clock: str) -> None:
    prompt = UserPromptBuilder(workspace).build_evaluator_prompt("データ分析タスク", "分析結果です。")
    assert prompt == (
        "# 評価タスク\n"
        "以下の提出内容を、ユーザタスクに対する適切性で評価してください。\n\n"
        "# ユーザから指定されたタスク\nデータ分析タスク\n\n"
        "# 提出内容\n分析結果です。\n\n"
        f"---\n現在日時: {FIXED_NOW}\n"
    )


def test_evaluator_requires_user_prompt(workspace: Path) -> None:
    with pytest.raises(ValueError, match=r"^user_prompt cannot be empty$"):
        UserPromptBuilder(workspace).build_evaluator_prompt("  ", "x")


async def test_default_judgment_prompt_with_store(workspace: Path, fixed_clock: str) -> None:
    store = seed_store()
    prompt = await UserPromptBuilder(workspace).build_judgment_prompt(
        context(1, [seed_round_1()], store=store)
    )
    assert prompt == (
        "# 継続判定タスク\n"
        "ラウンド 1 が終了しました。次のラウンドを実施する価値があるかを判定してください。\n\n"
        "# ユーザから指定されたタスク\nデータ分析タスク\n\n"
        f"# 過去の提出履歴\n{HISTORY_BLOCK}\n\n"
        "# 現在のチームランキング\n"
        "**#1 Alpha (あなたのチーム) - スコア: 75.50/100 (ラウンド数: 1)**\n\n"
        "🏆 現在、あなたのチームは1位です！この調子で頑張ってください。\n\n" + JUDGMENT_CRITERIA
    )
    assert store.calls == ["exec1"]  # after round 1 the ranking exists: the store is asked


async def test_default_judgment_prompt_without_store(workspace: Path, fixed_clock: str) -> None:
    prompt = await UserPromptBuilder(workspace).build_judgment_prompt(context(1, [seed_round_1()]))
    assert prompt == (
        "# 継続判定タスク\n"
        "ラウンド 1 が終了しました。次のラウンドを実施する価値があるかを判定してください。\n\n"
        "# ユーザから指定されたタスク\nデータ分析タスク\n\n"
        f"# 過去の提出履歴\n{HISTORY_BLOCK}\n\n" + JUDGMENT_CRITERIA
    )


async def test_judgment_team_not_ranked(workspace: Path, fixed_clock: str) -> None:
    store = ListStore([entry("team2", "Beta", 80.0, 1)])
    prompt = await UserPromptBuilder(workspace).build_judgment_prompt(
        context(1, [seed_round_1()], store=store)
    )
    assert "# 現在のチームランキング\n#1 Beta - スコア: 80.00/100 (ラウンド数: 1)\n\n# 判定基準\n" in prompt


# ---------------------------------------------------------------- seed 002 examples

PER_ROUND_HEADER = f"---\n現在日時: {FIXED_NOW}\n---\n\n# ユーザタスク\n調査\n\n"
TWO_ROUNDS = (
    "## ラウンド 1\nスコア: 61.00/100\nスコア詳細:\n{}\nあなたの提出内容: s1\n\n"
    "## ラウンド 2\nスコア: 62.00/100\nスコア詳細:\n{}\nあなたの提出内容: s2"
)
RANKING_2 = (
    "#1 Beta - スコア: 80.00/100 (ラウンド数: 2)\n"
    "**#2 Alpha (あなたのチーム) - スコア: 70.00/100 (ラウンド数: 2)**"
)


def example_context(round_number: int) -> RoundPromptContext:
    return RoundPromptContext(
        user_prompt="調査",
        round_number=round_number,
        round_history=[round_state(i, f"s{i}", 60.0 + i) for i in range(1, round_number)],
        team_id="t1",
        team_name="Alpha",
        execution_id="e",
        store=ListStore([entry("t2", "Beta", 80.0, 2), entry("t1", "Alpha", 70.0, 2)]),
    )


async def test_seed_002_minimal(workspace: Path, fixed_clock: str) -> None:
    write_config(workspace, MINIMAL)
    builder = UserPromptBuilder(workspace)
    assert await builder.build_team_prompt(example_context(2)) == "# タスク\n調査\n"
    assert builder.build_evaluator_prompt("調査", "答え") == "# 評価対象\n答え\n"
    assert await builder.build_judgment_prompt(example_context(3)) == f"# 判定対象\n{TWO_ROUNDS}\n"


@pytest.mark.parametrize(
    ("round_number", "body"),
    [
        (
            1,
            "# ラウンド 1\n\n## 初期調査フェーズ\n"
            "- 広範な情報収集を行ってください\n- 主要な情報源を特定してください\n",
        ),
        (
            2,
            "# ラウンド 2\n\n## 深掘りフェーズ\n"
            "- 前回の結果を分析してください\n- 不足している情報を補完してください\n\n"
            "### 前回の提出\n## ラウンド 1\nスコア: 61.00/100\nスコア詳細:\n{}\nあなたの提出内容: s1\n",
        ),
        (
            3,
            "# ラウンド 3\n\n## 最終統合フェーズ\n"
            "- すべての情報を統合してください\n- 最終的な回答を作成してください\n\n"
            f"### これまでの提出履歴\n{TWO_ROUNDS}\n",
        ),
    ],
)
async def test_seed_002_per_round_team(
    workspace: Path, fixed_clock: str, round_number: int, body: str
) -> None:
    write_config(workspace, PER_ROUND)
    prompt = await UserPromptBuilder(workspace).build_team_prompt(example_context(round_number))
    assert prompt == PER_ROUND_HEADER + body


async def test_seed_002_per_round_evaluator_and_judgment(workspace: Path, fixed_clock: str) -> None:
    write_config(workspace, PER_ROUND)
    builder = UserPromptBuilder(workspace)
    assert builder.build_evaluator_prompt("調査", "答え") == (
        f"---\n現在日時: {FIXED_NOW}\n---\n\n# 評価タスク\n"
        "以下の提出内容を、ユーザタスクに対する適切性で評価してください。\n\n"
        "## ユーザタスク\n調査\n\n## 提出内容\n答え\n\n"
        "## 評価観点\n1. 正確性: 情報は正確か\n2. 網羅性: 必要な情報が揃っているか\n"
        "3. 構造性: 論理的に整理されているか\n"
    )
    assert await builder.build_judgment_prompt(example_context(3)) == (
        f"---\n現在日時: {FIXED_NOW}\n---\n\n# 継続判定タスク\n"
        "調査を継続するか終了するかを判定してください。\n\n"
        f"## ユーザタスク\n調査\n\n## 提出履歴\n{TWO_ROUNDS}\n\n## 現在の順位\n{RANKING_2}\n\n"
        "## 判定基準\n- **継続**: 情報が不十分、重要な観点が欠落している場合\n"
        "- **終了**: ユーザタスクに対して十分な回答が可能な場合\n"
    )


async def test_seed_002_competitive(workspace: Path, fixed_clock: str) -> None:
    write_config(workspace, COMPETITIVE)
    builder = UserPromptBuilder(workspace)
    assert await builder.build_team_prompt(example_context(1)) == (
        "# 競合タスク\n調査\n\n## ラウンド情報\n- 現在のラウンド: 1\n- \n\n"
        "## リーダーボード\n現在はランキング情報がありません。\n\n"
    )
    assert await builder.build_team_prompt(example_context(3)) == (
        "# 競合タスク\n調査\n\n## ラウンド情報\n- 現在のラウンド: 3\n"
        "- 現在、2チーム中2位です。素晴らしい成績です！\n\n"
        f"## リーダーボード\n{RANKING_2}\n\n"
        f"## 過去の提出\n{TWO_ROUNDS}\n\n上位チームの戦略を参考に、より良い回答を目指してください。\n"
    )
    assert builder.build_evaluator_prompt("調査", "答え") == (
        "# 競合評価\n以下の提出を他チームと比較して評価してください。\n\n"
        "## タスク\n調査\n\n## 提出内容\n答え\n"
    )
    assert await builder.build_judgment_prompt(example_context(3)) == (
        f"# 競合判定\n十分な品質に達したか判定してください。\n\n## リーダーボード\n{RANKING_2}\n\n"
        f"## 履歴\n{TWO_ROUNDS}\n"
    )


# ---------------------------------------------------------------- history limits through settings


async def test_history_limits_from_settings(workspace: Path, fixed_clock: str) -> None:
    write_config(
        workspace,
        "[prompt_builder]\nmax_submission_history_items = 2\nsubmission_preview_chars = 4\n"
        "max_leaderboard_display_teams = 2\n",
    )
    history = [round_state(n, f"提出内容その{n}", 50.0 + n) for n in range(1, 5)]
    ranking = [entry(f"t{i}", f"T{i}", 90.0 - i, 4) for i in range(1, 7)]
    prompt = await UserPromptBuilder(workspace).build_team_prompt(
        context(5, history, team_id="t5", team_name="T5", store=ListStore(ranking))
    )
    assert "# 過去の提出履歴\n（古い2ラウンド分の提出履歴は省略しています）\n\n## ラウンド 3\n" in prompt
    assert "あなたの提出内容: 提出内容…（以下3文字省略）\n\n## ラウンド 4\n" in prompt
    assert (
        "#1 T1 - スコア: 89.00/100 (ラウンド数: 4)\n#2 T2 - スコア: 88.00/100 (ラウンド数: 4)\n"
        "…（2チーム省略）\n"
        "**#5 T5 (あなたのチーム) - スコア: 85.00/100 (ラウンド数: 4)**\n…（1チーム省略）\n\n"
        "現在、6チーム中5位です。\n"
    ) in prompt


async def test_history_limits_from_env(
    workspace: Path, fixed_clock: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MIXSEEK_MAX_SUBMISSION_HISTORY_ITEMS", "1")
    history = [round_state(n, f"s{n}") for n in range(1, 4)]
    prompt = await UserPromptBuilder(workspace).build_team_prompt(context(4, history))
    assert "（古い2ラウンド分の提出履歴は省略しています）\n\n## ラウンド 3\n" in prompt
    assert "## ラウンド 2" not in prompt


# ---------------------------------------------------------------- construction


def test_missing_workspace(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="workspace directory does not exist"):
        UserPromptBuilder(tmp_path / "nope")


def test_workspace_that_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    with pytest.raises(FileNotFoundError):
        UserPromptBuilder(tmp_path / "f")


async def test_packaged_sample_config_gives_seed_output(workspace: Path, fixed_clock: str) -> None:
    sample = Path(mixseek.__file__).parent / "config" / "samples" / "prompt_builder.toml"
    if not sample.is_file():
        pytest.skip("no packaged prompt_builder.toml sample")
    write_config(workspace, sample.read_text(encoding="utf-8"))
    builder = UserPromptBuilder(workspace)
    assert builder.templates.team.source.endswith("prompt_builder.toml")
    assert await builder.build_team_prompt(context(1)) == SEED_4_1
    assert await builder.build_team_prompt(context(2, [seed_round_1()], store=seed_store())) == SEED_4_2


def test_workspace_without_configs_dir_uses_defaults(tmp_path: Path) -> None:
    assert UserPromptBuilder(tmp_path).templates.team.source == "default"


def test_broken_template_fails_at_construction(workspace: Path) -> None:
    write_config(workspace, "[prompt_builder]\njudgment_user_prompt = '{{ user_prompt '\n")
    with pytest.raises(
        PromptTemplateError, match=r"^judgment_user_prompt \(.*prompt_builder\.toml\): Jinja2"
    ):
        UserPromptBuilder(workspace)


async def test_settings_read_once(workspace: Path, fixed_clock: str) -> None:
    write_config(workspace, "[prompt_builder]\nteam_user_prompt = 'A {{ user_prompt }}'\n")
    builder = UserPromptBuilder(workspace)
    write_config(workspace, "[prompt_builder]\nteam_user_prompt = 'B {{ user_prompt }}'\n")
    assert await builder.build_team_prompt(context(1)) == "A データ分析タスク"
    assert builder.settings.team_user_prompt == "A {{ user_prompt }}"


def test_builder_satisfies_protocol(workspace: Path) -> None:
    class Fake:
        async def build_team_prompt(self, context: RoundPromptContext) -> str:
            return "team"

        def build_evaluator_prompt(self, user_prompt: str, submission: str) -> str:
            return "eval"

        async def build_judgment_prompt(self, context: RoundPromptContext) -> str:
            return "judge"

    implementations: list[PromptBuilder] = [UserPromptBuilder(workspace), Fake()]
    assert all(isinstance(item, PromptBuilder) for item in implementations)
    assert not isinstance(object(), PromptBuilder)
