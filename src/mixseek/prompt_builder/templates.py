"""The Jinja2 environment and the prompt template checker, defined in `mixseek.config.prompt_templates`
(templates are checked when the configuration loads) and used here to render."""

from mixseek.config.prompt_templates import (
    ENVIRONMENT,
    TEMPLATE_FILENAME,
    PromptTemplate,
    PromptTemplateError,
    PromptTemplates,
    compile_prompt_template,
    compile_prompt_templates,
)

__all__ = [
    "ENVIRONMENT",
    "TEMPLATE_FILENAME",
    "PromptTemplate",
    "PromptTemplateError",
    "PromptTemplates",
    "compile_prompt_template",
    "compile_prompt_templates",
]
