"""The final pairwise ranking as rows: centred Bradley–Terry log-strengths (0 average) with 95% intervals."""

from __future__ import annotations

from mixseek.storage.pairwise_views import PairwiseView

STANDING_HEADERS = ["#", "team", "strength", "95% CI", "wins", "matches", "score #"]
COMPARISON_HEADERS = ["team a", "team b", "a shown first", "b shown first", "result"]


def heading(pairwise: PairwiseView) -> str:
    """`round_robin, judge openai:gpt-4o: 3 of 3 comparisons, completed (detail)`."""
    status = pairwise.status + (f" ({pairwise.detail})" if pairwise.detail else "")
    judge = f", judge {pairwise.model}" if pairwise.model else ""
    ranked = ", ranked length-controlled" if pairwise.ranked_by == "length_controlled" else ""
    return f"{pairwise.schedule}{judge}: {pairwise.done} of {pairwise.planned} comparisons, {status}{ranked}"


CONTROLLED_TITLE = "Length-controlled (length and Markdown differences as covariates, their effect removed)"


def _number(value: float) -> str:
    return f"{value:+.2f}"


def standing_rows(pairwise: PairwiseView, *, controlled: bool = False) -> list[list[str]]:
    """The stored final ranking, or the length-controlled one fitted at read time."""
    return [
        [
            str(s.rank),
            f"{s.team_name} ({s.team_id})",
            _number(s.strength),
            f"[{_number(s.ci_low)}, {_number(s.ci_high)}]",
            f"{s.wins:g}",
            str(s.matches),
            str(s.score_rank) if s.score_rank is not None else "-",
        ]
        for s in (pairwise.controlled if controlled else pairwise.ranking)
    ]


def pairwise_tables(pairwise: PairwiseView) -> list[tuple[str, list[list[str]]]]:
    """The stored ranking and the length-controlled one, each with its title; none before a ranking."""
    stored = "Bradley–Terry, length-controlled" if pairwise.ranked_by != "plain" else "Bradley–Terry"
    tables = [(stored, standing_rows(pairwise)), (CONTROLLED_TITLE, standing_rows(pairwise, controlled=True))]
    return [(title, rows) for title, rows in tables if rows]


def _verdict(verdict: str, first: str, second: str) -> str:
    return {"A": first, "B": second}.get(verdict, "tie")


def comparison_rows(pairwise: PairwiseView) -> list[list[str]]:
    """Each comparison: the team each order preferred, and the result after the swap."""
    return [
        [
            c.team_a,
            c.team_b,
            _verdict(c.verdict_a_first, c.team_a, c.team_b),
            _verdict(c.verdict_b_first, c.team_b, c.team_a),
            f"{c.winner} wins" if c.winner else "tie",
        ]
        for c in pairwise.comparisons
    ]


def bias_lines(pairwise: PairwiseView) -> list[str]:
    """How the judge leans, each a count with its 95% interval; none before a comparison."""
    bias = pairwise.bias
    if bias is None:
        return []
    lines = [
        f"verdict flipped with the order: {bias.flips.text()}",
        f"longer submission won: {bias.longer_wins.text()}",
    ]
    if bias.own_wins is not None and bias.own_wins_by_score is not None:
        own = ", ".join(bias.own_teams)
        lines.append(f"judge's own model's teams ({own}) won: {bias.own_wins.text()}")
        lines.append(f"the same teams ahead by score: {bias.own_wins_by_score.text()}")
    return lines
