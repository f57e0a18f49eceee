"""`mixseek ui`: a web dashboard over a workspace's store (needs the `mixseek[ui]` extra)."""
