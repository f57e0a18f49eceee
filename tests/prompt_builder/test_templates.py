"""Template checking at load time, error messages, sandboxing and values-as-data."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
from jinja2 import TemplateError

from mixseek.errors import MixseekError
from mixseek.prompt_builder import (
    PromptTemplateError,
    UserPromptBuilder,
    compile_prompt_template,
    compile_prompt_templates,
    load_prompt_builder_settings,
)

from .support import write_config

ROUND_ALLOWED = (
    "(allowed: current_datetime, ranking_table, round_number, submission_history, "
    "team_position_message, user_prompt)"
)
EVALUATOR_ALLOWED = "(allowed: current_datetime, submission, user_prompt)"

BROKEN_IF = "# タスク\n{{ user_prompt }}\n\n{% if round_number > 1 %}\n履歴\n"


def test_syntax_error_names_template_source_and_line(workspace: Path) -> None:
    path = write_config(workspace, f'[prompt_builder]\nteam_user_prompt = """\n{BROKEN_IF}"""\n')
    with pytest.raises(PromptTemplateError) as info:
        UserPromptBuilder(workspace)
    error = info.value
    assert str(error).startswith(
        f"team_user_prompt ({path}): Jinja2 template syntax error at line 5: Unexpected end of template."
    )
    assert (error.template_name, error.source, error.lineno) == ("team_user_prompt", str(path), 5)


def test_unclosed_expression_line() -> None:
    with pytest.raises(PromptTemplateError) as info:
        compile_prompt_template("team_user_prompt", "a\nb\n{{ user_prompt\nc\n", "src")
    assert str(info.value) == (
        "team_user_prompt (src): Jinja2 template syntax error at line 4: "
        "expected token 'end of print statement', got 'c'"
    )


def test_wrong_closing_tag_line() -> None:
    with pytest.raises(PromptTemplateError) as info:
        compile_prompt_template("team_user_prompt", "ok\n{% if round_number > 1 %}\n{% endfor %}\nx", "src")
    assert str(info.value).startswith(
        "team_user_prompt (src): Jinja2 template syntax error at line 3: Encountered unknown tag 'endfor'."
    )


def test_unknown_variable_names_template_source_line_and_allowed(workspace: Path) -> None:
    path = write_config(
        workspace,
        '[prompt_builder]\nteam_user_prompt = """\n# タスク\n{{ user_prompt }}\n'
        '{{ unknown_variable }}\n"""\n',
    )
    with pytest.raises(PromptTemplateError) as info:
        UserPromptBuilder(workspace)
    assert str(info.value) == (
        f"team_user_prompt ({path}): Jinja2 template error: 'unknown_variable' is undefined at line 3 "
        + ROUND_ALLOWED
    )
    assert info.value.lineno == 3


def test_several_unknown_variables_all_listed() -> None:
    with pytest.raises(PromptTemplateError) as info:
        compile_prompt_template("judgment_user_prompt", "{{ b }}\n{{ a }}\n{% if c %}{% endif %}", "default")
    assert str(info.value) == (
        "judgment_user_prompt (default): Jinja2 template error: 'b' is undefined at line 1 "
        "(also undefined: 'a' at line 2, 'c' at line 3; allowed: current_datetime, ranking_table, "
        "round_number, submission_history, team_position_message, user_prompt)"
    )


