"""Scoring submissions (`evaluator.Evaluator`); import loads nothing, so config checks skip pydantic-ai."""
