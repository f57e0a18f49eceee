"""One error hierarchy: every exception class of mixseek derives from `MixseekError` and from
exactly one of its branches, `InputError` (the user's to fix) or `RuntimeFailure` (not the input's
fault); the exit codes are defined once."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest
from jinja2 import TemplateError
from pydantic_ai import UsageLimitExceeded

import mixseek
from mixseek.cli.errors import EXIT_CODES, exit_code_for
from mixseek.errors import ConfigError, InputError, MissingCredentialsError, MixseekError, RuntimeFailure
from mixseek.exit_codes import ExitCode

SRC = Path(mixseek.__file__).parent

# Exceptions that cannot derive from mixseek's, each with its reason.
EXEMPT = {
    "mixseek.agents.member._sandbox_child._Stop": (
        "the sandbox bootstrap runs as a script under another interpreter, importing nothing of mixseek"
    ),
}


def _all_modules() -> list[str]:
    """Every module of the package; `__main__` modules run the CLI when imported."""
    names = ["mixseek"]
    for info in pkgutil.walk_packages(mixseek.__path__, "mixseek."):
        if info.name.rpartition(".")[2] != "__main__":
            names.append(info.name)
    return names


def _exception_classes() -> list[type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for name in _all_modules():
        module = importlib.import_module(name)
        for obj in vars(module).values():
            if inspect.isclass(obj) and issubclass(obj, BaseException) and obj.__module__ == module.__name__:
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return [found[key] for key in sorted(found)]


CLASSES = _exception_classes()


def test_the_walk_finds_the_known_errors() -> None:
    names = {cls.__name__ for cls in CLASSES}
    assert {"ConfigError", "StoreBusyError", "EvaluationError", "WebFetchError", "ModelLoadError"} <= names
    assert len(CLASSES) >= 25


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: f"{cls.__module__}.{cls.__qualname__}")
def test_every_error_has_the_root_and_one_branch(cls: type[BaseException]) -> None:
    qualified = f"{cls.__module__}.{cls.__qualname__}"
    if qualified in EXEMPT or cls in (MixseekError, InputError, RuntimeFailure):
        return
    assert issubclass(cls, MixseekError), f"{qualified} does not derive from MixseekError"
    branches = [b.__name__ for b in (InputError, RuntimeFailure) if issubclass(cls, b)]
    assert len(branches) == 1, f"{qualified} derives from {branches or 'neither branch'}"


def test_the_branches() -> None:
    assert issubclass(InputError, ValueError) and not issubclass(InputError, RuntimeError)
    assert issubclass(RuntimeFailure, RuntimeError) and not issubclass(RuntimeFailure, ValueError)
    assert issubclass(ConfigError, InputError)
    assert issubclass(MissingCredentialsError, InputError)


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("mixseek.storage", "StoreBusyError"),
        ("mixseek.storage", "StorageError"),
        ("mixseek.storage.errors", "StoreDamagedError"),
        ("mixseek.storage.errors", "StoreUnwritableError"),
        ("mixseek.storage", "ExecutionOwnedError"),
        ("mixseek.evaluator.evaluator", "EvaluationError"),
        ("mixseek.round_controller.judgment_client", "JudgmentError"),
        ("mixseek.agents.member.web_fetch_tool", "WebFetchError"),
        ("mixseek.agents.member.code_exec_tool", "CodeExecError"),
        ("mixseek.llm.local_model.engine", "ModelLoadError"),
        ("mixseek.llm.local_model.selftest", "LocalModelSelfTestError"),
    ],
)
def test_runtime_failures_are_not_the_users_input(module: str, name: str) -> None:
    cls = getattr(importlib.import_module(module), name)
    assert issubclass(cls, RuntimeFailure)
    assert not issubclass(cls, InputError)


def test_what_they_were_they_still_are() -> None:
    """Code that caught these errors by their other base still catches them."""
    from mixseek.agents.member.web_fetch_decode import ContentDecodingError
    from mixseek.agents.member.web_fetch_tool import WebFetchError
    from mixseek.config.prompt_templates import PromptTemplateError
    from mixseek.llm.governor import BudgetExceeded
    from mixseek.llm.local_model.engine import ModelLoadError
    from mixseek.llm.local_model.prompt import ContextOverflowError
    from mixseek.storage.errors import RecordNotFoundError

    assert issubclass(ModelLoadError, RuntimeError)
    assert issubclass(ContextOverflowError, ValueError)
    assert issubclass(RecordNotFoundError, LookupError)
    assert issubclass(PromptTemplateError, TemplateError)
    assert issubclass(BudgetExceeded, UsageLimitExceeded)
    assert issubclass(ContentDecodingError, RuntimeFailure) and issubclass(WebFetchError, RuntimeFailure)


def _root_raises() -> list[str]:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "MixseekError"
            ):
                found.append(f"{path.relative_to(SRC.parent)}:{node.lineno}")
    return found


def test_mixseek_never_raises_the_root_itself() -> None:
    """An error made as a bare `MixseekError` would be in neither branch: `except InputError`
    would miss a bad input."""
    assert _root_raises() == []


def test_exit_codes_are_the_readme_contract() -> None:
    assert [(code.name, int(code)) for code in ExitCode] == [
        ("SUCCESS", 0),
        ("PARTIAL_FAILURE", 1),
        ("FAILURE", 2),
        ("INTERRUPTED", 130),
    ]


def test_the_cli_maps_both_branches_and_the_root() -> None:
    assert exit_code_for(ConfigError("f.toml", "k", "bad")) == ExitCode.FAILURE
    assert exit_code_for(RuntimeFailure("busy")) == ExitCode.FAILURE
    assert exit_code_for(FileNotFoundError(2, "No such file or directory", "x.toml")) == ExitCode.FAILURE
    assert exit_code_for(FileNotFoundError(2, "No such file or directory")) is None  # a bug: traceback
    assert exit_code_for(KeyError("x")) is None
    assert {MixseekError, InputError, RuntimeFailure} <= set(EXIT_CODES)
