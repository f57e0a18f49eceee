"""`mixseek judges calibrate LABELS.csv`: judges, metrics and overall score against human scores."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from mixseek.cli.errors import cli_errors
from mixseek.cli.options import WorkspaceOption
from mixseek.errors import InputError

if TYPE_CHECKING:
    from rich.console import Console

    from mixseek.report.calibration import CalibrationReport, Scored

judges_app = typer.Typer(no_args_is_help=True, help="Check the judges against human scores.")

CALIBRATE_FORMATS = ("text", "json", "markdown")
HEADERS = ["metric", "judge", "pairs", "pearson", "spearman", "MAE", "bias"]
NOTE = "bias = mean of (judge − human); MAE = mean |judge − human|; scores on the judges' scale"


@judges_app.command("calibrate")
@cli_errors
def calibrate_command(
    labels_file: Annotated[
        Path,
        typer.Argument(
            metavar="LABELS.csv",
            help="Header row with execution_id, team_id, round_number, human_score (on the run's scale: "
            "0–100 unless its metrics declare another); other columns are ignored.",
            show_default=False,
        ),
    ],
    workspace: WorkspaceOption = None,
    output_format: Annotated[
        str, typer.Option("--format", "--output-format", "-f", help="text, json or markdown.")
    ] = "text",
) -> None:
    """Compare each judge, metric and the overall score with human scores of the same
    submissions: number of pairs, Pearson and Spearman correlation, mean absolute error, bias."""
    from mixseek.config.workspace import resolve_workspace
    from mixseek.report.calibration import calibration_report

    if output_format not in CALIBRATE_FORMATS:
        raise InputError(f"--format: must be 'text', 'json' or 'markdown' (got '{output_format}')")
    report = calibration_report(labels_file, resolve_workspace(workspace).db_path)
    if output_format == "json":
        from mixseek.cli.render import print_json

        print_json(report.document())
    elif output_format == "markdown":
        from mixseek.redaction import redact
        from mixseek.text_safety import strip_controls

        typer.echo(strip_controls(redact(markdown(report))), nl=False)
    else:
        from mixseek.cli.console import stdout_console

        print_table(stdout_console(), report)


def _correlation(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _kind(row: Scored) -> str:
    return {"judge": "one judge", "panel": f"panel, {row.aggregate}"}.get(row.kind or "", row.kind or "")


def figures(row: Scored) -> list[str]:
    """A row's figures: pairs, correlations (3 decimals), points (2 decimals)."""
    c = row.calibration
    return [str(c.pairs), _correlation(c.pearson), _correlation(c.spearman), f"{c.mae:.2f}", f"{c.bias:+.2f}"]


def cells(row: Scored) -> list[str]:
    """A row's cells as two columns, metric and judge, then its figures."""
    if row.scope == "overall":
        what = ["(overall)", "(evaluation score)"]
    elif row.scope == "metric":
        what = [row.metric or "", f"({_kind(row)})"]
    else:
        what = [row.metric or "", row.model or ""]
    return [*what, *figures(row)]


def shown(report: CalibrationReport) -> list[Scored]:
    """The rows to show: a metric judged by one model only as that model's row (the same pairs)."""
    return [row for row in report.rows if not _stands_for_its_judge(report, row)]


def _stands_for_its_judge(report: CalibrationReport, row: Scored) -> bool:
    """`row` is a metric judged by one model, which has its own row."""
    if row.scope != "metric" or row.kind != "judge":
        return False
    return sum(1 for other in report.rows if other.scope == "judge" and other.metric == row.metric) == 1


def label(report: CalibrationReport, row: Scored) -> str:
    """The text table's name column: a panel's judges indented, a one-model metric `metric: model`."""
    if row.scope == "overall":
        return "overall (evaluation score)"
    if row.scope == "metric":
        return f"{row.metric} ({_kind(row)})"
    metric = next(r for r in report.rows if r.scope == "metric" and r.metric == row.metric)
    return f"{row.metric}: {row.model}" if _stands_for_its_judge(report, metric) else f"  {row.model}"


def _summary(report: CalibrationReport) -> str:
    return f"{report.labels} label(s) over {len(report.executions)} execution(s)"


def print_table(console: Console, report: CalibrationReport) -> None:
    """A name column that wraps, and figures that keep their width (whole at 80 columns)."""
    from rich.table import Table
    from rich.text import Text

    console.print(Text(_summary(report)))
    rows = [[label(report, row), *figures(row)] for row in shown(report)]
    table = Table(title="judges against human scores", title_justify="left")
    table.add_column("metric / judge", overflow="fold")
    for index, header in enumerate(HEADERS[2:], start=1):
        widest = max(len(header), *(len(row[index]) for row in rows))
        table.add_column(header, justify="right", no_wrap=True, min_width=widest)
    for row in rows:
        table.add_row(*(Text(cell) for cell in row))  # Text: no rich markup read in names
    console.print(table)
    console.print(Text(NOTE))


def markdown(report: CalibrationReport) -> str:
    from mixseek.report.markdown_escape import table

    rule = ["---" if i < 2 else "---:" for i in range(len(HEADERS))]
    rows = table(HEADERS, [cells(row) for row in shown(report)], rule)
    return "\n".join(["# Judges against human scores", "", f"{_summary(report)}; {NOTE}.", "", *rows]) + "\n"
