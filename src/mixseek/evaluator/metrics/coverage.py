"""`coverage`: does the submission address everything the task asks for?"""

from __future__ import annotations

from typing import ClassVar

from mixseek.evaluator.metrics.base import LLMMetric


class CoverageMetric(LLMMetric):
    instruction: ClassVar[str] = (
        "あなたは回答の網羅性を評価する審査員です。"
        "ユーザのタスクが求める観点・要素を提出内容がどれだけ漏れなく扱っているかを0〜100で採点し、"
        "不足している点を具体的に挙げてください。"
    )
