"""mixseek.llm"""
