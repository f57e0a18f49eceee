"""mixseek.orchestrator"""
