"""Every command's `--help`, as a new user reads it on an 80-column terminal: a flag shows no type
(`--force`, not `--force <bool>`), no help text is cut off (`…`) or swallowed as Rich markup, a
group's list of commands wraps each description as one paragraph, and arguments are named as the
README names them (`PROMPT`, `EXECUTION_ID`).

Each help is printed by the real `mixseek` program in a process of its own, as a user runs it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

COMMANDS = [
    [],
    ["init"],
    ["exec"],
    ["bench"],
    ["team"],
    ["member"],
    ["evaluate"],
    ["ui"],
    ["worker"],
    ["doctor"],
    ["migrate"],
    ["config"],
    ["config", "init"],
    ["config", "show"],
    ["config", "validate"],
    ["runs"],
    ["runs", "list"],
    ["runs", "show"],
    ["runs", "export"],
    ["judges"],
    ["judges", "calibrate"],
]


def help_text(*args: str) -> str:
    """`mixseek ARGS --help` at 80 columns, each line without its trailing blanks."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MIXSEEK_")}
    proc = subprocess.run(
        [sys.executable, "-m", "mixseek.cli", *args, "--help"],
        capture_output=True,
        text=True,
        env={**env, "COLUMNS": "80", "TERM": "dumb", "NO_COLOR": "1"},
        timeout=300,
        check=False,
    )
    assert (proc.returncode, proc.stderr) == (0, ""), proc.stderr
    return "\n".join(line.rstrip() for line in proc.stdout.splitlines())


def rows(text: str) -> list[str]:
    """The rows of the help's boxes, their cells' runs of blanks made one."""
    return [" ".join(line.strip("│ ").split()) for line in text.splitlines() if line.startswith("│")]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda args: " ".join(args) or "mixseek")
def test_no_flag_shows_a_type_and_no_text_is_cut(args: list[str]) -> None:
    text = help_text(*args)
    assert "<bool>" not in text
    assert "…" not in text  # a word too long for its column was cut off
    assert all(len(line) <= 80 for line in text.splitlines())
    assert "--help Show this message and exit." in rows(text)


def test_root_help_reads_whole_at_80_columns() -> None:
    text = help_text()
    options = text.split("╭─ Options")[1].split("╰")[0]
    assert rows(options) == ["--version Print the version and exit.", "--help Show this message and exit."]
    listing = text.split("╭─ Commands")[1].split("╰")[0].splitlines()[1:]
    # each description one paragraph, wrapped to the column: no line broken where the docstring was
    assert listing[4:9] == [
        "│ bench     Run every team on every task of TASKS.jsonl (N times each); report │",
        "│           win rates, mean scores and ranks with confidence intervals, and    │",
        "│           pairwise tables with a sign test.                                  │",
        "│ team      Run one team (a leader and its members, or a workflow's steps) on  │",
        "│           PROMPT once and show what each member or executor did.             │",
    ]


def test_group_listings_wrap_each_description_as_one_paragraph() -> None:
    assert rows(help_text("runs").split("╭─ Commands")[1]) == [
        "list Executions, newest first: status, best team and score, rounds,",
        "tokens.",
        "show One execution: leaderboard, every team's rounds with scores and",
        "judgments, the winner, usage.",
        "export Everything about one execution, as JSON (every submission), a",
        "Markdown report, or one self-contained HTML page (charts inline, no",
        "scripts) to attach to an e-mail or a pull request.",
    ]
    assert rows(help_text("judges").split("╭─ Commands")[1]) == [
        "calibrate Compare each judge, metric and the overall score with human",
        "scores of the same submissions: number of pairs, Pearson and",
        "Spearman correlation, mean absolute error, bias.",
    ]


def test_exec_help_names_its_argument_and_shows_every_help_text_whole() -> None:
    text = help_text("exec")
    assert " Usage: mixseek exec [OPTIONS] [PROMPT]" in text.splitlines()
    options = rows(text)
    assert "PROMPT <str> The task every team works on." in options
    assert "--dry-run Check everything; call no model." in options
    config = [line for line in options if "orchestrator.toml (default" in line or "WORKSPACE/configs" in line]
    assert config == ["--config -c <path> orchestrator.toml (default: the", "one in WORKSPACE/configs)."]
    # the default of --otel was read as Rich markup and left out
    otel = " ".join(options[options.index(next(o for o in options if o.startswith("--otel"))) :][:5])
    assert "(default: orchestrator.toml's telemetry, else off)." in otel
    assert any(line.startswith("--workers N [1<=x<=256] Worker processes") for line in options)


@pytest.mark.parametrize(
    ("args", "usage", "argument"),
    [
        (["team"], "Usage: mixseek team [OPTIONS] [PROMPT]", "PROMPT <str> The task for the team."),
        (["member"], "Usage: mixseek member [OPTIONS] [PROMPT]", "PROMPT <str> The task for the member."),
        (
            ["evaluate"],
            "Usage: mixseek evaluate [OPTIONS] [PROMPT] [SUBMISSION]",
            "SUBMISSION <str> The submission to score.",
        ),
        (
            ["runs", "show"],
            "Usage: mixseek runs show [OPTIONS] {EXECUTION_ID}",
            "* EXECUTION_ID <str> The execution id (see 'mixseek runs list').",
        ),
        (
            ["runs", "export"],
            "Usage: mixseek runs export [OPTIONS] {EXECUTION_ID}",
            "* EXECUTION_ID <str> The execution id (see 'mixseek runs list').",
        ),
    ],
)
def test_arguments_are_named_as_the_readme_names_them(args: list[str], usage: str, argument: str) -> None:
    text = help_text(*args)
    assert f" {usage}" in text.splitlines()
    assert argument in rows(text)
