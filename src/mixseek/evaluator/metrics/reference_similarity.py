"""`reference_similarity`, no model call: token F1 × 100 (SQuAD's) of submission and reference answer, NFKC
case-folded, each kana or kanji a token (no spaces in Japanese), any other letter-digit run one."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

from mixseek.evaluator.metrics.base import MetricOutcome
from mixseek.evaluator.metrics.reference import ReferenceMetric

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
TOKEN = re.compile(rf"[{_CJK}]|(?:(?![{_CJK}])[^\W_])+")


def tokens(text: str) -> list[str]:
    return TOKEN.findall(unicodedata.normalize("NFKC", text).casefold())


def similarity_outcome(submission: str, reference: str) -> MetricOutcome:
    """Token F1 of `submission` against `reference`, with the counts behind it."""
    ours, theirs = tokens(submission), tokens(reference)
    if not theirs:
        return MetricOutcome(score=0.0, comment="the reference answer has no words to compare with")
    common = sum((Counter(ours) & Counter(theirs)).values())
    if common == 0:
        return MetricOutcome(
            score=0.0, comment=f"token F1 0.000: no token of the reference's {len(theirs)} in the submission"
        )
    precision, recall = common / len(ours), common / len(theirs)
    f1 = 2 * precision * recall / (precision + recall)
    return MetricOutcome(
        score=100.0 * f1,
        comment=f"token F1 {f1:.3f}: {common} tokens in common; precision {precision:.3f} "
        f"({common}/{len(ours)} of the submission's), recall {recall:.3f} ({common}/{len(theirs)} "
        "of the reference's)",
    )


class ReferenceSimilarityMetric(ReferenceMetric):
    """Closeness to a known good answer, for tasks that have one (a benchmark's gold answer)."""

    async def score(
        self, user_prompt: str, submission: str, evaluator_prompt: str, *, reference: str | None = None
    ) -> MetricOutcome:
        if reference is None:
            raise ValueError("no reference answer to compare with (give one with --reference)")
        return similarity_outcome(submission, reference)
