"""`LlamaCppModel`: a pydantic-ai `Model` that runs a GGUF file in-process with llama.cpp. Each request
becomes one chat prompt (`prompt.py`) and one generation constrained by a JSON grammar to the replies it
allows (`plan.py`), so the reply always parses; what the grammar cannot express is checked afterwards
(`range_policy`: retry through pydantic's validation, or clamp). `extra_body` may carry
`EXTRA_SAMPLING_OPTIONS`."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic_ai.exceptions import (
    ModelAPIError,
    ModelContextWindowExceededError,
    ModelRequestTimeout,
    UserError,
)
from pydantic_ai.messages import InstructionPart, ModelMessage, ModelResponse, ModelResponsePart, ToolCallPart
from pydantic_ai.models import CompletedStreamedResponse, Model, ModelRequestParameters, StreamedResponse
from pydantic_ai.profiles import ModelProfile, ModelProfileSpec
from pydantic_ai.settings import ModelSettings
from pydantic_ai.usage import RequestUsage

from mixseek.llm.local_model.echo import clean_parts
from mixseek.llm.local_model.engine import (
    DEFAULT_N_CTX,
    DEFAULT_PROMPT_CACHE_BYTES,
    Generation,
    GenerationRequest,
    GenerationTimeout,
    LlamaEngine,
    ModelLoadError,
    get_engine,
)
from mixseek.llm.local_model.plan import (
    DecodedReply,
    answered_call_keys,
    build_plan,
    call_key,
    decode_reply,
    final_answer_plan,
    has_tool_calls,
)
from mixseek.llm.local_model.prompt import ContextOverflowError, build_chat, response_instructions
from mixseek.llm.own_texts import current_own_texts

if TYPE_CHECKING:
    from pydantic_ai import RunContext

logger = logging.getLogger("mixseek.llm.local")

RangePolicy = Literal["clamp", "retry"]

DEFAULT_MAX_TOKENS = 512
DEFAULT_SAMPLING: dict[str, Any] = {"temperature": 0.2, "top_p": 0.95, "top_k": 40, "repeat_penalty": 1.1}
EXTRA_SAMPLING_OPTIONS = frozenset(
    {"min_p", "typical_p", "repeat_penalty", "tfs_z", "mirostat_mode", "mirostat_tau", "mirostat_eta"}
)


class LlamaCppModel(Model):
    """A GGUF model run in this process by llama.cpp, shared by every agent that uses the same file."""

    unsupported_settings = frozenset({"extra_headers", "service_tier", "citations", "max_retries"})

    def __init__(
        self,
        model_path: str | Path,
        *,
        model_name: str | None = None,
        n_ctx: int = DEFAULT_N_CTX,
        n_threads: int | None = None,
        prompt_cache_bytes: int = DEFAULT_PROMPT_CACHE_BYTES,
        range_policy: RangePolicy = "retry",
        allow_repeated_tool_calls: bool = False,
        settings: ModelSettings | None = None,
        profile: ModelProfileSpec | None = None,
    ) -> None:
        """Use the GGUF file at `model_path`, loaded on the first request, once per process. `n_ctx`,
        `n_threads` and `prompt_cache_bytes` apply to the first model of a file; later ones share its engine.
        Unless `allow_repeated_tool_calls`, a repeated function tool call is replaced by a final answer: small
        models otherwise repeat a call until the request limit."""
        if range_policy not in ("clamp", "retry"):
            raise ValueError(f"range_policy must be 'clamp' or 'retry', not {range_policy!r}")
        self._path = Path(model_path).expanduser().resolve()
        if not self._path.is_file():
            raise UserError(f"GGUF file not found: {self._path}")
        self._model_name = model_name or self._path.name
        self._engine = get_engine(
            self._path, n_ctx=n_ctx, n_threads=n_threads, prompt_cache_bytes=prompt_cache_bytes
        )
        self.range_policy: RangePolicy = range_policy
        self.allow_repeated_tool_calls = allow_repeated_tool_calls
        if profile is None:
            profile = ModelProfile(
                supports_tools=True,
                supports_json_schema_output=True,
                supports_json_object_output=True,
                default_structured_output_mode="tool",
                may_tokenize_special_tokens_in_content=True,
                supported_native_tools=frozenset(),
                context_window=n_ctx,
            )
        super().__init__(settings=settings, profile=profile)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return (self._path, self._model_name, self.range_policy, self.allow_repeated_tool_calls) == (
            other._path,
            other._model_name,
            other.range_policy,
            other.allow_repeated_tool_calls,
        ) and (self._settings, self._profile) == (other._settings, other._profile)

    def __hash__(self) -> int:
        return hash((type(self), self._path, self._model_name))

    @property
    def model_name(self) -> str:
        return self._model_name

    @property
    def system(self) -> str:
        return "local"

    @property
    def model_path(self) -> Path:
        return self._path

    @property
    def engine(self) -> LlamaEngine:
        """The process-wide engine of this model's file."""
        return self._engine

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        response, _ = await self._request(messages, model_settings, model_request_parameters)
        return response

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncGenerator[StreamedResponse]:
        """The whole response, replayed as a stream (generation itself is not streamed)."""
        response, params = await self._request(messages, model_settings, model_request_parameters)
        yield CompletedStreamedResponse(response, model_request_parameters=params, replay_events=True)

    async def _request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> tuple[ModelResponse, ModelRequestParameters]:
        settings, params = self.prepare_request(model_settings, model_request_parameters)
        settings = settings or ModelSettings()
        max_tokens = int(settings.get("max_tokens") or DEFAULT_MAX_TOKENS)
        plan = build_plan(params, max_tokens=max_tokens, after_tool_calls=has_tool_calls(messages))
        instruction_parts = self._get_instruction_parts(messages, params)
        prompt = build_chat(
            messages,
            instructions=InstructionPart.join(instruction_parts) if instruction_parts else None,
            response_format=response_instructions(plan),
        )
        timeout = _timeout_seconds(settings)
        protected = instruction_texts(prompt.system, prompt.closing, *current_own_texts())
        request = GenerationRequest(
            prompt=prompt,
            max_tokens=max_tokens,
            grammar_schema=plan.grammar_schema,
            sampling=sampling_options(settings),
            stop=tuple(settings.get("stop_sequences") or ()),
            deadline=time.monotonic() + timeout if timeout is not None else None,
            protected=protected,
        )
        generation = await self._generate(request, timeout)
        clamp = self.range_policy == "clamp"
        decoded = decode_reply(plan, generation.text, clamp=clamp)
        details: dict[str, Any] = {"plan": plan.mode}
        usage = _usage(generation)

        repeated = self._repeated_call(decoded.parts, messages, plan.function_tool_names)
        final_plan = final_answer_plan(plan, max_tokens=max_tokens) if repeated else None
        if repeated and final_plan is not None:
            # The same call already has its result: ask for the final answer instead (same prompt,
            # narrower grammar), rather than letting a small model call the tool forever.
            logger.info(
                "local model %s: repeated call of %r replaced by a final answer", self.model_name, repeated
            )
            details["repeated_call_replaced"] = repeated
            generation = await self._generate(
                replace(request, grammar_schema=final_plan.grammar_schema), timeout
            )
            decoded = decode_reply(final_plan, generation.text, clamp=clamp)
            usage = usage + _usage(generation)

        parts, echoes = clean_parts(decoded.parts, protected, cut=generation.finish_reason == "length")
        response = ModelResponse(
            parts=parts,
            usage=usage,
            model_name=self.model_name,
            provider_name=self.system,
            finish_reason=generation.finish_reason,
            provider_details=self._details(details, decoded, generation, echoes),
        )
        return response, params

    def _details(
        self, details: dict[str, Any], decoded: DecodedReply, generation: Generation, echoes: int
    ) -> dict[str, Any]:
        """Add what the reply needed (removed echoes, range notes, repairs) and timings to `details`."""
        if echoes:
            logger.info(
                "local model %s: copies of its instructions removed from %d texts", self.model_name, echoes
            )
            details["instruction_copies_removed"] = echoes
        if decoded.range_notes:
            logger.info(
                "local model %s: numbers out of range: %s", self.model_name, "; ".join(decoded.range_notes)
            )
            details["range_notes"] = decoded.range_notes
        details["prompt_seconds"] = round(generation.prompt_seconds, 4)
        details["generation_seconds"] = round(generation.generation_seconds, 4)
        details["grammar"] = generation.grammar_used
        if decoded.repaired:
            details["repaired_json"] = True
        if generation.omitted_turns:
            details["omitted_messages"] = generation.omitted_turns
        return details

    async def _generate(self, request: GenerationRequest, timeout: float | None) -> Generation:
        engine = self._engine
        try:
            return await engine.run(lambda llama, cancelled: engine.generate(llama, request, cancelled))
        except ContextOverflowError as exc:
            raise ModelContextWindowExceededError(
                self.model_name, f"local model {self.model_name!r}: {exc}"
            ) from exc
        except GenerationTimeout as exc:
            raise ModelRequestTimeout(self.model_name, timeout or 0.0) from exc
        except ModelLoadError as exc:
            raise ModelAPIError(self.model_name, str(exc)) from exc

    def _repeated_call(
        self, parts: list[ModelResponsePart], messages: list[ModelMessage], function_tools: frozenset[str]
    ) -> str | None:
        """The tool name if `parts` repeat a function tool call that already got its result."""
        if self.allow_repeated_tool_calls:
            return None
        calls = [
            part for part in parts if isinstance(part, ToolCallPart) and part.tool_name in function_tools
        ]
        if not calls:
            return None
        answered = answered_call_keys(messages)
        repeated = [call.tool_name for call in calls if call_key(call) in answered]
        return repeated[0] if repeated else None


