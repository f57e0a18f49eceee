"""The mixseek-core workspace being migrated. Its paths resolve against the workspace, this mixseek's against
the naming file: `resolve` does the former so that the converter can write the latter."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mixseek.config.os_strings import escaped, not_utf8
from mixseek.errors import InputError

DB_FILENAME = "mixseek.db"


@dataclass(frozen=True)
class LegacyWorkspace:
    """A mixseek-core workspace directory, opened only for reading."""

    root: Path

    @property
    def configs(self) -> Path:
        return self.root / "configs"

    @property
    def db_path(self) -> Path:
        return self.root / DB_FILENAME

    def resolve(self, ref: str) -> Path:
        """A path as mixseek-core read it: absolute, or relative to the workspace directory."""
        path = Path(ref).expanduser()
        return (path if path.is_absolute() else self.root / path).resolve()

    def label(self, path: Path) -> str:
        """`path` as the report names it: relative to the workspace when inside it."""
        try:
            return path.resolve().relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    def toml_files(self) -> list[Path]:
        """Every TOML file under `configs/`, in a stable order."""
        return sorted(p.resolve() for p in self.configs.rglob("*.toml") if p.is_file())


def open_source(src: Path) -> LegacyWorkspace:
    """The workspace at `src`; a path that is not one is a one-line error."""
    root = src.expanduser().resolve()
    undecodable = not_utf8(str(root))  # by the working directory: an argument is refused before
    if undecodable is not None:
        raise InputError(f"{escaped(str(root))}: {undecodable}")
    if not root.exists():
        raise InputError(f"{root}: no such directory (give the mixseek-core workspace to migrate)")
    if not root.is_dir():
        raise InputError(f"{root}: not a directory (give the mixseek-core workspace to migrate)")
    workspace = LegacyWorkspace(root)
    if not workspace.configs.is_dir() and not workspace.db_path.exists():
        raise InputError(f"{root}: not a mixseek-core workspace (it has neither configs/ nor {DB_FILENAME})")
    return workspace
