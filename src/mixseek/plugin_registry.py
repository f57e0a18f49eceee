"""Names a config file may use for a kind of plugin class: built in, registered in code, or installed. A
registry knows a name without importing its class (built-ins are "module:Class" strings, installed plugins
entry points), so validating a config imports no agent or metric code."""

from __future__ import annotations

from collections.abc import Mapping
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from mixseek.errors import InputError, describe_exception
from mixseek.plugins import load_class


class PluginRegistry:
    """One kind of plugin class (member types, metrics) by name."""

    def __init__(self, kind: str, group: str, builtins: Mapping[str, str]) -> None:
        self.kind = kind
        self.group = group
        self._builtin = tuple(builtins)
        self._targets: dict[str, type[Any] | str] = dict(builtins)

    def builtin_names(self) -> tuple[str, ...]:
        return self._builtin

    def register(self, name: str, target: type[Any]) -> None:
        """Make `name` stand for `target`; registering a name again replaces the earlier class."""
        if not name.strip():
            raise ValueError(f"a {self.kind} name cannot be empty")
        if name in self._builtin:
            raise ValueError(f"'{name}' is a built-in {self.kind}; register the class under another name")
        self._targets[name] = target

    def unregister(self, name: str) -> None:
        """Forget a registered name (no error if unknown; built-ins stay)."""
        if name not in self._builtin:
            self._targets.pop(name, None)

    def _entry_points(self) -> dict[str, EntryPoint]:
        found: dict[str, EntryPoint] = {}
        for entry in entry_points(group=self.group):
            found.setdefault(entry.name, entry)  # the first on sys.path wins, as for imports
        return found

    def names(self) -> list[str]:
        """Built-ins first, then names registered in code, then installed entry points."""
        names = list(self._targets)
        names += [n for n in self._entry_points() if n not in self._targets]
        return names

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and (name in self._targets or name in self._entry_points())

    def load_subclass(self, name: str, base: type, base_name: str) -> type[Any]:
        """`load(name)`, checked to subclass `base` (named `base_name`, its public import path)."""
        cls = self.load(name)
        if not issubclass(cls, base):
            raise InputError(
                f"{self.kind} '{name}': {cls.__module__}.{cls.__qualname__} must subclass {base_name}"
            )
        return cls

    def load(self, name: str) -> type[Any]:
        """The class registered as `name`; an entry point is imported here, on first use."""
        target = self._targets.get(name)
        if isinstance(target, type):
            return target
        if isinstance(target, str):
            return load_class(target, object)
        entry = self._entry_points().get(name)
        if entry is None:
            raise InputError(f"unknown {self.kind} '{name}' (known: {', '.join(self.names())})")
        try:
            loaded = entry.load()
        except Exception as exc:  # the plugin's own import failed: say which plugin, not a traceback
            raise InputError(
                f"{self.kind} '{name}': entry point '{entry.value}' ({self.group}) failed to load: "
                f"{describe_exception(exc)}"
            ) from exc
        if not isinstance(loaded, type):
            raise InputError(
                f"{self.kind} '{name}': entry point '{entry.value}' ({self.group}) is not a class"
            )
        return loaded
