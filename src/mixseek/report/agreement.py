"""Judge panels' agreement as rows (`runs show`, exports): Krippendorff's alpha per panel metric
(`storage.agreement`), and the rounds whose judges disagreed beyond the threshold."""

from __future__ import annotations

from mixseek.storage.views import ExecutionView, FlaggedSubmission, MetricAgreement

AGREEMENT_HEADER = ["metric", "judges", "aggregate", "rounds", "alpha", "flagged"]
AGREEMENT_TITLE = "judge agreement (Krippendorff's alpha, interval data)"


def _score(value: float | None) -> str:
    return f"{value:.2f}" if value is not None else "-"


def alpha_text(alpha: float | None) -> str:
    """Alpha to three places, or why there is none."""
    return f"{alpha:.3f}" if alpha is not None else "- (too few rounds or no variation)"


def agreement_rows(view: ExecutionView) -> list[list[str]]:
    """One row per panel metric, under `AGREEMENT_HEADER`."""
    return [
        [
            metric,
            str(len(a.judges)),
            a.aggregate or "-",
            str(a.submissions),
            alpha_text(a.alpha),
            f"{len(a.flagged)} (spread > {a.threshold:g})",
        ]
        for metric, a in view.agreement.items()
    ]


def flagged_text(metric: str, agreement: MetricAgreement, flag: FlaggedSubmission) -> str:
    """`relevance: team alpha round 2, spread 60.00 (script:a 20.00, script:b 80.00, ...)`."""
    scores = ", ".join(
        f"{model} {_score(score)}" for model, score in zip(agreement.judges, flag.scores, strict=False)
    )
    return f"{metric}: team {flag.team_id} round {flag.round_number}, spread {_score(flag.spread)} ({scores})"


def flagged_lines(view: ExecutionView) -> list[str]:
    """Every flagged round of every panel metric, one line each."""
    return [
        flagged_text(metric, agreement, flag)
        for metric, agreement in view.agreement.items()
        for flag in agreement.flagged
    ]
