"""`mixseek migrate`: a mixseek-core 0.1.x workspace (configs, `mixseek.db` history) in this format
(`workspace.migrate_workspace`; `configs` plans the files, `history` reads the old database read-only)."""
