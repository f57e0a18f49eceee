"""Team, leader and member settings (seed 004); defined in `mixseek.config.team_models`."""

from mixseek.config.team_models import LeaderAgentConfig, MemberAgentConfig, TeamConfig

__all__ = ["LeaderAgentConfig", "MemberAgentConfig", "TeamConfig"]
