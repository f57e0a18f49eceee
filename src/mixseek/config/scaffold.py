"""Writing sample config files: a whole workspace (`mixseek init`) or one kind (`mixseek config init`)."""

from __future__ import annotations

from datetime import date
from importlib import resources
from pathlib import Path
from string import Template
from typing import Literal, get_args

from mixseek.config.workspace import Workspace
from mixseek.errors import InputError

DEFAULT_SAMPLE_MODEL = "local:smollm2"

SampleLanguage = Literal["ja", "en"]
"""The language of a sample workspace's instructions, templates and prompt (`ja` by default)."""
SAMPLE_LANGUAGES: tuple[str, ...] = get_args(SampleLanguage)

SAMPLE_PROMPTS: dict[SampleLanguage, str] = {
    "ja": "日本の少子化対策を3つ提案してください",
    "en": "Propose three measures against Japan's declining birth rate",
}
"""The task the sample workspace is shaped for; `mixseek init` writes it to `prompt.txt`."""
PROMPT_FILE = "prompt.txt"

# sample resources written by `mixseek init`, each to the same path under `configs/`
WORKSPACE_FILES: tuple[str, ...] = (
    "orchestrator.toml",
    "evaluator.toml",
    "judgment.toml",
    "prompt_builder.toml",
    "agents/team-analysts.toml",
    "agents/team-writers.toml",
    "agents/members/writer.toml",
)

# `mixseek config init --kind K` -> (sample resource, default path inside the workspace)
CONFIG_KINDS: dict[str, tuple[str, str]] = {
    "prompt_builder": ("prompt_builder.toml", "configs/prompt_builder.toml"),
    "orchestrator": ("orchestrator.toml", "configs/orchestrator.toml"),
    "evaluator": ("evaluator.toml", "configs/evaluator.toml"),
    "judgment": ("judgment.toml", "configs/judgment.toml"),
    "team": ("agents/team-analysts.toml", "configs/agents/team-analysts.toml"),
    "member": ("member.toml", "configs/agents/members/assistant.toml"),
}


def check_language(language: str) -> SampleLanguage:
    """`language` as a sample language, or one line naming the choices."""
    if language not in SAMPLE_LANGUAGES:
        raise InputError(
            f"--language: unknown language '{language}' (choose from {', '.join(SAMPLE_LANGUAGES)})"
        )
    return language  # type: ignore[return-value]


def render_sample(resource: str, model: str, language: SampleLanguage = "ja") -> str:
    """A packaged sample, its model and date filled in (Japanese: `samples/`, English: `samples/en/`)."""
    folder = resources.files("mixseek.config").joinpath("samples")
    if language != "ja":
        folder = folder.joinpath(language)
    text = folder.joinpath(resource).read_text(encoding="utf-8")
    return Template(text).safe_substitute(model=model, date=date.today().isoformat())


def _write_sample(resource: str, target: Path, model: str, language: SampleLanguage) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(render_sample(resource, model, language), encoding="utf-8")


def _refuse_overwrite(paths: list[Path]) -> None:
    existing = [p for p in paths if p.exists()]
    if existing:
        raise InputError(f"{existing[0]}: already exists; pass --force to overwrite (nothing was written)")


def write_workspace(
    root: Path, model: str, *, force: bool = False, language: SampleLanguage = "ja"
) -> list[Path]:
    """Create the workspace, its sample configs and `prompt.txt` in `language`; overwrite only if forced."""
    language = check_language(language)
    workspace = Workspace(root)
    targets = {resource: workspace.configs / resource for resource in WORKSPACE_FILES}
    prompt_file = workspace.root / PROMPT_FILE
    if not force:
        _refuse_overwrite([*targets.values(), prompt_file])
    for directory in (workspace.configs, workspace.agents, workspace.logs):
        directory.mkdir(parents=True, exist_ok=True)
    written = []
    for resource, target in targets.items():
        _write_sample(resource, target, model, language)
        written.append(target)
    prompt_file.write_text(SAMPLE_PROMPTS[language] + "\n", encoding="utf-8")
    written.append(prompt_file)
    return written


def write_config_kind(
    root: Path,
    kind: str,
    model: str,
    *,
    output: Path | None = None,
    force: bool = False,
    language: SampleLanguage = "ja",
) -> Path:
    """Write one sample config file of the given kind."""
    language = check_language(language)
    if kind not in CONFIG_KINDS:
        raise InputError(f"--kind: unknown config kind '{kind}' (choose from {', '.join(CONFIG_KINDS)})")
    resource, rel = CONFIG_KINDS[kind]
    target = output if output is not None else root / rel
    if not force:
        _refuse_overwrite([target])
    _write_sample(resource, target, model, language)
    return target
