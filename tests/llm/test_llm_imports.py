"""Importing mixseek.llm must not import any provider SDK."""

from __future__ import annotations

import subprocess
import sys

SDKS = ("openai", "anthropic", "google.genai", "groq", "mistralai", "cohere", "boto3", "llama_cpp")


def test_import_does_not_load_provider_sdks() -> None:
    code = (
        "import sys, mixseek.llm\n"
        f"loaded = [name for name in {SDKS!r} if name in sys.modules]\n"
        "assert not loaded, loaded\n"
        "assert 'openai' not in sys.modules\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr


def test_test_model_does_not_load_provider_sdks() -> None:
    code = (
        "import sys\n"
        "from mixseek.llm import create_model, check_credentials\n"
        "create_model('test', role='judgment')\n"
        "check_credentials('test', role='judgment')\n"
        "assert 'openai' not in sys.modules and 'anthropic' not in sys.modules\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
