"""Config checks of code-exec members that need no agent code: whether a required sandbox can run. Apart from
`code_exec` (the member), which loads pydantic-ai, so that `config validate` does not."""

from __future__ import annotations

from mixseek.agents.member.code_exec_tool import CodeExecError, SandboxUnavailable, check_sandbox
from mixseek.config.bundle import ExecutionConfig
from mixseek.errors import ConfigError


def sandbox_problems(config: ExecutionConfig) -> list[ConfigError]:
    """One error per code-exec member (or agent executor) that requires bubblewrap where it cannot run."""
    problems: list[ConfigError] = []
    for entry in config.teams:
        for agent in entry.agents():
            member = agent.config
            if member.agent_type != "code-exec" or member.code_exec.sandbox != "bubblewrap":
                continue
            try:
                check_sandbox(member.code_exec)
            except SandboxUnavailable as exc:
                source, key = agent.key_origin("code_exec")
                problems.append(ConfigError(source, f"{key}.sandbox", str(exc)))
            except CodeExecError:
                continue  # the member reports a missing interpreter when it is built
    return problems
