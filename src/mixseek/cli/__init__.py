"""mixseek.cli"""
