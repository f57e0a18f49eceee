"""The `temporal` engine: an execution as a Temporal workflow (`workflow`), its team rounds as activities on
`mixseek worker` processes anywhere (`team_work`), which record their store writes (`recording`); the `mixseek
exec` process that owns the workspace makes the judgments and applies those writes (`client`), so the store
keeps one writer. Needs the `mixseek[temporal]` extra."""
