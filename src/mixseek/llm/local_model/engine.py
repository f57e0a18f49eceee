"""One llama.cpp model per GGUF file and process, used by one thread at a time (its contexts are not
thread-safe): requests queue for the engine's worker thread, the event loop never waits on llama.cpp, a
cancelled request stops at the next token, and recent prompt states are kept so shared prefixes run once."""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import CancelledError as FutureCancelledError
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

from mixseek.errors import RuntimeFailure
from mixseek.llm.local_model.copy_guard import CopyGuard
from mixseek.llm.local_model.grammar import schema_to_gbnf
from mixseek.llm.local_model.llama_class import engine_llama
from mixseek.llm.local_model.prompt import ChatMessage, ChatPrompt, ChatTemplate, fit_to_context
from mixseek.llm.local_model.sampler import GbnfGrammar
from mixseek.llm.local_model.schema import JsonSchema
from mixseek.llm.local_model.selftest import verify_local_model

logger = logging.getLogger("mixseek.llm.local")

T = TypeVar("T")

DEFAULT_N_CTX = 4096
"""Context window used unless the model was trained on a smaller one."""
DEFAULT_N_BATCH = 512
DEFAULT_PROMPT_CACHE_BYTES = 512 << 20
"""Memory for the KV states of recent prompts (see `_prefix_state_cache`); 0 turns the cache off."""
MIN_OUTPUT_TOKENS = 64
"""Fewest answer tokens a request gets before its prompt counts as too long for the context."""
_GRAMMAR_CACHE_SIZE = 64
_TEXT_TOKENS_CACHE_SIZE = 256


def default_threads() -> int:
    """The usable CPUs less one (at least one): llama.cpp's threads busy-wait, and leaving a core to the event
    loop, DuckDB and HTTP was much faster (bench/local_model.py)."""
    try:
        available = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        available = os.cpu_count() or 1
    return max(1, available - 1)


class ModelLoadError(RuntimeFailure):
    """llama.cpp could not load the GGUF file."""

    def __init__(self, path: Path, cause: BaseException) -> None:
        self.path = path
        detail = str(cause).strip().splitlines()[0] if str(cause).strip() else type(cause).__name__
        super().__init__(f"llama.cpp could not load {path}: {detail}")


class GenerationCancelled(RuntimeFailure):
    """The request was cancelled before or while generating."""


class GenerationTimeout(RuntimeFailure):
    """Generation ran past the request's `timeout`."""


@dataclass(frozen=True)
class GenerationRequest:
    """Everything one generation needs; built on the event loop, used in the worker thread."""

    prompt: ChatPrompt
    max_tokens: int
    grammar_schema: JsonSchema | None = None
    sampling: dict[str, Any] = field(default_factory=dict)
    stop: Sequence[str] = ()
    deadline: float | None = None
    """`time.monotonic()` value after which generation stops with `GenerationTimeout`."""
    protected: tuple[str, ...] = ()
    """Instruction texts the reply must not copy (see `copy_guard`)."""


@dataclass(frozen=True)
class Generation:
    """What one generation produced, with its token counts and timings."""

    text: str
    finish_reason: Literal["stop", "length"]
    prompt_tokens: int
    completion_tokens: int
    prompt_seconds: float
    """From the call to the first generated token: prompt processing (after any cached prefix)."""
    generation_seconds: float
    """From the first to the last generated token."""
    max_tokens: int
    omitted_turns: int = 0
    grammar_used: bool = False


