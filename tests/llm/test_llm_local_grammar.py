"""The embedded model's grammars, checked by llama.cpp itself (issue #9, item 16).

A reply is fed to llama.cpp's grammar sampler character by character with SmolLM2's vocabulary
(loaded without weights), exactly as generation would offer it: a reply the grammar rejects is
one the model cannot write. Scores are bounded in the grammar (no 2019 where 0-100 belongs), and
no final answer can be a JSON object such as a copy of the model's own tool call.
"""

from __future__ import annotations

import ctypes
import importlib.util
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.tools import ToolDefinition

from mixseek.errors import MixseekError
from mixseek.evaluator.models import MetricScore
from mixseek.llm.local import resolve_local_model
from mixseek.llm.local_model.grammar import integer_range_rule, schema_to_gbnf
from mixseek.llm.local_model.plan import ResponsePlan, build_plan, final_answer_plan
from mixseek.round_controller.judgment_client import JudgmentOutput


def _smollm2() -> Path | None:
    try:
        return resolve_local_model("smollm2")
    except MixseekError:
        return None


pytestmark = [
    pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama_cpp is not installed"),
    pytest.mark.skipif(_smollm2() is None, reason="the SmolLM2 GGUF is not installed"),
]


class Checker:
    """Whether llama.cpp's grammar sampler lets a model write exactly a given text."""

    def __init__(self, vocab_model: Any) -> None:
        import llama_cpp

        self.llama_cpp = llama_cpp
        self.model = vocab_model
        self.vocab = llama_cpp.llama_model_get_vocab(vocab_model.model)

    def _tokens(self, char: str) -> list[int]:
        # one character at a time (a Japanese character may take several byte tokens)
        return [int(t) for t in self.model.tokenize(char.encode("utf-8"), add_bos=False, special=False)]

    def _allowed(self, sampler: Any, token: int) -> bool:
        data = (self.llama_cpp.llama_token_data * 1)()
        data[0].id, data[0].logit, data[0].p = token, 1.0, 0.0
        array = self.llama_cpp.llama_token_data_array(data=data, size=1, selected=-1, sorted=False)
        self.llama_cpp.llama_sampler_apply(sampler, ctypes.byref(array))
        return bool(data[0].logit != -math.inf)

    def accepts(self, grammar: str, text: str) -> bool:
        sampler = self.llama_cpp.llama_sampler_init_grammar(self.vocab, grammar.encode(), b"root")
        assert sampler, "llama.cpp refused the grammar"
        try:
            for token in (token for char in text for token in self._tokens(char)):
                if not self._allowed(sampler, token):
                    return False
                self.llama_cpp.llama_sampler_accept(sampler, token)
            return self._allowed(sampler, int(self.model.token_eos()))
        finally:
            self.llama_cpp.llama_sampler_free(sampler)


@pytest.fixture(scope="module")
def checker() -> Iterator[Checker]:
    from llama_cpp import Llama

    path = _smollm2()
    assert path is not None
    model = Llama(model_path=str(path), vocab_only=True, verbose=False)
    yield Checker(model)
    model.close()


def _output_tool(model: type[BaseModel]) -> ModelRequestParameters:
    tool = ToolDefinition(name="final_result", parameters_json_schema=model.model_json_schema())
    return ModelRequestParameters(output_mode="tool", output_tools=[tool], allow_text_output=False)


def _grammar(plan: ResponsePlan) -> str:
    assert plan.grammar_schema is not None
    return schema_to_gbnf(plan.grammar_schema)


def test_a_metric_score_is_a_number_from_0_to_100(checker: Checker) -> None:
    grammar = _grammar(build_plan(_output_tool(MetricScore), max_tokens=160))
    for score in ("0", "7", "85", "99.5", "100", "100.0", "42.125"):
        assert checker.accepts(grammar, f'{{"score": {score}, "comment": "ok"}}'), score
    for score in ("2019", "2036", "101", "100.5", "-1", "05", "1e3", "42.1255"):
        assert not checker.accepts(grammar, f'{{"score": {score}, "comment": "ok"}}'), score


