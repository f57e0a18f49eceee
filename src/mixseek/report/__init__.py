"""Stored executions as HTML (charts, sanitised Markdown, the report), alike on the dashboard and exported."""