class LlamaEngine:
    """A GGUF model file, its llama.cpp model once loaded, and the thread that runs it."""

    def __init__(
        self,
        path: Path,
        *,
        n_ctx: int = DEFAULT_N_CTX,
        n_threads: int | None = None,
        prompt_cache_bytes: int = DEFAULT_PROMPT_CACHE_BYTES,
    ) -> None:
        self.path = path
        self.requested_n_ctx = n_ctx
        self.n_threads = n_threads or default_threads()
        self.prompt_cache_bytes = prompt_cache_bytes
        self.load_count = 0
        self.load_seconds: float | None = None
        self._llama: Any = None
        self._template: ChatTemplate | None = None
        self._load_lock = threading.Lock()
        self._inference_lock = threading.Lock()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"mixseek-local-{path.stem}")
        self._grammar_ok: OrderedDict[str, bool] = OrderedDict()
        self._text_tokens: OrderedDict[str, list[int]] = OrderedDict()
        self._pieces: dict[int, bytes] = {}

    @property
    def loaded(self) -> bool:
        return self._llama is not None

    @property
    def n_ctx(self) -> int:
        """The context window of the loaded model (the requested one before loading)."""
        return int(self._llama.n_ctx()) if self._llama is not None else self.requested_n_ctx

    def load(self) -> Any:
        """The llama.cpp model, loaded on first use (once, however many threads ask)."""
        if self._llama is not None:
            return self._llama
        with self._load_lock:
            if self._llama is None:
                self._load()
        return self._llama

    def _load(self) -> None:
        started = time.perf_counter()
        llama_class = engine_llama()
        try:
            llama = self._open(llama_class, self.requested_n_ctx)
            trained = _trained_context(llama.metadata)
            if trained is not None and trained < self.requested_n_ctx:
                llama.close()
                llama = self._open(llama_class, trained)
        except Exception as exc:
            raise ModelLoadError(self.path, exc) from exc
        self._template = ChatTemplate(
            llama.metadata.get("tokenizer.chat_template"),
            bos_token=_token_text(llama, llama.token_bos()),
            eos_token=_token_text(llama, llama.token_eos()),
        )
        if self.prompt_cache_bytes > 0:
            llama.set_cache(_prefix_state_cache(self.prompt_cache_bytes))
        self.load_seconds = time.perf_counter() - started
        self.load_count += 1
        self._llama = llama
        logger.info("loaded %s in %.2f s (n_ctx=%d)", self.path, self.load_seconds, llama.n_ctx())

    def _open(self, llama_class: Any, n_ctx: int) -> Any:
        return llama_class(
            model_path=str(self.path),
            n_ctx=n_ctx,
            n_batch=min(DEFAULT_N_BATCH, n_ctx),
            n_threads=self.n_threads,
            n_threads_batch=self.n_threads,
            verbose=False,
        )

    async def run(self, job: Callable[[Any, threading.Event], T]) -> T:
        """`job(llama, cancelled)` in the worker thread, under the inference lock. Cancelling the awaiting
        task removes a queued job, or sets `cancelled` for a running one."""
        cancelled = threading.Event()
        future = self._executor.submit(self._run_job, job, cancelled)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            cancelled.set()
            future.cancel()
            raise

    def run_sync(self, job: Callable[[Any, threading.Event], T]) -> T:
        """`run` for synchronous callers (benchmarks, scripts)."""
        return self._executor.submit(self._run_job, job, threading.Event()).result()

    def _run_job(self, job: Callable[[Any, threading.Event], T], cancelled: threading.Event) -> T:
        if cancelled.is_set():
            raise FutureCancelledError()
        with self._inference_lock:
            llama = self.load()
            return job(llama, cancelled)

    def close(self) -> None:
        """Stop the worker thread and free the model."""
        self._executor.shutdown(wait=True, cancel_futures=True)
        with self._load_lock:
            if self._llama is not None:
                self._llama.close()
                self._llama = None

    # -- generation (worker thread only) ---------------------------------------------------------

    def render(self, messages: Sequence[ChatMessage]) -> str:
        """The prompt text of `messages` in the model's chat template (model loaded)."""
        assert self._template is not None
        return self._template.render(messages)

    def tokenize(self, llama: Any, text: str) -> list[int]:
        """Tokens of a rendered prompt; BOS added only when the template did not write it."""
        bos = self._template.bos_token if self._template is not None else ""
        add_bos = not (bos and text.startswith(bos))
        return list(llama.tokenize(text.encode("utf-8"), add_bos=add_bos, special=True))

    def generate(self, llama: Any, request: GenerationRequest, cancelled: threading.Event) -> Generation:
        """Run one generation (call from a job, i.e. in the worker thread under the lock)."""
        from llama_cpp.llama import StoppingCriteriaList

        last_tokens: list[int] = []

        def count(messages: list[ChatMessage]) -> int:
            # `fit_to_context` returns the messages it counted last, so their tokens are kept.
            last_tokens[:] = self.tokenize(llama, self.render(messages))
            return len(last_tokens)

        fitted = fit_to_context(
            request.prompt,
            count,
            n_ctx=int(llama.n_ctx()),
            max_tokens=request.max_tokens,
            min_output=MIN_OUTPUT_TOKENS,
        )
        tokens = list(last_tokens)
        eos = self._template.eos_token if self._template is not None else ""
        grammar_text = self.compile_grammar(llama, request.grammar_schema) if request.grammar_schema else None

        clock = _TokenClock(cancelled, request.deadline)
        started = time.perf_counter()
        llama.copy_guard = self._copy_guard(llama, request.protected, json_reply=grammar_text is not None)
        try:
            result = llama.create_completion(
                tokens,
                max_tokens=fitted.max_tokens,
                grammar=GbnfGrammar(grammar_text) if grammar_text else None,
                stop=[s for s in (*request.stop, eos) if s],
                stopping_criteria=StoppingCriteriaList([clock]),
                **request.sampling,
            )
        finally:
            llama.copy_guard = None
        finished = time.perf_counter()
        if cancelled.is_set():
            raise GenerationCancelled()
        if clock.timed_out:
            raise GenerationTimeout()
        choice = result["choices"][0]
        usage = result.get("usage") or {}
        first = clock.first_token_at or finished
        return Generation(
            text=choice.get("text") or "",
            finish_reason="length" if choice.get("finish_reason") == "length" else "stop",
            prompt_tokens=int(usage.get("prompt_tokens", len(tokens))),
            completion_tokens=int(usage.get("completion_tokens", clock.tokens)),
            prompt_seconds=first - started,
            generation_seconds=finished - first,
            max_tokens=fitted.max_tokens,
            omitted_turns=fitted.omitted,
            grammar_used=grammar_text is not None,
        )

    def _copy_guard(self, llama: Any, protected: Sequence[str], *, json_reply: bool) -> CopyGuard | None:
        """The guard against copying `protected` for one generation (None when there is nothing)."""
        sequences = [self._protected_tokens(llama, text) for text in protected if text.strip()]
        if not sequences:
            return None
        return CopyGuard(sequences, lambda token: self._piece(llama, token), json_reply=json_reply)

    def _protected_tokens(self, llama: Any, text: str) -> list[int]:
        tokens = self._text_tokens.get(text)
        if tokens is None:
            tokens = list(llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))
            self._text_tokens[text] = tokens
            while len(self._text_tokens) > _TEXT_TOKENS_CACHE_SIZE:
                self._text_tokens.popitem(last=False)
        else:
            self._text_tokens.move_to_end(text)
        return tokens

    def _piece(self, llama: Any, token: int) -> bytes:
        piece = self._pieces.get(token)
        if piece is None:
            piece = self._pieces[token] = bytes(llama.detokenize([token]))
        return piece

    def compile_grammar(self, llama: Any, schema: JsonSchema) -> str | None:
        """The GBNF grammar of `schema`, or None (free generation) if llama.cpp would refuse it. A grammar
        llama.cpp cannot parse crashes the process when sampling, so each is parsed alone first."""
        import llama_cpp

        try:
            grammar = schema_to_gbnf(schema)
        except Exception as exc:
            logger.warning("local model %s: schema not convertible to a grammar (%s)", self.path.name, exc)
            return None
        verdict = self._grammar_ok.get(grammar)
        if verdict is None:
            vocab = llama_cpp.llama_model_get_vocab(llama.model)
            sampler = llama_cpp.llama_sampler_init_grammar(vocab, grammar.encode("utf-8"), b"root")
            verdict = bool(sampler)
            if verdict:
                llama_cpp.llama_sampler_free(sampler)
            self._grammar_ok[grammar] = verdict
            while len(self._grammar_ok) > _GRAMMAR_CACHE_SIZE:
                self._grammar_ok.popitem(last=False)
        else:
            self._grammar_ok.move_to_end(grammar)
        if not verdict:
            logger.warning(
                "local model %s: llama.cpp refused the grammar; generating unconstrained", self.path.name
            )
            return None
        return grammar


