"""mixseek.evaluator: LLM-as-a-judge scoring of submissions (`evaluator.Evaluator`). Importing this package
loads nothing: checking a config's metrics (`metrics.registry`) must not load the scoring code, and
pydantic-ai with it."""
