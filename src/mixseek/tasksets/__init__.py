"""`mixseek bench`: a task set run N times over the workspace's teams, and the evidence of which
set-up is better — win rates, mean scores and ranks with confidence intervals, pairwise tables
with a paired sign test.

Sits beside the orchestrator (the API and engine layer): each run is an ordinary execution
through `mixseek.api`; the bench's own rows are in the store (`storage.bench_store`).
"""
