"""The `llama_cpp.Llama` the engine runs: llama-cpp-python's, with two costs taken out. Constrained
generations take a `GbnfGrammar` and sample with `GrammarCheckedSampler`, which also applies the engine's
`copy_guard`; saved states leave out the last batch's logits (about 100 MB for SmolLM2, copied at every
request and never read). `llama_cpp` is imported lazily."""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any

from mixseek.llm.local_model.copy_guard import CopyGuard
from mixseek.llm.local_model.sampler import GbnfGrammar, GrammarCheckedSampler


@cache
def engine_llama() -> type[Any]:
    """The `llama_cpp.Llama` subclass the engine loads models with."""
    llama_cpp: Any = importlib.import_module("llama_cpp")
    numpy: Any = importlib.import_module("numpy")

    class EngineLlama(llama_cpp.Llama):  # type: ignore[misc]
        copy_guard: CopyGuard | None = None
        """Set by the engine around one generation (under its inference lock)."""

        def _init_sampler(self, *args: Any, grammar: Any = None, **kwargs: Any) -> Any:
            chain = super()._init_sampler(*args, grammar=None, **kwargs)
            if grammar is None and self.copy_guard is None:
                return chain
            if grammar is not None and not isinstance(grammar, GbnfGrammar):
                raise TypeError("the engine's Llama takes a GbnfGrammar")
            return GrammarCheckedSampler(chain, self._model.vocab, grammar, self.n_vocab(), self.copy_guard)

        def save_state(self) -> Any:
            llama: Any = self
            batch_logits = llama.scores
            llama.scores = numpy.zeros((1, batch_logits.shape[-1]), dtype=numpy.single)
            try:
                return super().save_state()
            finally:
                llama.scores = batch_logits

    return EngineLlama
