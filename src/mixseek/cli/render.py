"""Shared pieces of command output (quick commands import it: nothing here loads pydantic-ai)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from mixseek.errors import InputError
from mixseek.redaction import redact

if TYPE_CHECKING:
    from pydantic_ai import RunUsage
    from rich.table import Table

OUTPUT_FORMATS = ("text", "json")


def check_output_format(value: str, option: str = "--output-format") -> str:
    if value not in OUTPUT_FORMATS:
        raise InputError(f"{option}: must be 'text' or 'json' (got '{value}')")
    return value


def check_new_output(output: Path | None, force: bool) -> None:
    """Checked before any work: an existing `--output` file is overwritten only with `--force`."""
    if output is not None and output.exists() and not force:
        raise InputError(f"--output: {output} already exists (pass --force to overwrite)")


def write_output(target: Path, text: str, force: bool) -> None:
    try:
        with target.open("w" if force else "x", encoding="utf-8") as out:
            out.write(text)
    except FileExistsError:
        raise InputError(f"--output: {target} already exists (pass --force to overwrite)") from None
    except OSError as exc:
        raise InputError(f"--output: cannot write {target}: {exc.strerror or exc}") from None


def json_text(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2, default=str)


def print_json(data: Any) -> None:
    typer.echo(redact(json_text(data)))


def usage_table(rows: dict[str, RunUsage]) -> Table:
    from rich.table import Table

    table = Table(title="token usage", title_justify="left")
    for column in ("", "requests", "input tokens", "output tokens", "tool calls"):
        table.add_column(column, justify="right" if column else "left")
    for name, u in rows.items():
        table.add_row(name, *map(str, (u.requests, u.input_tokens, u.output_tokens, u.tool_calls)))
    return table


def usage_json(usage: RunUsage) -> dict[str, Any]:
    from mixseek.agents.leader.models import usage_to_dict  # with the agents that produced `usage`

    return dict(usage_to_dict(usage))
