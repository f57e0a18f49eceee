"""mixseek.agents.member"""
