"""mixseek.config"""
