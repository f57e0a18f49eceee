"""`mixseek evaluate`: score one submission with the configured metrics."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from mixseek.cli.console import stdout_console
from mixseek.cli.errors import cli_errors
from mixseek.cli.options import OutputFormatOption, WorkspaceOption
from mixseek.cli.render import check_output_format, print_json, usage_json, usage_table
from mixseek.config.evaluator import EvaluatorSettings
from mixseek.config.loader import load_section
from mixseek.config.workspace import WORKSPACE_ENV, resolve_workspace
from mixseek.evaluator import Evaluator
from mixseek.evaluator.evaluator import EvaluatorPromptRenderer
from mixseek.prompt_builder.builder import UserPromptBuilder
from mixseek.prompt_builder.constants import DEFAULT_EVALUATOR_USER_PROMPT
from mixseek.prompt_builder.formatters import get_current_datetime_with_timezone
from mixseek.prompt_builder.templates import compile_prompt_template


def _renderer(workspace: Path | None) -> EvaluatorPromptRenderer:
    """The workspace's evaluator template when there is a workspace, else the packaged default."""
    if workspace is not None or os.environ.get(WORKSPACE_ENV, "").strip():
        return UserPromptBuilder(resolve_workspace(workspace).root).build_evaluator_prompt
    template = compile_prompt_template("evaluator_user_prompt", DEFAULT_EVALUATOR_USER_PROMPT)

    def render(user_prompt: str, submission: str) -> str:
        return template.render(
            {
                "user_prompt": user_prompt,
                "submission": submission,
                "current_datetime": get_current_datetime_with_timezone(),
            }
        )

    return render


@cli_errors
def evaluate_command(
    prompt: Annotated[str, typer.Argument(help="The task the submission answers.")],
    submission: Annotated[str, typer.Argument(help="The submission to score.")],
    config: Annotated[
        Path | None,
        typer.Option("--config", "-c", help="evaluator.toml (default: WORKSPACE/configs/evaluator.toml)."),
    ] = None,
    workspace: WorkspaceOption = None,
    output_format: OutputFormatOption = "text",
) -> None:
    """Score SUBMISSION as an answer to PROMPT with every configured metric."""
    check_output_format(output_format)
    if config is None:
        config = resolve_workspace(workspace).evaluator_file
    settings = load_section(EvaluatorSettings, config.resolve(), "evaluator").value
    evaluator = Evaluator(settings, _renderer(workspace), base_dir=config.resolve().parent)
    result = asyncio.run(evaluator.evaluate(prompt, submission))
    if output_format == "json":
        print_json(
            {
                "overall_score": result.overall_score,
                "metrics": [m.model_dump(mode="json") for m in result.metrics],
                "usage": usage_json(result.usage),
            }
        )
        return
    out = stdout_console()
    table = Table(title=f"overall score: {result.overall_score:.2f}/100", title_justify="left")
    for column in ("metric", "score", "weight", "comment"):
        table.add_column(column)
    for m in result.metrics:
        table.add_row(escape(m.name), f"{m.score:.2f}", f"{m.weight:.3f}", escape(m.comment))
    out.print(table)
    out.print(usage_table({m.name: m.usage for m in result.metrics} | {"total": result.usage}))
