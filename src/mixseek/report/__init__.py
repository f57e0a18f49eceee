"""Presenting a stored execution as HTML (charts, sanitised Markdown, the self-contained report), shared by
the dashboard and `runs export --format html` so both show a run the same way."""
