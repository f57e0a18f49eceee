"""Importing mixseek.prompt_builder loads no provider SDK."""

from __future__ import annotations

import json
import subprocess
import sys

FORBIDDEN = (
    "pydantic_ai",
    "openai",
    "anthropic",
    "google",
    "groq",
    "mistralai",
    "cohere",
    "llama_cpp",
    "duckdb",
)


def test_import_loads_no_provider_sdk() -> None:
    code = (
        "import json, sys\n"
        "import mixseek.prompt_builder\n"
        "print(json.dumps(sorted({name.split('.')[0] for name in sys.modules})))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(json.loads(result.stdout))
    assert "jinja2" in loaded
    assert loaded.isdisjoint(FORBIDDEN), sorted(loaded & set(FORBIDDEN))
