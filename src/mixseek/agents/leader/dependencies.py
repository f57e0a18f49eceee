"""State shared by a leader run and the member tools it calls."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from mixseek.agents.leader.models import MemberSubmission


@dataclass
class TeamDependencies:
    """Passed as `deps` to the leader; member tools append their submissions here."""

    team_id: str
    team_name: str
    round_number: int
    submissions: list[MemberSubmission] = field(default_factory=list)
    max_concurrent_members: int = 15
    _member_slots: asyncio.Semaphore | None = field(default=None, init=False, repr=False)

    @property
    def member_slots(self) -> asyncio.Semaphore:
        """Caps how many members run at once when the leader calls several tools in one response."""
        if self._member_slots is None:
            self._member_slots = asyncio.Semaphore(self.max_concurrent_members)
        return self._member_slots