def test_env_template_error_names_env_var(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MIXSEEK_EVALUATOR_USER_PROMPT", "{{ user_prompt }}\n{{ round_number }}")
    with pytest.raises(PromptTemplateError) as info:
        UserPromptBuilder(workspace)
    assert str(info.value) == (
        "evaluator_user_prompt (env MIXSEEK_EVALUATOR_USER_PROMPT): Jinja2 template error: "
        f"'round_number' is undefined at line 2 {EVALUATOR_ALLOWED}"
    )


def test_team_template_may_not_use_submission() -> None:
    with pytest.raises(PromptTemplateError, match="'submission' is undefined at line 1"):
        compile_prompt_template("team_user_prompt", "{{ submission }}", "default")


def test_variables_set_inside_template_and_jinja_globals_are_fine() -> None:
    text = "{% set n = round_number + 1 %}{{ n }}{% for i in range(2) %}-{{ i }}{% endfor %}"
    template = compile_prompt_template("team_user_prompt", text, "default")
    assert template.render({"round_number": 1}) == "2-0-1"
    assert template.variables == frozenset({"round_number"})


def test_template_loading_tags_rejected() -> None:
    with pytest.raises(PromptTemplateError) as info:
        compile_prompt_template("team_user_prompt", "x\n{% include 'other.txt' %}", "default")
    assert str(info.value) == (
        "team_user_prompt (default): Jinja2 template error: {% include %} is not supported "
        "(a prompt template cannot load others) at line 2"
    )


def test_unknown_filter_is_a_load_error() -> None:
    with pytest.raises(PromptTemplateError, match=r"syntax error at line 2: No filter named 'shout'"):
        compile_prompt_template("team_user_prompt", "\n{{ user_prompt | shout }}", "default")


def test_unknown_template_name() -> None:
    with pytest.raises(ValueError, match="unknown prompt template 'member_prompt'"):
        compile_prompt_template("member_prompt", "x", "default")


def test_error_is_a_jinja_template_error_and_a_mixseek_error() -> None:
    with pytest.raises(TemplateError) as info:
        compile_prompt_template("team_user_prompt", "{% if %}", "default")
    assert isinstance(info.value, PromptTemplateError)
    assert isinstance(info.value, MixseekError)
    assert info.value.message == str(info.value)


def test_error_survives_pickling() -> None:
    with pytest.raises(PromptTemplateError) as info:
        compile_prompt_template("team_user_prompt", "\n{{ nope }}", "src")
    copy = pickle.loads(pickle.dumps(info.value))
    assert str(copy) == str(info.value)
    assert (copy.template_name, copy.source, copy.lineno) == ("team_user_prompt", "src", 2)


def test_render_error_is_wrapped_with_line() -> None:
    template = compile_prompt_template("team_user_prompt", "a\n\n{{ user_prompt.__class__ }}", "src")
    with pytest.raises(PromptTemplateError) as info:
        template.render({"user_prompt": "x"})
    assert str(info.value) == (
        "team_user_prompt (src): Jinja2 template error: "
        "access to attribute '__class__' of 'str' object is unsafe at line 3"
    )


def test_render_error_on_missing_attribute() -> None:
    template = compile_prompt_template("team_user_prompt", "{{ user_prompt.nope }}", "src")
    with pytest.raises(PromptTemplateError, match=r"'str object' has no attribute 'nope' at line 1"):
        template.render({"user_prompt": "x"})


def test_render_error_on_type_error() -> None:
    template = compile_prompt_template("team_user_prompt", "\n{% if round_number > 'x' %}{% endif %}", "src")
    with pytest.raises(
        PromptTemplateError, match=r"^team_user_prompt \(src\): Jinja2 template error: .* at line 2$"
    ):
        template.render({"round_number": 1})


def test_compiled_templates_are_cached() -> None:
    first = compile_prompt_template("team_user_prompt", "{{ user_prompt }}", "a")
    assert compile_prompt_template("team_user_prompt", "{{ user_prompt }}", "a") is first


def test_defaults_compile(workspace: Path) -> None:
    templates = compile_prompt_templates(load_prompt_builder_settings(workspace))
    assert templates.team.source == "default"
    assert templates.evaluator.variables == frozenset({"user_prompt", "submission", "current_datetime"})


@pytest.mark.parametrize(
    "value",
    [
        "{{ 7*7 }}",
        "{% if %}",
        "{% raw %}{{ x }}{% endraw %}",
        "{# comment #}",
        "{{ user_prompt.__class__.__mro__ }}",
        "{%- for x in y -%}",
    ],
)
def test_values_are_data_never_template_code(value: str) -> None:
    template = compile_prompt_template(
        "evaluator_user_prompt", "U={{ user_prompt }}\nS={{ submission }}\n", "d"
    )
    rendered = template.render({"user_prompt": value, "submission": value, "current_datetime": "now"})
    assert rendered == f"U={value}\nS={value}\n"


def test_trailing_newline_is_kept() -> None:
    template = compile_prompt_template("team_user_prompt", "{{ user_prompt }}\n", "d")
    assert template.render({"user_prompt": "x"}) == "x\n"
