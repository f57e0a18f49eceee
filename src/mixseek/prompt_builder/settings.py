"""`[prompt_builder]` settings, defined with the other config files' settings in
`mixseek.config.prompt_builder` (the configuration is loaded there, once per execution)."""

from mixseek.config.prompt_builder import (
    ENV_PREFIX,
    SECTION,
    PromptBuilderSettings,
    load_prompt_builder_settings,
)

__all__ = ["ENV_PREFIX", "SECTION", "PromptBuilderSettings", "load_prompt_builder_settings"]
