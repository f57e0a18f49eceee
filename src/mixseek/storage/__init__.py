"""mixseek.storage"""
