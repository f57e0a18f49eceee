"""`code-exec`: an LLM that can run the Python it writes in a sandboxed subprocess."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from pydantic import BaseModel
from pydantic_ai import Tool

from mixseek.agents.member.base import LLMMemberAgent
from mixseek.agents.member.code_exec_tool import (
    CodeExecError,
    Sandbox,
    SandboxUnavailable,
    prepare_sandbox,
    run_python,
)
from mixseek.config.agent_models import MemberAgentConfig
from mixseek.config.member_options import CodeExecOptions
from mixseek.config.prompt_defaults import CODE_EXEC_INSTRUCTION
from mixseek.errors import InputError


class CodeExecMemberAgent(LLMMemberAgent):
    """Runs model-written Python under limits in a sandbox, chosen when the member is built: a required but
    missing bubblewrap stops the command before any model is called."""

    agent_type: ClassVar[str] = "code-exec"
    options_model: ClassVar[type[BaseModel] | None] = CodeExecOptions
    options: CodeExecOptions

    def __init__(self, config: MemberAgentConfig, *, role: str | None = None) -> None:
        super().__init__(config, role=role)
        try:
            self.sandbox: Sandbox = prepare_sandbox(self.options)
        except CodeExecError as exc:
            key = "sandbox" if isinstance(exc, SandboxUnavailable) else "python_executable"
            raise InputError(f"{self.role}: code_exec.{key}: {exc}") from None

    def default_instruction(self) -> str:
        return CODE_EXEC_INSTRUCTION

    def tools(self) -> Sequence[Tool[None]]:
        options = self.options

        async def run(code: str) -> str:
            """Run a Python 3 script in a fresh temporary directory; returns exit status, stdout, stderr."""
            try:
                result = await run_python(code, options, sandbox=self.sandbox)
            except CodeExecError as exc:
                return f"ERROR: {exc}"
            return result.as_tool_text()

        return [Tool(run, name="run_python", takes_ctx=False)]