def test_a_judgment_confidence_is_a_number_from_0_to_1(checker: Checker) -> None:
    grammar = _grammar(build_plan(_output_tool(JudgmentOutput), max_tokens=160))

    def reply(confidence: str) -> str:
        # the free-form reasoning comes last, so a reply cut short still has the decision
        return f'{{"should_continue": true, "confidence_score": {confidence}, "reasoning": "ok"}}'

    for confidence in ("0", "0.85", "1", "1.0"):
        assert checker.accepts(grammar, reply(confidence)), confidence
    for confidence in ("2", "1.5", "10", "-0.5"):
        assert not checker.accepts(grammar, reply(confidence)), confidence
    assert not checker.accepts(grammar, '{"should_continue": true, "reasoning": "ok", "confidence_score": 1}')


@pytest.mark.parametrize(
    ("bounds", "allowed"),
    [
        ({"minimum": 3, "maximum": 1234}, range(3, 1235)),
        ({"minimum": 0, "exclusiveMaximum": 10}, range(0, 10)),
        ({"exclusiveMinimum": 0, "maximum": 100}, range(1, 101)),
        ({"minimum": 1}, range(1, 100_000)),
    ],
)
def test_integer_bounds_allow_exactly_the_numbers_in_range(
    checker: Checker, bounds: dict[str, int], allowed: range
) -> None:
    grammar = schema_to_gbnf({"type": "integer", **bounds})
    for value in [*range(0, 130), 999, 1000, 1199, 1200, 1229, 1230, 1234, 1235, 1299, 2000, 9999, 12345]:
        assert checker.accepts(grammar, str(value)) == (value in allowed), value


def test_ranges_the_grammar_cannot_spell_are_left_to_the_check_after_parsing(checker: Checker) -> None:
    # negative or fractional bounds: enforce_numeric_ranges checks them (test_llm_local_schema.py)
    for bounds in ({"minimum": -5, "maximum": 5}, {"minimum": 0.5, "maximum": 2.5}):
        assert checker.accepts(schema_to_gbnf({"type": "number", **bounds}), "2019")


def test_integer_range_rule_spells_digits_without_leading_zeros() -> None:
    assert integer_range_rule(0, 100) == '[0-9] | [1-9] [0-9] | "100"'
    assert integer_range_rule(7, 7) == '"7"'


def _delegating_leader() -> ModelRequestParameters:
    task = {"type": "object", "properties": {"task": {"type": "string"}}, "required": ["task"]}
    return ModelRequestParameters(
        function_tools=[ToolDefinition(name="delegate_to_writer", parameters_json_schema=task)],
        allow_text_output=True,
    )


TOOL_CALL = {"tool": "delegate_to_writer", "arguments": {"task": "案を書いて"}}


def test_no_final_answer_can_be_a_tool_call(checker: Checker) -> None:
    copied = json.dumps(TOOL_CALL, ensure_ascii=False)
    final_answers = {
        "first step": build_plan(_delegating_leader(), max_tokens=256),
        "after its tools were withdrawn": build_plan(
            ModelRequestParameters(allow_text_output=True), max_tokens=256, after_tool_calls=True
        ),
        "a repeated call replaced": final_answer_plan(
            build_plan(_delegating_leader(), max_tokens=256), max_tokens=256
        ),
    }
    for step, plan in final_answers.items():
        assert plan is not None, step
        grammar = _grammar(plan)
        assert checker.accepts(grammar, '{"final_answer": "保育の無償化を提案します。"}'), step
        for answer in (copied, " " + copied, "", "\\n" + copied):
            reply = json.dumps({"final_answer": answer}, ensure_ascii=False)
            assert not checker.accepts(grammar, reply), (step, reply)
    # tools the request withdrew cannot be called either: only the final answer is left
    assert not checker.accepts(_grammar(final_answers["after its tools were withdrawn"]), copied)
