"""mixseek-core's plugin records, at its import paths, for plugins written against it."""
