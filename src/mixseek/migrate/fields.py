"""Small conversions shared by every kind of file: where a key is, model strings, instruction texts."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from mixseek.migrate.report import Report

# mixseek-core's defaults where they differ from this mixseek's: written out, so that a migrated
# workspace behaves as the old one did.
LEGACY_DEFAULT_MODEL = "google-gla:gemini-flash-lite-latest"

# mixseek-core's own prefixes pydantic-ai does not know: its provider, and where the credentials go.
_XAI = ("xai", "set XAI_API_KEY for it")
_OPENAI_COMPATIBLE = "set VLLM_BASE_URL and VLLM_API_KEY to what MODEL_API_URL and MODEL_API_KEY were"
_PROVIDERS = {"grok": _XAI, "grok-responses": _XAI, "qwen": ("vllm", _OPENAI_COMPATIBLE)}


@dataclass(frozen=True)
class Where:
    """A table in a source file: the file's label and the dotted path of the table."""

    file: str
    prefix: str | None = None

    def key(self, name: str) -> str:
        return f"{self.prefix}.{name}" if self.prefix else name

    def at(self, name: str) -> Where:
        return Where(self.file, self.key(name))


def convert_model(model: Any, where: Where, key: str, report: Report) -> Any:
    """A model string with mixseek-core's own prefixes renamed; anything else unchanged."""
    if not isinstance(model, str):
        return model
    provider, sep, name = model.partition(":")
    if sep and provider in _PROVIDERS:
        renamed, note = _PROVIDERS[provider]
        report.change(where.file, where.key(key), f"model '{model}' written as '{renamed}:{name}' ({note})")
        return f"{renamed}:{name}"
    return model


def instruction_text(value: Any, where: Where, key: str, report: Report) -> Any:
    """A `system_instruction`: a string, or mixseek-core's `{ text = "..." }` table."""
    if not isinstance(value, Mapping):
        return value
    for extra in sorted(k for k in value if k != "text"):
        report.drop(where.file, where.at(key).key(extra), "no equivalent (only `text` is kept)")
    return value.get("text")


def drop_all(
    data: Mapping[str, Any], keys: Iterable[str], where: Where, report: Report, reasons: Mapping[str, str]
) -> None:
    """Report every key of `data` in `keys` as not carried over, with its reason (or `unknown key`)."""
    for key in keys:
        if key in data:
            report.drop(where.file, where.key(key), reasons.get(key, "unknown key"))


NO_PASS_THROUGH = "no equivalent: provider model settings are not passed through"
COMMON_DROPS: dict[str, str] = {
    "model_settings": NO_PASS_THROUGH,
    "google_model_settings": NO_PASS_THROUGH,
}


def copy_keys(source: Mapping[str, Any], target: dict[str, Any], keys: Iterable[str]) -> set[str]:
    """Copy `keys` present in `source` to `target`; the keys copied."""
    copied = set()
    for key in keys:
        if key in source:
            target[key] = source[key]
            copied.add(key)
    return copied
