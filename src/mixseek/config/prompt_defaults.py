"""The three prompt templates: their names, packaged defaults and the variables each may use.

The default team template is seed 000/001's verbatim (DESIGN decision 3); the evaluator and
judgment defaults follow the style of seed 002's examples (DESIGN decision 4). They are config
defaults, so they live with the settings that override them; `mixseek.prompt_builder.constants`
(the path seed 000 names) re-exports them.
"""

from __future__ import annotations

from typing import Final

TEAM_TEMPLATE: Final = "team_user_prompt"
EVALUATOR_TEMPLATE: Final = "evaluator_user_prompt"
JUDGMENT_TEMPLATE: Final = "judgment_user_prompt"

DEFAULT_TEAM_USER_PROMPT: Final = """# ユーザから指定されたタスク
{{ user_prompt }}

{% if round_number > 1 %}
# 過去の提出履歴
{{ submission_history }}

{% if ranking_table %}
# 現在のチームランキング
現在のリーダーボードに基づく順位:

{{ ranking_table }}

{{ team_position_message }}
{% endif %}

# 今回のラウンドの目標
上記のフィードバックを基に提出内容を改善してください。これまでのラウンドで指摘された弱点に焦点を当てましょう。
{% else %}
現在はラウンド1です。過去のSubmissionとランキング情報はまだありません。
{% endif %}

---
現在日時: {{ current_datetime }}
"""

DEFAULT_EVALUATOR_USER_PROMPT: Final = """# 評価タスク
以下の提出内容を、ユーザタスクに対する適切性で評価してください。

# ユーザから指定されたタスク
{{ user_prompt }}

# 提出内容
{{ submission }}

---
現在日時: {{ current_datetime }}
"""

DEFAULT_JUDGMENT_USER_PROMPT: Final = """# 継続判定タスク
ラウンド {{ round_number }} が終了しました。次のラウンドを実施する価値があるかを判定してください。

# ユーザから指定されたタスク
{{ user_prompt }}

# 過去の提出履歴
{{ submission_history }}

{% if ranking_table %}
# 現在のチームランキング
{{ ranking_table }}

{% if team_position_message %}
{{ team_position_message }}

{% endif %}
{% endif %}
# 判定基準
- **継続**: 提出内容に重要な不足や誤りがあり、次のラウンドでスコアの向上が見込める場合
- **終了**: ユーザタスクに対して十分な回答に達している、またはこれ以上の改善が見込めない場合

---
現在日時: {{ current_datetime }}
"""

# Seed 002: the variables each template may use (the checker rejects any other name).
ROUND_TEMPLATE_VARIABLES: Final = frozenset(
    {
        "user_prompt",
        "round_number",
        "submission_history",
        "ranking_table",
        "team_position_message",
        "current_datetime",
    }
)
EVALUATOR_TEMPLATE_VARIABLES: Final = frozenset({"user_prompt", "submission", "current_datetime"})

TEMPLATE_VARIABLES: Final[dict[str, frozenset[str]]] = {
    TEAM_TEMPLATE: ROUND_TEMPLATE_VARIABLES,
    EVALUATOR_TEMPLATE: EVALUATOR_TEMPLATE_VARIABLES,
    JUDGMENT_TEMPLATE: ROUND_TEMPLATE_VARIABLES,
}
