"""mixseek: teams of LLM agents compete on one task, judged round by round."""

__version__ = "0.1.0"
