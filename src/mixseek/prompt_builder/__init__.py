"""mixseek.prompt_builder"""
