"""The embedded demo model, and the note every surface shows for a run it took part in. `local:smollm2` (135M)
runs the pipeline offline anywhere, but its text and scores say nothing about quality, so readers are told so
in one line, with the way to real results; other GGUF files get no note."""

from __future__ import annotations

from typing import Any

DEMO_MODEL = "local:smollm2"

DEMO_MODEL_NOTE = (
    "note: demo model — local:smollm2 (SmolLM2-135M) took part in this run; its text and its LLM "
    "scores are not meaningful. For real results write the workspace for a real model "
    "(mixseek init --model openai:gpt-4o), a bigger local:/path/to/model.gguf, or Ollama (ollama:llama3.1)."
)
"""One line; surfaces print it as it is."""

_MODEL_KEYS = frozenset({"model", "models"})


def mentions_demo_model(config: Any) -> bool:
    """Whether a config (or any JSON-like value) gives some role `local:smollm2` (`model`, `models`)."""
    if isinstance(config, dict):
        for key, value in config.items():
            if key in _MODEL_KEYS and _names_demo(value):
                return True
            if isinstance(value, dict | list) and mentions_demo_model(value):
                return True
    elif isinstance(config, list):
        return any(mentions_demo_model(item) for item in config)
    return False


def _names_demo(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip() == DEMO_MODEL
    if isinstance(value, list):
        return any(isinstance(item, str) and item.strip() == DEMO_MODEL for item in value)
    return False
