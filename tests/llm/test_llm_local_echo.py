"""The embedded model never hands back its own instructions, and ends a cut text at a boundary."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel, Field
from pydantic_ai import Agent
from pydantic_ai.messages import TextPart, ToolCallPart

from mixseek.llm.local_model.copy_guard import CopyGuard
from mixseek.llm.local_model.echo import clean_parts, copied_spans, end_at_boundary, remove_copies
from mixseek.llm.local_model.engine import Generation, GenerationRequest
from mixseek.llm.local_model.model import LlamaCppModel
from mixseek.llm.own_texts import current_own_texts, own_texts

SYSTEM = (
    "あなたは分析チームのリーダーです。メンバーの結果を基に、番号付きの3つの提案として回答を書いてください。"
)


def test_runs_of_sixteen_characters_in_an_instruction_are_copies() -> None:
    text = "回答: メンバーの結果を基に、番号付きの3つの提案として回答を書いてください。1. 保育所を増やす"
    assert copied_spans(text, [SYSTEM]) == [(4, 39)]
    assert remove_copies(text, [SYSTEM]) == "回答: 1. 保育所を増やす"
    # fifteen characters in common are not a copy
    assert remove_copies("メンバーの結果を基に、番号付き", [SYSTEM]) == "メンバーの結果を基に、番号付き"


def test_a_text_that_is_only_a_copy_becomes_empty() -> None:
    assert remove_copies(f"  {SYSTEM}  ", [SYSTEM]) == ""
    assert (
        remove_copies(
            "Reply with only a JSON object with these fields: {",
            ["Reply with only a JSON object with these fields:"],
        )
        == ""
    )


@pytest.mark.parametrize(
    ("cut", "ended"),
    [
        ("出生率を上げるには保育所を増やす。さらに住宅支援を拡充し", "出生率を上げるには保育所を増やす。"),
        (
            "The score is low because the answer misses the third propos",
            "The score is low because the answer misses the third…",
        ),
        ("提出内容は課題に沿っており、論理的だが具体", "提出内容は課題に沿っており、論理的だが…"),
        ("提出内容はタスクに沿っていない内容", "提出内容はタスクに沿っていない…"),
        ("1. 保育所を増やす。2. 給付を拡充する 3.", "1. 保育所を増やす。"),
        ("Proposals: 1. more nurseries. 2. cash benef", "Proposals: 1. more nurseries."),
        ("It is complete.", "It is complete."),
        ("", ""),
    ],
)
def test_a_cut_text_ends_at_a_sentence_or_word_boundary(cut: str, ended: str) -> None:
    assert end_at_boundary(cut) == ended


def test_clean_parts_keeps_offered_values_and_ends_the_last_string_when_cut() -> None:
    protected = ['Reply with one JSON object; "verdict" is one of "continue_with_another_round", "stop"']
    call = ToolCallPart(
        tool_name="final_result",
        args={
            "verdict": "continue_with_another_round",
            "reasoning": "The answer lacks the third measure and its cost estima",
        },
    )
    parts, removed = clean_parts([call], protected, cut=True)
    assert removed == 0
    assert isinstance(parts[0], ToolCallPart)
    assert parts[0].args_as_dict() == {
        "verdict": "continue_with_another_round",
        "reasoning": "The answer lacks the third measure and its cost…",
    }
    echoed = TextPart(content=f"{SYSTEM}\n1. 保育所を増やす")
    parts, removed = clean_parts([echoed], [SYSTEM], cut=False)
    assert (parts, removed) == ([TextPart(content="1. 保育所を増やす")], 1)


def _guard(protected: list[str], *, json_reply: bool) -> tuple[CopyGuard, dict[str, int]]:
    """A guard over a toy vocabulary of one character per token."""
    vocabulary: dict[str, int] = {}
    for char in "".join(protected) + '{}":, abcdefghijklmnopqrstuvwxyz':
        vocabulary.setdefault(char, len(vocabulary))
    pieces = {token: char.encode() for char, token in vocabulary.items()}
    sequences = [[vocabulary[c] for c in text] for text in protected]
    return CopyGuard(sequences, pieces.__getitem__, json_reply=json_reply, ban_at_chars=5), vocabulary


def test_the_guard_bans_the_token_that_would_make_a_copy_long_enough() -> None:
    guard, vocabulary = _guard(["hello world"], json_reply=False)
    for char in "say hell":
        assert guard.banned() == [] or char != "o"
        guard.accept(vocabulary[char])
    assert guard.banned() == [vocabulary["o"]]  # "hello" would be five characters copied
    guard.accept(vocabulary["p"])
    assert guard.banned() == []


def test_the_guard_watches_json_string_values_but_not_keys_or_tool_names() -> None:
    guard, vocabulary = _guard(['"tool": "greet_world"', "greet the world"], json_reply=True)
    for char in '{"tool": "greet_wor':
        guard.accept(vocabulary[char])
    assert guard.banned() == []  # the tool's name is the grammar's choice, not a copy
    for char in 'ld", "arguments": {"text": "greet':
        guard.accept(vocabulary[char])
    # "greet" already copies five characters of the first text's value and of the second text
    assert guard.banned() == sorted([vocabulary[" "], vocabulary["_"]])


def test_own_texts_are_seen_inside_the_block_only() -> None:
    assert current_own_texts() == ()
    with own_texts(["# 評価タスク", "  "]), own_texts(["現在日時:"]):
        assert current_own_texts() == ("# 評価タスク", "現在日時:")
    assert current_own_texts() == ()


# -- through the model, with scripted generations -----------------------------------------------


def scripted(path: Path, text: str, finish: str = "stop") -> tuple[LlamaCppModel, list[GenerationRequest]]:
    model = LlamaCppModel(path, model_name="scripted")
    requests: list[GenerationRequest] = []

    def generate(llama: object, request: GenerationRequest, cancelled: object) -> Generation:
        requests.append(request)
        return Generation(
            text=text,
            finish_reason=finish,  # type: ignore[arg-type]
            prompt_tokens=10,
            completion_tokens=5,
            prompt_seconds=0.0,
            generation_seconds=0.0,
            max_tokens=request.max_tokens,
        )

    model.engine.load = lambda: object()  # type: ignore[method-assign]
    model.engine.generate = generate  # type: ignore[method-assign]
    return model, requests


async def test_an_answer_that_echoes_the_system_prompt_loses_the_echo(model_file: Path) -> None:
    model, requests = scripted(model_file, f"{SYSTEM}\n1. 保育所を増やす\n2. 給付\n3. 働き方改革")
    with own_texts(["上記のフィードバックを基に提出内容を改善してください。"]):
        result = await Agent(model, system_prompt=SYSTEM).run("日本の少子化対策を3つ提案してください")
    assert result.output == "1. 保育所を増やす\n2. 給付\n3. 働き方改革"
    assert requests[0].protected == (SYSTEM, "上記のフィードバックを基に提出内容を改善してください。")


class Verdict(BaseModel):
    score: int = Field(ge=0, le=100, description="0〜100の評価スコア")
    comment: str = Field(description="スコアの根拠となる簡潔な講評")


async def test_a_structured_answer_loses_copies_of_its_format_and_ends_at_a_boundary(
    model_file: Path,
) -> None:
    reply = (
        '{"score": 40, "comment": "Reply with only a JSON object with these fields: '
        "提案が二つしかなく、三つ目の具体"
    )
    model, requests = scripted(model_file, reply, finish="length")
    result = await Agent(model, output_type=Verdict).run("評価してください")
    assert result.output == Verdict(score=40, comment="提案が二つしかなく、三つ目の…")
    assert "Reply with only a JSON object with these fields:" in requests[0].protected[0]