def instruction_texts(*texts: str) -> tuple[str, ...]:
    """The distinct non-blank texts a reply must not copy, in order."""
    return tuple(dict.fromkeys(text for text in texts if text.strip()))


def sampling_options(settings: ModelSettings) -> dict[str, Any]:
    """llama.cpp `create_completion` keyword arguments for the sampling-related `settings`."""
    options = dict(DEFAULT_SAMPLING)
    for key in ("temperature", "top_p", "top_k", "seed", "presence_penalty", "frequency_penalty"):
        value = settings.get(key)
        if value is not None:
            options[key] = value
    logit_bias = settings.get("logit_bias")
    if logit_bias:
        options["logit_bias"] = {int(token): float(bias) for token, bias in logit_bias.items()}
    extra = settings.get("extra_body")
    if extra is not None:
        if not isinstance(extra, dict):
            raise UserError("extra_body for a local model must be a dict of llama.cpp sampling options")
        unknown = sorted(set(extra) - EXTRA_SAMPLING_OPTIONS)
        if unknown:
            raise UserError(
                f"extra_body for a local model accepts {', '.join(sorted(EXTRA_SAMPLING_OPTIONS))}; "
                f"not {', '.join(map(str, unknown))}"
            )
        options.update(extra)
    return options


def _timeout_seconds(settings: ModelSettings) -> float | None:
    timeout = settings.get("timeout")
    if isinstance(timeout, int | float) and not isinstance(timeout, bool) and timeout > 0:
        return float(timeout)
    return None


def _usage(generation: Generation) -> RequestUsage:
    return RequestUsage(input_tokens=generation.prompt_tokens, output_tokens=generation.completion_tokens)
