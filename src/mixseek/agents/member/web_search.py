"""`web-search`: an LLM that uses its provider's built-in web search."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from pydantic import BaseModel
from pydantic_ai.capabilities import AbstractCapability, NativeTool
from pydantic_ai.native_tools import WebSearchTool

from mixseek.agents.member.base import LLMMemberAgent
from mixseek.config.agent_models import MemberAgentConfig
from mixseek.config.member_options import WebSearchOptions
from mixseek.config.prompt_defaults import WEB_SEARCH_INSTRUCTION
from mixseek.errors import InputError


class WebSearchMemberAgent(LLMMemberAgent):
    """Searches with the provider's native tool; models without one are refused up front."""

    agent_type: ClassVar[str] = "web-search"
    options_model: ClassVar[type[BaseModel] | None] = WebSearchOptions
    options: WebSearchOptions

    def __init__(self, config: MemberAgentConfig, *, role: str | None = None) -> None:
        super().__init__(config, role=role)
        supported = self.model.profile.get("supported_native_tools", frozenset())
        if WebSearchTool not in supported:
            raise InputError(
                f"model '{config.model}' for {self.role} has no built-in web search; "
                "use a model whose provider offers one "
                "(e.g. openai-responses:, anthropic:, google-gla:, groq:)"
            )

    def default_instruction(self) -> str:
        return WEB_SEARCH_INSTRUCTION

    def capabilities(self) -> Sequence[AbstractCapability[Any]]:
        search = WebSearchTool(
            max_uses=self.options.max_uses,
            allowed_domains=self.options.allowed_domains,
            blocked_domains=self.options.blocked_domains,
        )
        return [NativeTool(search)]
