"""The embedded offline model: GGUF files run in-process by llama.cpp (`local:` model strings).

Importing this package does not import `llama_cpp`; the model is loaded on its first request.
"""

from mixseek.llm.local_model.engine import (
    DEFAULT_N_CTX,
    LlamaEngine,
    cached_engines,
    close_engine,
    close_engines,
    get_engine,
)
from mixseek.llm.local_model.model import DEFAULT_MAX_TOKENS, LlamaCppModel, RangePolicy

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "DEFAULT_N_CTX",
    "LlamaCppModel",
    "LlamaEngine",
    "RangePolicy",
    "cached_engines",
    "close_engine",
    "close_engines",
    "get_engine",
]
