"""Reading TOML config files into settings models, with env overrides and provenance: for files the
environment wins over TOML over defaults; in code, the constructor wins over the environment.
pydantic-settings is loaded only when a variable a model reads is set (it costs every run ~30 ms)."""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar, cast

from pydantic import BaseModel, ConfigDict, ValidationError

from mixseek.config.nesting import TOO_DEEP, too_deep
from mixseek.errors import ConfigError

if TYPE_CHECKING:
    from pydantic_settings import BaseSettings

ModelT = TypeVar("ModelT", bound=BaseModel)

DEFAULT_SOURCE = "default"


class MixseekSettings(BaseModel):
    """Base for settings read from a TOML section and overridable by `env_prefix` + field name (any case).
    Constructor arguments beat the environment; `validate_data` lays the environment over a file's values
    before they are passed in, so for files the environment wins."""

    model_config = ConfigDict(extra="forbid", validate_default=True)

    env_prefix: ClassVar[str] = ""

    def __init__(self, **data: Any) -> None:
        super().__init__(**over(env_values(type(self)), data))


@dataclass
class Loaded(Generic[ModelT]):
    """A validated settings object and where each of its top-level values came from."""

    value: ModelT
    file: Path | None
    sources: dict[str, str] = field(default_factory=dict)


def decode_utf8(data: bytes, source: Path | str) -> str:
    """`data` as UTF-8 text; bad bytes are a ConfigError naming the first one and its offset."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            source, None, f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from None


def read_toml(path: Path, *, required: bool = True) -> dict[str, Any]:
    """Parse one TOML file; a missing optional file reads as empty, one nested too deeply is refused."""
    if not path.exists():
        if required:
            raise ConfigError(path, None, "file not found")
        return {}
    if not path.is_file():
        raise ConfigError(path, None, "not a regular file")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(path, None, f"cannot read file: {exc.strerror or exc}") from None
    try:
        parsed = tomllib.loads(decode_utf8(data, path))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(path, None, f"TOML syntax error: {exc}") from None
    except RecursionError:  # the parser recurses once per level of arrays and inline tables
        raise ConfigError(path, None, TOO_DEEP) from None
    if too_deep(parsed):
        raise ConfigError(path, None, TOO_DEEP)
    return parsed


def take_section(data: Mapping[str, Any], section: str, *, path: Path | str) -> dict[str, Any]:
    """The `[section]` table of a parsed file; any other top-level key is an error."""
    unknown = [k for k in data if k != section]
    if unknown:
        raise ConfigError(path, unknown[0], f"unknown top-level key (expected only [{section}])")
    table = data.get(section, {})
    if not isinstance(table, dict):
        raise ConfigError(path, section, "must be a table")
    return dict(table)


def relative_path(base_file: Path, ref: str) -> Path:
    """`ref` resolved against the directory of `base_file` (the file that names it)."""
    return (base_file.parent / ref).resolve()


def env_values(model: type[BaseModel]) -> dict[str, Any]:
    """The values the environment supplies for a settings model (tables and lists as JSON)."""
    if not issubclass(model, MixseekSettings) or not _reads_environment(model):
        return {}
    from pydantic_settings import EnvSettingsSource, SettingsError

    # the source reads only the class's `model_config` and `model_fields`, which a settings model has
    source = EnvSettingsSource(cast("type[BaseSettings]", model), env_prefix=model.env_prefix)
    try:
        return dict(source())
    except SettingsError as exc:
        named = re.search(r'field "([^"]+)"', str(exc))
        where = f"env {env_var_name(model, named.group(1))}" if named else f"env {model.env_prefix}*"
        cause = exc.__cause__
        reason = f"not valid JSON ({cause})" if isinstance(cause, ValueError) else str(exc)
        raise ConfigError(where, None, reason) from None


def _reads_environment(model: type[MixseekSettings]) -> bool:
    """Whether a variable `model` reads is set (names compared without case, as pydantic-settings does)."""
    if not model.env_prefix:
        return False
    wanted = {env_var_name(model, name).lower() for name in model.model_fields}
    return any(name.lower() in wanted for name in os.environ)


def over(base: Mapping[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    """`base` with `top` laid over it, tables merged the same way (as pydantic-settings merges env tables)."""
    merged = dict(base)
    for key, value in top.items():
        below = merged.get(key)
        if isinstance(below, Mapping) and isinstance(value, Mapping):
            merged[key] = over(below, value)
        else:
            merged[key] = value
    return merged


def env_var_name(model: type[BaseModel], field_name: str) -> str:
    prefix = model.env_prefix if issubclass(model, MixseekSettings) else ""
    return f"{prefix}{field_name}".upper()


def format_loc(section: str | None, loc: tuple[int | str, ...]) -> str:
    """`team.members[1].model` style dotted key for an error location."""
    out = section or ""
    for part in loc:
        if isinstance(part, str) and " " in part:
            continue  # a discriminated union's tag (e.g. "agent executor"): no key has a space
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out = f"{out}.{part}" if out else str(part)
    return out or "(root)"


def _reason(error: Mapping[str, Any]) -> str:
    msg = str(error["msg"])
    if error["type"] == "extra_forbidden":
        return "unknown key"
    if error["type"] == "missing":
        return "required key is missing"
    # pydantic prefixes messages of custom validators with "Value error, "
    return msg.removeprefix("Value error, ").removeprefix("Assertion failed, ")


def errors_from_validation(
    exc: ValidationError,
    *,
    model: type[BaseModel],
    path: Path | str,
    section: str | None,
    from_env: Mapping[str, Any] | None = None,
) -> ConfigError:
    """Turn a pydantic ValidationError into one ConfigError that carries all problems."""
    problems: list[ConfigError] = []
    for error in exc.errors():
        loc = tuple(error["loc"])
        top = loc[0] if loc else None
        if from_env and isinstance(top, str) and top in from_env:
            problems.append(ConfigError(f"env {env_var_name(model, top)}", None, _reason(error)))
        else:
            problems.append(ConfigError(path, format_loc(section, loc), _reason(error)))
    return ConfigError.combine(problems)


def validate_data(
    model: type[ModelT], data: Mapping[str, Any], *, path: Path | str, section: str | None
) -> Loaded[ModelT]:
    """Validate already-read TOML data; the environment overrides it for settings models."""
    from_env = env_values(model)
    try:
        value = model.model_validate(over(data, from_env))
    except ValidationError as exc:
        raise errors_from_validation(
            exc, model=model, path=path, section=section, from_env=from_env
        ) from None
    sources: dict[str, str] = {}
    for name in type(value).model_fields:
        if name in from_env:
            sources[name] = f"env {env_var_name(model, name)}"
        elif name in data:
            sources[name] = str(path)
        else:
            sources[name] = DEFAULT_SOURCE
    file = Path(path) if not str(path).startswith("env ") else None
    return Loaded(value=value, file=file, sources=sources)


def load_section(model: type[ModelT], path: Path, section: str, *, required: bool = True) -> Loaded[ModelT]:
    """Read `[section]` of a TOML file into `model` (env > file > default)."""
    data = take_section(read_toml(path, required=required), section, path=path)
    return validate_data(model, data, path=path, section=section)
