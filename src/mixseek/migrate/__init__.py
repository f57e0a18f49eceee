"""`mixseek migrate`: a mixseek-core 0.1.x workspace (configs and `mixseek.db` history) in this format.
`workspace.migrate_workspace` runs it; `configs` plans the new files (converters in `members`, `teams`,
`settings`), `history` reads the old database read-only, and `report` collects what could not be carried over.
The new store is written through `mixseek.storage.import_history`."""
