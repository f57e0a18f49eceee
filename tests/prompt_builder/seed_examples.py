"""The three `prompt_builder.toml` examples of seed 002, verbatim."""

MINIMAL = '''[prompt_builder]
team_user_prompt = """
# タスク
{{ user_prompt }}
"""

evaluator_user_prompt = """
# 評価対象
{{ submission }}
"""

judgment_user_prompt = """
# 判定対象
{{ submission_history }}
"""
'''

PER_ROUND = '''[prompt_builder]
team_user_prompt = """
---
現在日時: {{ current_datetime }}
---

# ユーザタスク
{{ user_prompt }}

# ラウンド {{ round_number }}

{% if round_number == 1 %}
## 初期調査フェーズ
- 広範な情報収集を行ってください
- 主要な情報源を特定してください
{% elif round_number == 2 %}
## 深掘りフェーズ
- 前回の結果を分析してください
- 不足している情報を補完してください

### 前回の提出
{{ submission_history }}
{% else %}
## 最終統合フェーズ
- すべての情報を統合してください
- 最終的な回答を作成してください

### これまでの提出履歴
{{ submission_history }}
{% endif %}
"""

evaluator_user_prompt = """
---
現在日時: {{ current_datetime }}
---

# 評価タスク
以下の提出内容を、ユーザタスクに対する適切性で評価してください。

## ユーザタスク
{{ user_prompt }}

## 提出内容
{{ submission }}

## 評価観点
1. 正確性: 情報は正確か
2. 網羅性: 必要な情報が揃っているか
3. 構造性: 論理的に整理されているか
"""

judgment_user_prompt = """
---
現在日時: {{ current_datetime }}
---

# 継続判定タスク
調査を継続するか終了するかを判定してください。

## ユーザタスク
{{ user_prompt }}

## 提出履歴
{{ submission_history }}

## 現在の順位
{{ ranking_table }}

## 判定基準
- **継続**: 情報が不十分、重要な観点が欠落している場合
- **終了**: ユーザタスクに対して十分な回答が可能な場合
"""
'''

COMPETITIVE = '''[prompt_builder]
team_user_prompt = """
# 競合タスク
{{ user_prompt }}

## ラウンド情報
- 現在のラウンド: {{ round_number }}
- {{ team_position_message }}

## リーダーボード
{{ ranking_table }}

{% if round_number > 1 %}
## 過去の提出
{{ submission_history }}

上位チームの戦略を参考に、より良い回答を目指してください。
{% endif %}
"""

evaluator_user_prompt = """
# 競合評価
以下の提出を他チームと比較して評価してください。

## タスク
{{ user_prompt }}

## 提出内容
{{ submission }}
"""

judgment_user_prompt = """
# 競合判定
十分な品質に達したか判定してください。

## リーダーボード
{{ ranking_table }}

## 履歴
{{ submission_history }}
"""
'''
