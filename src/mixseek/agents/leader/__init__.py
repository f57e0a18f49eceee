"""mixseek.agents.leader"""
