"""Grammar-constrained sampling that asks the grammar about the sampled token first (as llama.cpp's
`common_sampler`), running it over the whole vocabulary only on a rejection: llama-cpp-python's way costs as
much as generating. It also applies a `CopyGuard`'s ban, unless the grammar allows nothing else."""

from __future__ import annotations

import ctypes
import importlib
import math
from dataclasses import dataclass
from typing import Any

from mixseek.llm.local_model.copy_guard import CopyGuard


@dataclass(frozen=True)
class GbnfGrammar:
    """A GBNF grammar text and its root rule, for generations of `llama_class.engine_llama`."""

    text: str
    root: str = "root"


class GrammarCheckedSampler:
    """Samples with llama-cpp-python's chain, then checks the grammar on the sampled token only."""

    def __init__(
        self,
        chain: Any,
        vocab: Any,
        grammar: GbnfGrammar | None,
        n_vocab: int,
        guard: CopyGuard | None = None,
    ) -> None:
        import numpy as np

        llama_cpp: Any = importlib.import_module("llama_cpp")
        self._llama_cpp = llama_cpp
        self._chain = chain
        self._guard = guard
        self._grammar: Any = None
        if grammar is not None:
            self._grammar = llama_cpp.llama_sampler_init_grammar(
                vocab, grammar.text.encode("utf-8"), grammar.root.encode("utf-8")
            )
            if not self._grammar:
                raise ValueError("llama.cpp refused the grammar")
        self._n_vocab = n_vocab
        token_data = np.dtype([("id", np.int32), ("logit", np.float32), ("p", np.float32)])
        assert token_data.itemsize == ctypes.sizeof(llama_cpp.llama_token_data)
        self._ids = np.arange(n_vocab, dtype=np.int32)
        self._candidates = np.zeros(n_vocab, dtype=token_data)
        self._candidates_array = llama_cpp.llama_token_data_array(
            data=self._candidates.ctypes.data_as(ctypes.POINTER(llama_cpp.llama_token_data)),
            size=n_vocab,
            selected=-1,
            sorted=False,
        )
        self._single = (llama_cpp.llama_token_data * 1)()
        self._single_array = llama_cpp.llama_token_data_array(
            data=self._single, size=1, selected=-1, sorted=False
        )

    def sample(self, ctx: Any, idx: int = -1) -> int:
        """The next token; called by `Llama.sample` in place of llama-cpp-python's chain."""
        llama_cpp = self._llama_cpp
        logits = self._logits(ctx, idx)
        banned = self._guard.banned() if self._guard is not None else []
        token = self._apply(logits, with_grammar=False, banned=banned)
        if self._grammar is not None and not self._allowed(token):
            token = self._apply(logits, with_grammar=True, banned=banned)
        if self._grammar is not None:
            llama_cpp.llama_sampler_accept(self._grammar, token)
        llama_cpp.llama_sampler_accept(self._chain.sampler, token)
        if self._guard is not None:
            self._guard.accept(token)
        return token

    def close(self) -> None:
        if self._grammar:
            self._llama_cpp.llama_sampler_free(self._grammar)
            self._grammar = None

    def __del__(self) -> None:
        self.close()

    def _logits(self, ctx: Any, idx: int) -> Any:
        import numpy as np

        pointer = self._llama_cpp.llama_get_logits_ith(ctx.ctx, idx)
        return np.ctypeslib.as_array(pointer, shape=(self._n_vocab,))

    def _apply(self, logits: Any, *, with_grammar: bool, banned: list[int]) -> int:
        llama_cpp = self._llama_cpp
        candidates = self._candidates
        candidates["id"] = self._ids
        candidates["logit"] = logits
        candidates["p"] = 0.0
        if banned:
            candidates["logit"][banned] = -math.inf
        array = self._candidates_array
        array.size, array.selected, array.sorted = self._n_vocab, -1, False
        if with_grammar:
            llama_cpp.llama_sampler_apply(self._grammar, ctypes.byref(array))
            if banned and not (candidates["logit"][: array.size] > -math.inf).any():
                # the grammar allows only forbidden tokens here: it wins over the ban
                return self._apply(logits, with_grammar=True, banned=[])
        llama_cpp.llama_sampler_apply(self._chain.sampler, ctypes.byref(array))
        if not 0 <= array.selected < array.size:
            raise RuntimeError("llama.cpp's sampler chain selected no token")
        return int(array.data[array.selected].id)

    def _allowed(self, token: int) -> bool:
        self._single[0].id, self._single[0].logit, self._single[0].p = token, 1.0, 0.0
        array = self._single_array
        array.size, array.selected, array.sorted = 1, -1, False
        self._llama_cpp.llama_sampler_apply(self._grammar, ctypes.byref(array))
        return bool(self._single[0].logit != -math.inf)
