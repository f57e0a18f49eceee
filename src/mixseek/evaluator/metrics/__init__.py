"""mixseek.evaluator.metrics"""
