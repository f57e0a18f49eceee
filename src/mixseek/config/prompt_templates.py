"""The Jinja2 environment, and loading + checking the three prompt templates. Templates render in Jinja2's
sandbox with `StrictUndefined` and are checked when loaded: syntax, and only the variables allowed for each.
Values are data: `{{ 7*7 }}` in a value is printed as is."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from jinja2 import StrictUndefined, Template, TemplateError, TemplateSyntaxError, meta, nodes
from jinja2.sandbox import SandboxedEnvironment

from mixseek.config.loader import Loaded
from mixseek.config.prompt_builder import PromptBuilderSettings
from mixseek.config.prompt_defaults import (
    EVALUATOR_TEMPLATE,
    JUDGMENT_TEMPLATE,
    TEAM_TEMPLATE,
    TEMPLATE_VARIABLES,
)
from mixseek.errors import InputError

TEMPLATE_FILENAME = "<template>"

ENVIRONMENT = SandboxedEnvironment(
    trim_blocks=True,
    lstrip_blocks=True,
    undefined=StrictUndefined,
    autoescape=False,
    keep_trailing_newline=True,
)

_LOADING_NODES: dict[type[nodes.Node], str] = {
    nodes.Extends: "{% extends %}",
    nodes.Include: "{% include %}",
    nodes.Import: "{% import %}",
    nodes.FromImport: "{% from ... import %}",
}


class PromptTemplateError(TemplateError, InputError):
    """A prompt template is malformed, uses a variable it may not, or failed to render (message: where)."""

    def __init__(
        self,
        template_name: str,
        source: str,
        problem: str,
        *,
        lineno: int | None = None,
        syntax: bool = False,
        hint: str = "",
    ) -> None:
        self.template_name = template_name
        self.source = source
        self.problem = problem
        self.lineno = lineno
        self._options: dict[str, Any] = {"lineno": lineno, "syntax": syntax, "hint": hint}
        at_line = f" at line {lineno}" if lineno is not None else ""
        if syntax:
            text = f"Jinja2 template syntax error{at_line}: {problem}"
        else:
            text = f"Jinja2 template error: {problem}{at_line}"
        super().__init__(f"{template_name} ({source}): {text}{hint}")

    def __reduce__(self) -> tuple[Any, tuple[str, str, str]]:
        # Keyword arguments survive pickling (errors may cross process boundaries).
        rebuild = functools.partial(type(self), **self._options)
        return rebuild, (self.template_name, self.source, self.problem)


def _first_line(tree: nodes.Node, node_type: type[nodes.Node]) -> int | None:
    lines = [found.lineno for found in tree.find_all(node_type)]
    return min(lines) if lines else None


def _name_line(tree: nodes.Node, name: str) -> int:
    """The first line that reads variable `name`."""
    names = tree.find_all(nodes.Name)
    return min((n.lineno for n in names if n.name == name and n.ctx == "load"), default=1)


def _check_tree(name: str, source: str, tree: nodes.Template) -> frozenset[str]:
    """The variables the template reads; error on any it may not read."""
    for node_type, tag in _LOADING_NODES.items():
        lineno = _first_line(tree, node_type)
        if lineno is not None:
            raise PromptTemplateError(
                name, source, f"{tag} is not supported (a prompt template cannot load others)", lineno=lineno
            )
    allowed = TEMPLATE_VARIABLES[name]
    used = frozenset(meta.find_undeclared_variables(tree))
    unknown = sorted(used - allowed - ENVIRONMENT.globals.keys())
    if unknown:
        located = sorted((_name_line(tree, var), var) for var in unknown)
        lineno, first = located[0]
        others = ", ".join(f"'{var}' at line {line}" for line, var in located[1:])
        also = f"also undefined: {others}; " if others else ""
        hint = f" ({also}allowed: {', '.join(sorted(allowed))})"
        raise PromptTemplateError(name, source, f"'{first}' is undefined", lineno=lineno, hint=hint)
    return used & allowed


def _template_lineno(tb: TracebackType | None) -> int | None:
    lineno = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == TEMPLATE_FILENAME:
            lineno = tb.tb_lineno
        tb = tb.tb_next
    return lineno


@dataclass(frozen=True)
class PromptTemplate:
    """One checked, compiled template."""

    name: str
    source: str
    template: Template
    variables: frozenset[str]
    literal_texts: tuple[str, ...] = ()
    """The template's fixed words (its text outside tags), which a model must not echo as its answer."""

    def render(self, values: dict[str, Any]) -> str:
        """Render with `values` (data only); any failure becomes a PromptTemplateError."""
        try:
            return self.template.render(values)
        except Exception as exc:
            problem = exc.message if isinstance(exc, TemplateError) and exc.message else str(exc)
            problem = problem.rstrip(".")
            lineno = _template_lineno(exc.__traceback__)
            raise PromptTemplateError(
                self.name, self.source, problem or type(exc).__name__, lineno=lineno
            ) from exc


@functools.lru_cache(maxsize=64)
def compile_prompt_template(name: str, text: str, source: str = "default") -> PromptTemplate:
    """Check and compile the template `name` from `text` (cached by name, text and source); a
    `PromptTemplateError` for syntax, a variable not allowed or include-like tags."""
    if name not in TEMPLATE_VARIABLES:
        expected = ", ".join(TEMPLATE_VARIABLES)
        raise ValueError(f"unknown prompt template {name!r} (expected one of: {expected})")
    try:
        tree = ENVIRONMENT.parse(text, name=name, filename=TEMPLATE_FILENAME)
        variables = _check_tree(name, source, tree)
        template = ENVIRONMENT.from_string(tree)
    except TemplateSyntaxError as exc:
        problem = exc.message or str(exc)
        raise PromptTemplateError(name, source, problem, lineno=exc.lineno, syntax=True) from None
    literals = tuple(
        data.strip() for output in tree.find_all(nodes.TemplateData) if (data := output.data).strip()
    )
    return PromptTemplate(
        name=name, source=source, template=template, variables=variables, literal_texts=literals
    )


@dataclass(frozen=True)
class PromptTemplates:
    """The three checked templates of one settings object."""

    team: PromptTemplate
    evaluator: PromptTemplate
    judgment: PromptTemplate

    @property
    def literal_texts(self) -> tuple[str, ...]:
        """The fixed words of all three templates."""
        return (*self.team.literal_texts, *self.evaluator.literal_texts, *self.judgment.literal_texts)


def compile_prompt_templates(loaded: Loaded[PromptBuilderSettings]) -> PromptTemplates:
    """Check and compile all three templates; errors name where each came from."""
    settings = loaded.value

    def one(name: str, text: str) -> PromptTemplate:
        return compile_prompt_template(name, text, loaded.sources.get(name, "default"))

    return PromptTemplates(
        team=one(TEAM_TEMPLATE, settings.team_user_prompt),
        evaluator=one(EVALUATOR_TEMPLATE, settings.evaluator_user_prompt),
        judgment=one(JUDGMENT_TEMPLATE, settings.judgment_user_prompt),
    )
