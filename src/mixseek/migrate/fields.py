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


SAMPLING_KEYS = ("stop_sequences", "top_p", "seed")
"""Sampling keys the metrics and the judgment take only in their `model_settings` table."""
AGENT_KEYS = ("temperature", "max_tokens", "timeout_seconds", "max_retries", *SAMPLING_KEYS)
"""The keys a leader or member takes as they are."""


def carry_settings(
    data: Mapping[str, Any], out: dict[str, Any], where: Where, report: Report, moved: Iterable[str] = ()
) -> set[str]:
    """mixseek-core's `model_settings`, `google_model_settings` (as `google_` keys), `reasoning_effort` (as
    `thinking`) and the `moved` keys into `out["model_settings"]`; returns the keys taken."""
    taken = {k for k in ("model_settings", "google_model_settings") if isinstance(data.get(k), Mapping)}
    table: dict[str, Any] = dict(data["model_settings"]) if "model_settings" in taken else {}
    for key, value in (data["google_model_settings"] if "google_model_settings" in taken else {}).items():
        table[key if key.startswith("google_") else f"google_{key}"] = value
    for key, to in [*((k, k) for k in moved), ("reasoning_effort", "thinking")]:
        if key in data:
            table[to] = data[key]
            taken.add(key)
            report.change(where.file, where.key(key), f"written as model_settings.{to}")
    if "google_model_settings" in taken:
        report.change(where.file, where.key("google_model_settings"), "merged into model_settings")
    if table:
        out["model_settings"] = {**out.get("model_settings", {}), **table}
    return taken


def copy_keys(source: Mapping[str, Any], target: dict[str, Any], keys: Iterable[str]) -> set[str]:
    """Copy `keys` present in `source` to `target`; the keys copied."""
    copied = set()
    for key in keys:
        if key in source:
            target[key] = source[key]
            copied.add(key)
    return copied
