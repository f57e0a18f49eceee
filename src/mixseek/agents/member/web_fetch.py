"""`web-fetch`: an LLM that can read web pages through a bounded, SSRF-guarded fetch tool."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from pydantic import BaseModel
from pydantic_ai import Tool

from mixseek.agents.member.base import LLMMemberAgent
from mixseek.agents.member.web_fetch_tool import WebFetchError, fetch_url
from mixseek.config.member_options import WebFetchOptions
from mixseek.config.prompt_defaults import WEB_FETCH_INSTRUCTION


class WebFetchMemberAgent(LLMMemberAgent):
    """Fetches URLs the model asks for; errors go back to the model as text."""

    agent_type: ClassVar[str] = "web-fetch"
    options_model: ClassVar[type[BaseModel] | None] = WebFetchOptions
    options: WebFetchOptions

    def default_instruction(self) -> str:
        return WEB_FETCH_INSTRUCTION

    def tools(self) -> Sequence[Tool[None]]:
        options = self.options

        async def fetch(url: str) -> str:
            """Fetch an http(s) URL and return its readable text (HTML is converted to text)."""
            try:
                result = await fetch_url(url, options)
            except WebFetchError as exc:
                return f"ERROR: {exc}"
            return result.as_tool_text()

        return [Tool(fetch, name="fetch_url", takes_ctx=False)]
