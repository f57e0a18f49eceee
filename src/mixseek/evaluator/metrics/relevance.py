"""`relevance`: does the submission answer the task that was asked?"""

from __future__ import annotations

from typing import ClassVar

from mixseek.evaluator.metrics.base import LLMMetric


class RelevanceMetric(LLMMetric):
    instruction: ClassVar[str] = (
        "あなたは回答の関連性を評価する審査員です。"
        "提出内容がユーザのタスクに直接答えているか、無関係な内容や論点のずれがないかを0〜100で採点し、"
        "根拠を簡潔に述べてください。"
    )
