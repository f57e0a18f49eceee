"""mixseek.agents"""