class _TokenClock:
    """A llama.cpp stopping criterion that times the first token and stops on cancel or deadline."""

    def __init__(self, cancelled: threading.Event, deadline: float | None) -> None:
        self.cancelled = cancelled
        self.deadline = deadline
        self.first_token_at: float | None = None
        self.tokens = 0
        self.timed_out = False

    def __call__(self, input_ids: Any, logits: Any) -> bool:
        if self.first_token_at is None:
            self.first_token_at = time.perf_counter()
        self.tokens += 1
        if self.deadline is not None and time.monotonic() > self.deadline:
            self.timed_out = True
        return self.cancelled.is_set() or self.timed_out


def _prefix_state_cache(capacity_bytes: int) -> Any:
    """llama-cpp-python's RAM cache of model states, so a request only evaluates what follows its longest
    common prefix with a recent one; states hold no logits, so the capacity counts the KV data."""
    from llama_cpp.llama_cache import LlamaRAMCache

    return LlamaRAMCache(capacity_bytes=capacity_bytes)


def _trained_context(metadata: dict[str, Any]) -> int | None:
    architecture = metadata.get("general.architecture")
    value = metadata.get(f"{architecture}.context_length") if architecture else None
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _token_text(llama: Any, token: int) -> str:
    if token is None or token < 0:
        return ""
    try:
        return bytes(llama.detokenize([token], special=True)).decode("utf-8", errors="ignore")
    except Exception:
        return ""


_engines: dict[Path, LlamaEngine] = {}
_engines_lock = threading.Lock()


def get_engine(
    path: Path,
    *,
    n_ctx: int = DEFAULT_N_CTX,
    n_threads: int | None = None,
    prompt_cache_bytes: int = DEFAULT_PROMPT_CACHE_BYTES,
) -> LlamaEngine:
    """The process-wide engine of the GGUF file at `path` (the first caller's options apply), self-tested on
    first use so a build that crashes on this CPU is a clear error."""
    key = path.resolve()
    verify_local_model(key)
    with _engines_lock:
        engine = _engines.get(key)
        if engine is None:
            engine = LlamaEngine(key, n_ctx=n_ctx, n_threads=n_threads, prompt_cache_bytes=prompt_cache_bytes)
            _engines[key] = engine
        return engine


def cached_engines() -> dict[Path, LlamaEngine]:
    """The engines created in this process, by resolved model path."""
    with _engines_lock:
        return dict(_engines)


def close_engine(path: Path) -> bool:
    """Close and forget the engine of `path`; False when there was none."""
    with _engines_lock:
        engine = _engines.pop(path.resolve(), None)
    if engine is None:
        return False
    engine.close()
    return True


def close_engines() -> None:
    """Close and forget every engine (tests, or to free memory)."""
    with _engines_lock:
        engines = list(_engines.values())
        _engines.clear()
    for engine in engines:
        engine.close()
