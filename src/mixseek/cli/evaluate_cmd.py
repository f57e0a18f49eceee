"""`mixseek evaluate`: score one submission with the configured metrics (the evaluator loads inside)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from mixseek.cli.console import stdout_console
from mixseek.cli.errors import cli_errors
from mixseek.cli.options import OutputFormatOption, PromptFileOption, SubmissionFileOption, WorkspaceOption
from mixseek.cli.prompt_input import STDIN, given_reference, given_text, required_text
from mixseek.cli.render import check_output_format, print_json, usage_json, usage_table
from mixseek.config.workspace import WORKSPACE_ENV, resolve_workspace
from mixseek.errors import InputError
from mixseek.text_safety import strip_controls

if TYPE_CHECKING:
    from mixseek.evaluator.evaluator import EvaluatorPromptRenderer
    from mixseek.evaluator.models import EvaluationResult


def _renderer(workspace: Path | None) -> EvaluatorPromptRenderer:
    """The workspace's evaluator template when there is a workspace, else the packaged default."""
    from mixseek.config.prompt_templates import compile_prompt_template
    from mixseek.prompt_builder.builder import UserPromptBuilder
    from mixseek.prompt_builder.constants import DEFAULT_EVALUATOR_USER_PROMPT
    from mixseek.prompt_builder.formatters import get_current_datetime_with_timezone

    if workspace is not None or os.environ.get(WORKSPACE_ENV, "").strip():
        return UserPromptBuilder(resolve_workspace(workspace).root).build_evaluator_prompt
    template = compile_prompt_template("evaluator_user_prompt", DEFAULT_EVALUATOR_USER_PROMPT)

    def render(user_prompt: str, submission: str) -> str:
        now = get_current_datetime_with_timezone()
        return template.render(
            {"user_prompt": user_prompt, "submission": submission, "current_datetime": now}
        )

    return render


def _texts(
    first: str | None, second: str | None, prompt_file: str | None, submission_file: str | None
) -> tuple[str, str]:
    """PROMPT and SUBMISSION (with `--prompt-file`, one argument is the SUBMISSION)."""
    if prompt_file == STDIN and submission_file == STDIN:
        raise InputError("--submission-file: standard input is already read by --prompt-file")
    if prompt_file is not None and submission_file is None and second is None:
        first, second = None, first
    prompt = given_text(first, prompt_file, name="PROMPT", option="--prompt-file")
    submission = given_text(second, submission_file, name="SUBMISSION", option="--submission-file")
    return (
        required_text(prompt, name="PROMPT", option="--prompt-file"),
        required_text(submission, name="SUBMISSION", option="--submission-file"),
    )


@cli_errors
def evaluate_command(
    prompt: Annotated[
        str | None,
        typer.Argument(metavar="PROMPT", help="The task the submission answers.", show_default=False),
    ] = None,
    submission: Annotated[
        str | None, typer.Argument(metavar="SUBMISSION", help="The submission to score.", show_default=False)
    ] = None,
    prompt_file: PromptFileOption = None,
    submission_file: SubmissionFileOption = None,
    config: Annotated[
        Path | None,
        typer.Option("--config", "-c", help="evaluator.toml (default: the one in WORKSPACE/configs)."),
    ] = None,
    workspace: WorkspaceOption = None,
    output_format: OutputFormatOption = "text",
    reference: Annotated[
        str | None,
        typer.Option("--reference", help="A reference answer for reference_similarity.", show_default=False),
    ] = None,
    reference_file: Annotated[
        str | None,
        typer.Option("--reference-file", help="Read the reference answer from PATH.", show_default=False),
    ] = None,
) -> None:
    """Score SUBMISSION as an answer to PROMPT with every configured metric."""
    from mixseek.config.evaluator import EvaluatorSettings
    from mixseek.config.loader import load_section
    from mixseek.evaluator.evaluator import Evaluator
    from mixseek.prompt_builder.formatters import check_timezone_env

    check_output_format(output_format)
    check_timezone_env()  # the prompt shows the time: a bad $TZ is one line now, not a traceback later
    prompt_text, submission_text = _texts(prompt, submission, prompt_file, submission_file)
    reference_text = given_reference(reference, reference_file, resume=None)
    if config is None:
        config = resolve_workspace(workspace).evaluator_file
    settings = load_section(EvaluatorSettings, config.resolve(), "evaluator").value
    evaluator = Evaluator(settings, _renderer(workspace), base_dir=config.resolve().parent)
    if reference_text is None and evaluator.reference_metrics:
        names = ", ".join(f"'{name}'" for name in evaluator.reference_metrics)
        raise InputError(f"--reference: metric {names} compares the submission with a reference answer")
    import asyncio  # here, not on top: `mixseek --help` and the quick commands need no event loop

    result = asyncio.run(evaluator.evaluate(prompt_text, submission_text, reference=reference_text))
    _print_result(result, output_format, "/100" if str(evaluator.scale) == "0-100" else "")


def _print_result(result: EvaluationResult, output_format: str, out_of: str) -> None:
    if output_format == "json":
        print_json(
            {
                "overall_score": result.score,  # the output's name for it
                "metrics": [m.model_dump(mode="json") for m in result.metrics],
                "usage": usage_json(result.usage),
            }
        )
        return
    from rich.markup import escape
    from rich.table import Table

    out = stdout_console()
    table = Table(title=f"overall score: {result.score:.2f}{out_of}", title_justify="left")
    for column in ("metric", "score", "weight", "comment"):
        table.add_column(column)
    for m in result.metrics:
        table.add_row(escape(m.name), f"{m.score:.2f}", f"{m.weight:.3f}", escape(strip_controls(m.comment)))
    out.print(table)
    out.print(usage_table({m.name: m.usage for m in result.metrics} | {"total": result.usage}))
