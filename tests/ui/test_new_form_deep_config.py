"""The new-execution form lists the orchestrator configs it can start: not one nested too deeply,
which `mixseek exec` refuses (the parser's `RecursionError` made the form a server error)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from ui.actions_support import TWO_ROUNDS, Browserless, actions_workspace
from ui.conftest import Served
from ui.html_page import parse


@pytest.mark.parametrize("depth", [300, 100_000])
def test_a_config_nested_too_deeply_is_not_offered(
    tmp_path: Path, serve: Callable[..., Served], depth: int
) -> None:
    ws = actions_workspace(tmp_path / "ws")
    deep = "[orchestrator]\nteams = " + "[" * depth + "]" * depth + "\n"
    (ws / "configs" / "deep.toml").write_text(deep, encoding="utf-8")
    browserless = Browserless(serve(ws).url)
    try:
        response = browserless.get("/new")
    finally:
        browserless.close()
    assert response.status_code == 200
    options = parse(response.text).find("select", name="config").find_all("option")
    assert [o.attrs["value"] for o in options] == ["orchestrator.toml", TWO_ROUNDS]
