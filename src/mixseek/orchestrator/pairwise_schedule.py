"""Which pairs of teams the pairwise stage compares, under a bounded number of comparisons. Round robin
(ordered by the circle method, so a cut list still spreads the matches), top K, or Swiss (neighbours in the
standing who have not met). Teams come best score first; the better is `a`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

Pair = tuple[str, str]


def round_robin(teams: Sequence[str]) -> list[Pair]:
    """Every pair once, round by round (circle method: one team fixed, the others rotating)."""
    place = {team: i for i, team in enumerate(teams)}
    # an odd count gets a bye as the fixed place: then the two best teams meet first
    ring: list[str | None] = [*([None] if len(teams) % 2 else []), *teams]
    n = len(ring)
    pairs: list[Pair] = []
    for _ in range(n - 1):
        for i in range(n // 2):
            a, b = ring[i], ring[n - 1 - i]
            if a is not None and b is not None:
                pairs.append((a, b) if place[a] < place[b] else (b, a))
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return pairs


def top_k(teams: Sequence[str], k: int) -> list[Pair]:
    """The round robin among the first `k` teams (best score first)."""
    return round_robin(teams[:k])


def swiss_round(teams: Sequence[str], points: Mapping[str, float], met: set[frozenset[str]]) -> list[Pair]:
    """One Swiss round: each team meets the next unmet one in the standing (else the closest unmet pair)."""
    place = {team: i for i, team in enumerate(teams)}
    standing = sorted(teams, key=lambda t: (-points.get(t, 0.0), place[t]))
    unpaired = list(standing)
    pairs: list[Pair] = []
    while unpaired:
        a = unpaired.pop(0)
        for j, b in enumerate(unpaired):
            if frozenset((a, b)) not in met:
                pairs.append((a, b) if place[a] < place[b] else (b, a))
                del unpaired[j]
                break
    if pairs:
        return pairs
    unmet = [
        (j - i, i, standing[i], standing[j])
        for i in range(len(standing))
        for j in range(i + 1, len(standing))
        if frozenset((standing[i], standing[j])) not in met
    ]
    if not unmet:
        return []
    _, _, a, b = min(unmet)
    return [(a, b) if place[a] < place[b] else (b, a)]
