"""Where a workspace keeps its configs, logs and database."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from mixseek.config.os_strings import escaped, not_utf8
from mixseek.errors import ConfigError

WORKSPACE_ENV = "MIXSEEK_WORKSPACE"


@dataclass(frozen=True)
class Workspace:
    """The fixed layout under one workspace directory."""

    root: Path

    @property
    def configs(self) -> Path:
        return self.root / "configs"

    @property
    def agents(self) -> Path:
        return self.configs / "agents"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    @property
    def db_path(self) -> Path:
        return self.root / "mixseek.db"

    @property
    def orchestrator_file(self) -> Path:
        return self.configs / "orchestrator.toml"

    @property
    def evaluator_file(self) -> Path:
        return self.configs / "evaluator.toml"

    @property
    def judgment_file(self) -> Path:
        return self.configs / "judgment.toml"

    @property
    def prompt_builder_file(self) -> Path:
        return self.configs / "prompt_builder.toml"


def resolve_workspace(option: Path | str | None = None, *, must_exist: bool = True) -> Workspace:
    """The workspace from the CLI option, else from $MIXSEEK_WORKSPACE."""
    if option is not None and str(option) != "":
        source, raw = "--workspace", str(option)
    else:
        env_value = os.environ.get(WORKSPACE_ENV, "")
        if not env_value.strip():
            raise ConfigError(
                "--workspace", None, f"no workspace given: pass --workspace/-w DIR or set {WORKSPACE_ENV}"
            )
        source, raw = WORKSPACE_ENV, env_value
    root = Path(raw).expanduser().resolve()
    # a byte that is not UTF-8, from $MIXSEEK_WORKSPACE or the working directory (an argument is
    # refused before: `cli.utf8_arguments`): the store and the logs name the workspace in UTF-8
    undecodable = not_utf8(str(root))
    if undecodable is not None:
        raise ConfigError(source, None, f"the workspace path {escaped(str(root))} is {undecodable}")
    if must_exist and not root.is_dir():
        raise ConfigError(source, None, f"workspace directory does not exist: {root} (run 'mixseek init')")
    if root.exists() and not root.is_dir():
        raise ConfigError(source, None, f"workspace path is not a directory: {root}")
    return Workspace(root)
