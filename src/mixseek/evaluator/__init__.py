"""mixseek.evaluator"""
