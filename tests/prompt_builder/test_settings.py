"""PromptBuilderSettings: env > configs/prompt_builder.toml > packaged defaults."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from mixseek.config.workspace import Workspace
from mixseek.errors import ConfigError
from mixseek.prompt_builder import (
    DEFAULT_EVALUATOR_USER_PROMPT,
    DEFAULT_JUDGMENT_USER_PROMPT,
    DEFAULT_TEAM_USER_PROMPT,
    PromptBuilderSettings,
    load_prompt_builder_settings,
)

from .support import write_config


def test_defaults_without_file(workspace: Path) -> None:
    loaded = load_prompt_builder_settings(workspace)
    settings = loaded.value
    assert settings.team_user_prompt == DEFAULT_TEAM_USER_PROMPT
    assert settings.evaluator_user_prompt == DEFAULT_EVALUATOR_USER_PROMPT
    assert settings.judgment_user_prompt == DEFAULT_JUDGMENT_USER_PROMPT
    assert settings.max_submission_history_items is None
    assert settings.submission_preview_chars is None
    assert settings.max_leaderboard_display_teams is None
    assert set(loaded.sources.values()) == {"default"}


def test_file_values(workspace: Path) -> None:
    path = write_config(
        workspace,
        '[prompt_builder]\nteam_user_prompt = """\n# タスク\n{{ user_prompt }}\n"""\n'
        "max_submission_history_items = 3\nsubmission_preview_chars = 200\n"
        "max_leaderboard_display_teams = 10\n",
    )
    loaded = load_prompt_builder_settings(workspace)
    # TOML drops the newline right after the opening """.
    assert loaded.value.team_user_prompt == "# タスク\n{{ user_prompt }}\n"
    assert loaded.value.max_submission_history_items == 3
    assert loaded.value.submission_preview_chars == 200
    assert loaded.value.max_leaderboard_display_teams == 10
    assert loaded.sources["team_user_prompt"] == str(path)
    assert loaded.sources["judgment_user_prompt"] == "default"
    assert loaded.file == path


def test_accepts_workspace_object(workspace: Path) -> None:
    write_config(workspace, '[prompt_builder]\nevaluator_user_prompt = "E {{ submission }}"\n')
    assert (
        load_prompt_builder_settings(Workspace(workspace)).value.evaluator_user_prompt == "E {{ submission }}"
    )


def test_env_beats_file(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_config(workspace, '[prompt_builder]\nteam_user_prompt = "file {{ user_prompt }}"\n')
    monkeypatch.setenv("MIXSEEK_TEAM_USER_PROMPT", "env {{ user_prompt }}")
    monkeypatch.setenv("MIXSEEK_SUBMISSION_PREVIEW_CHARS", "50")
    loaded = load_prompt_builder_settings(workspace)
    assert loaded.value.team_user_prompt == "env {{ user_prompt }}"
    assert loaded.sources["team_user_prompt"] == "env MIXSEEK_TEAM_USER_PROMPT"
    assert loaded.value.submission_preview_chars == 50


@pytest.mark.parametrize(
    ("variable", "field"),
    [
        ("MIXSEEK_EVALUATOR_USER_PROMPT", "evaluator_user_prompt"),
        ("MIXSEEK_JUDGMENT_USER_PROMPT", "judgment_user_prompt"),
    ],
)
def test_env_beats_default(
    workspace: Path, monkeypatch: pytest.MonkeyPatch, variable: str, field: str
) -> None:
    monkeypatch.setenv(variable, "{{ user_prompt }}")
    loaded = load_prompt_builder_settings(workspace)
    assert getattr(loaded.value, field) == "{{ user_prompt }}"
    assert loaded.sources[field] == f"env {variable}"


def test_unrelated_mixseek_env_vars_are_not_unknown_keys(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MIXSEEK_WORKSPACE", str(workspace))
    monkeypatch.setenv("MIXSEEK_SOMETHING_ELSE", "1")
    write_config(workspace, '[prompt_builder]\nteam_user_prompt = "{{ user_prompt }}"\n')
    assert load_prompt_builder_settings(workspace).value.team_user_prompt == "{{ user_prompt }}"
    assert PromptBuilderSettings().team_user_prompt == DEFAULT_TEAM_USER_PROMPT


@pytest.mark.parametrize("field", ["team_user_prompt", "evaluator_user_prompt", "judgment_user_prompt"])
def test_empty_template_in_file(workspace: Path, field: str) -> None:
    path = write_config(workspace, f'[prompt_builder]\n{field} = "  "\n')
    with pytest.raises(ConfigError) as info:
        load_prompt_builder_settings(workspace)
    assert info.value.reason == f"{field} cannot be empty"
    assert str(info.value) == f"{path}: prompt_builder.{field}: {field} cannot be empty"


def test_empty_template_in_env(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MIXSEEK_TEAM_USER_PROMPT", "")
    with pytest.raises(ConfigError) as info:
        load_prompt_builder_settings(workspace)
    assert str(info.value) == "env MIXSEEK_TEAM_USER_PROMPT: team_user_prompt cannot be empty"


def test_empty_template_direct() -> None:
    with pytest.raises(ValidationError, match="team_user_prompt cannot be empty"):
        PromptBuilderSettings(team_user_prompt="")


def test_unknown_key_names_file_and_key(workspace: Path) -> None:
    path = write_config(workspace, '[prompt_builder]\nteam_user_promt = "{{ user_prompt }}"\n')
    with pytest.raises(ConfigError) as info:
        load_prompt_builder_settings(workspace)
    assert info.value.source == str(path)
    assert info.value.key == "prompt_builder.team_user_promt"
    assert str(info.value) == f"{path}: prompt_builder.team_user_promt: unknown key"


def test_unknown_top_level_table(workspace: Path) -> None:
    path = write_config(workspace, '[prompt_bulder]\nteam_user_prompt = "x"\n')
    with pytest.raises(ConfigError) as info:
        load_prompt_builder_settings(workspace)
    assert info.value.source == str(path)
    assert info.value.key == "prompt_bulder"


@pytest.mark.parametrize(
    "field", ["max_submission_history_items", "submission_preview_chars", "max_leaderboard_display_teams"]
)
def test_limits_must_be_positive(workspace: Path, field: str) -> None:
    write_config(workspace, f"[prompt_builder]\n{field} = 0\n")
    with pytest.raises(ConfigError) as info:
        load_prompt_builder_settings(workspace)
    assert info.value.key == f"prompt_builder.{field}"
    assert info.value.reason.startswith(f"{field} must be >= 1")


def test_toml_syntax_error_names_file(workspace: Path) -> None:
    path = write_config(workspace, "[prompt_builder\n")
    with pytest.raises(ConfigError) as info:
        load_prompt_builder_settings(workspace)
    assert info.value.source == str(path)
