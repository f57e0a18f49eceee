"""What the leader of a broadcast team is told: the round's prompt and every member's answer."""

from __future__ import annotations

from collections.abc import Sequence

from mixseek.agents.leader.models import MemberSubmission
from mixseek.config.prompt_defaults import BROADCAST_CLOSING


def _answer(submission: MemberSubmission) -> str:
    heading = f"### {submission.agent_name}（{submission.agent_type}）"
    if submission.status == "SUCCESS":
        return f"{heading}\n{submission.content}"
    return f"{heading}: 失敗\nエラー: {submission.error_message or '不明なエラー'}"


def broadcast_prompt(prompt: str, submissions: Sequence[MemberSubmission]) -> str:
    """The round's prompt, then the members' answers in team-file order (failed ones marked as
    failed with their error), then the request to write the submission."""
    succeeded = sum(s.status == "SUCCESS" for s in submissions)
    answers = "\n\n".join(_answer(s) for s in submissions)
    return (
        f"{prompt}\n\n---\n## メンバーの回答（{len(submissions)}件中{succeeded}件成功）\n\n"
        f"{answers}\n\n---\n{BROADCAST_CLOSING}"
    )
