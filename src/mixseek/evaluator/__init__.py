"""Scoring submissions (`evaluator.Evaluator`); importing the package loads nothing, so that checking a
config's metrics loads neither the scoring code nor pydantic-ai."""
