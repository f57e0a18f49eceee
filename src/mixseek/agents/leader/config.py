"""Team, leader and member settings (seed 004); defined in `mixseek.config`."""

from mixseek.config.agent_models import LeaderAgentConfig, MemberAgentConfig
from mixseek.config.team_models import TeamConfig

__all__ = ["LeaderAgentConfig", "MemberAgentConfig", "TeamConfig"]
