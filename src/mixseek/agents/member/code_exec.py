"""`code-exec`: an LLM that can run the Python it writes in a limited subprocess."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from pydantic_ai import Tool

from mixseek.agents.member.base import LLMMemberAgent
from mixseek.agents.member.code_exec_tool import CodeExecError, run_python

CODE_EXEC_INSTRUCTION = (
    "あなたは計算やデータ処理を担当するメンバーエージェントです。"
    "必要に応じて run_python ツールでPythonコードを実行し、結果を print で出力してください。"
    "実行結果に基づいて回答してください。"
)


class CodeExecMemberAgent(LLMMemberAgent):
    """Runs model-written Python with a timeout, memory limit and output cap."""

    agent_type: ClassVar[str] = "code-exec"

    def default_instruction(self) -> str:
        return CODE_EXEC_INSTRUCTION

    def tools(self) -> Sequence[Tool[None]]:
        options = self.config.code_exec

        async def run(code: str) -> str:
            """Run a Python 3 script in a fresh temporary directory; returns exit status, stdout, stderr."""
            try:
                result = await run_python(code, options)
            except CodeExecError as exc:
                return f"ERROR: {exc}"
            return result.as_tool_text()

        return [Tool(run, name="run_python", takes_ctx=False)]
