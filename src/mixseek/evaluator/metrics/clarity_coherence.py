"""`clarity_coherence`: is the submission clear and logically organised?"""

from __future__ import annotations

from typing import ClassVar

from mixseek.evaluator.metrics.base import LLMMetric


class ClarityCoherenceMetric(LLMMetric):
    instruction: ClassVar[str] = (
        "あなたは文章の明瞭性と一貫性を評価する審査員です。"
        "提出内容が読みやすく、論理的に構成され、矛盾なく一貫しているかを0〜100で採点し、根拠を簡潔に述べてください。"
        "内容の正しさや網羅性ではなく、伝わりやすさと論理の流れを評価してください。"
    )
