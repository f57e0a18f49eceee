"""The dashboard's execution page says, in one line, when a run's text comes from the demo model."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from e2e.test_demo_model_sample import run_sample
from mixseek.llm.demo_model import DEMO_MODEL_NOTE
from mixseek.llm.local_model.engine import close_engine

from .conftest import Served


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[Path, str]]]:
    """One sample run on `local:smollm2` and one on another GGUF file (scripted generations)."""
    made: dict[str, tuple[Path, str]] = {}
    for name in ("demo", "other"):
        root = tmp_path_factory.mktemp(name)
        gguf = root / "model.gguf"
        gguf.write_bytes(b"GGUF" + bytes(28))
        model = "local:smollm2" if name == "demo" else f"local:{gguf}"
        summary, _ = run_sample(root / "ws", model, gguf)
        close_engine(gguf)
        made[name] = (root / "ws", summary.execution_id)
    yield made


def test_the_execution_page_shows_the_demo_note_only_for_a_demo_run(
    runs: dict[str, tuple[Path, str]], serve: Callable[..., Served], page: Any
) -> None:
    workspace, execution_id = runs["demo"]
    served = serve(workspace)
    page.goto(f"{served.url}/executions/{execution_id}")
    note = page.locator("#demo-model-note")
    assert note.is_visible()
    assert note.inner_text() == DEMO_MODEL_NOTE

    workspace, execution_id = runs["other"]
    served = serve(workspace)
    page.goto(f"{served.url}/executions/{execution_id}")
    assert page.locator("#execution-status").is_visible()
    assert page.locator("#demo-model-note").count() == 0
    assert "note: demo model" not in page.content()
