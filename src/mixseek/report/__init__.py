"""Presenting a stored execution as HTML: score charts, sanitised Markdown, the self-contained report.

Shared by the web dashboard and `mixseek runs export --format html`, so both show one execution
the same way; it needs only the core install.
"""
