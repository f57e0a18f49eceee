"""Shared pieces of command output: output-format checks, usage rows, JSON printing."""

from __future__ import annotations

import json
from typing import Any

import typer
from pydantic_ai import RunUsage
from rich.table import Table

from mixseek.agents.leader.models import usage_to_dict
from mixseek.errors import MixseekError

OUTPUT_FORMATS = ("text", "json")


def check_output_format(value: str) -> str:
    if value not in OUTPUT_FORMATS:
        raise MixseekError(f"--output-format: must be 'text' or 'json' (got '{value}')")
    return value


def print_json(data: Any) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))


def usage_table(rows: dict[str, RunUsage], title: str = "token usage") -> Table:
    table = Table(title=title, title_justify="left")
    for column in ("", "requests", "input tokens", "output tokens", "tool calls"):
        table.add_column(column, justify="right" if column else "left")
    for name, usage in rows.items():
        table.add_row(
            name,
            str(usage.requests),
            str(usage.input_tokens),
            str(usage.output_tokens),
            str(usage.tool_calls),
        )
    return table


def usage_json(usage: RunUsage) -> dict[str, Any]:
    return dict(usage_to_dict(usage))
