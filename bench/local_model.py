"""Benchmark: the embedded local model (llama.cpp in-process; SmolLM2-135M-Instruct by default).

Measures, in one process:

- load:        seconds to load the GGUF file (once per process);
- prompt:      prompt-processing tokens/s (a ~1,000-token prompt that shares no cached prefix);
- generation:  generation tokens/s, free text and grammar-constrained JSON (end of text suppressed,
               so the full budget is generated);
- calls:       seconds per model request of the sizes a team round makes, through
               `LlamaCppModel.request` exactly as an agent calls it (prompt assembly, grammar,
               decoding included): leader (team prompt, two delegation tools; then again with a
               member's result), member (free text answer), evaluator metric (`MetricScore`
               output tool), judgment (`JudgmentOutput` output tool).

- sample:      the README's first run, `--sample-runs` times (10) in each of `--languages` (ja,en):
               `mixseek init --language L` into a temporary directory and `mixseek exec --prompt-file
               prompt.txt` (2 teams x 2 rounds on the sample workspace), as subprocesses, before
               this process loads the model. Per language: how often the two teams' best scores
               differ (aim: 9 of 10), how often a team's round 2 scored above its round 1, the median
               and longest wall time next to the 90 s aim, the load average (other processes on the
               machine slow it down), and the share of the winning text's letters in the language's
               script. `--no-sample` skips it.

Calls run in the order of one team round (leader, 2 members, leader, 3 metrics, judgment), `--runs`
times, each run with a different round number at the start of every prompt so no prompt is fully
cached. The model serialises inference, so a round's calls add up: the table's "team round" line is
that sum, an ESTIMATE for one team with two members (the orchestrator's own overhead and a model's
choice to call more tools are not in it). Prompts are English; Japanese prompts need several times
more tokens with SmolLM2's tokenizer.

Prints a table, then one JSON line:

    {"bench": "local_model", "load_s": ..., "prompt_tok_s": ..., "gen_tok_s": ..., ...}

Run: python bench/local_model.py [--model local:smollm2] [--runs 3] [--max-tokens 512] [--threads N]
                                 [--no-prompt-cache] [--no-sample] [--sample-runs 10] [--languages ja,en]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.settings import ModelSettings
from pydantic_ai.tools import ToolDefinition

from mixseek.evaluator.models import MetricScore
from mixseek.llm import create_model
from mixseek.llm.local_model.engine import (
    DEFAULT_PROMPT_CACHE_BYTES,
    Generation,
    GenerationRequest,
    close_engine,
)
from mixseek.llm.local_model.model import LlamaCppModel
from mixseek.llm.local_model.prompt import ChatPrompt
from mixseek.round_controller.judgment_client import JudgmentOutput

PARAGRAPH = (
    "The team compared three approaches to caching the results of expensive queries. The first keeps a "
    "per-process dictionary, which is fast but lost on restart; the second writes to a shared database, "
    "which survives restarts but adds latency; the third combines both with a short time-to-live. "
)


def words(approx_tokens: int) -> str:
    """English filler of roughly `approx_tokens` tokens (about 0.75 words per token)."""
    text = ""
    while len(text.split()) < approx_tokens * 0.75:
        text += PARAGRAPH
    return text.strip()


LEADER_INSTRUCTIONS = (
    "You lead a team that answers the user's task. Delegate research and writing to your members with "
    "the delegation tools, then give the final submission."
)
MEMBER_INSTRUCTIONS = "You are a careful researcher. Answer the task you are given in a few paragraphs."
METRICS = ("clarity", "coverage", "relevance")


def metric_instructions(metric: str) -> str:
    return (
        f"Metric: {metric}. You evaluate a submission for this quality metric and give a score from 0 to 100."
    )


JUDGMENT_INSTRUCTIONS = "You decide whether a team should run another round to improve its submission."

TASK_TOOL = {
    "type": "object",
    "properties": {"task": {"type": "string", "description": "The task for the member"}},
    "required": ["task"],
}


def delegation_tools() -> list[ToolDefinition]:
    return [
        ToolDefinition(
            name="delegate_to_researcher", parameters_json_schema=TASK_TOOL, description="Ask the researcher."
        ),
        ToolDefinition(
            name="delegate_to_writer", parameters_json_schema=TASK_TOOL, description="Ask the writer."
        ),
    ]


def output_tool(model: Any, description: str) -> ModelRequestParameters:
    tool = ToolDefinition(
        name="final_result", parameters_json_schema=model.model_json_schema(), description=description
    )
    return ModelRequestParameters(output_mode="tool", output_tools=[tool], allow_text_output=False)


@dataclass
class Call:
    role: str
    messages: list[ModelMessage]
    params: ModelRequestParameters


def round_calls(round_number: int) -> list[Call]:
    """The model requests of one team round with two members, in order."""
    mark = f"Round {round_number}."
    team_prompt = (
        f"{mark} Task: write a short guide on choosing a caching strategy for a web service.\n\n"
        f"Previous submissions and feedback:\n{words(450)}\n\n"
        "Leaderboard: team alpha 62/100, team beta 58/100."
    )
    leader_first = ModelRequest(parts=[UserPromptPart(team_prompt)], instructions=LEADER_INSTRUCTIONS)
    member_answer = words(250)
    leader_second = [
        leader_first,
        ModelResponse(
            parts=[ToolCallPart("delegate_to_researcher", {"task": "Compare the approaches."}, "c1")]
        ),
        ModelRequest(
            parts=[ToolReturnPart("delegate_to_researcher", member_answer, "c1")],
            instructions=LEADER_INSTRUCTIONS,
        ),
    ]
    leader_params = ModelRequestParameters(function_tools=delegation_tools(), allow_text_output=True)
    member = ModelRequest(
        parts=[UserPromptPart(f"{mark} Compare per-process, shared and two-level caches for a web service.")],
        instructions=MEMBER_INSTRUCTIONS,
    )
    submission = words(350)
    metric_prompt = f"{mark} User task: write a guide on caching strategies.\n\nSubmission:\n{submission}"
    metrics = [
        ModelRequest(parts=[UserPromptPart(metric_prompt)], instructions=metric_instructions(name))
        for name in METRICS
    ]
    judgment_prompt = (
        f"{mark} Task: caching guide.\nRound history:\n{words(400)}\n\n"
        "Scores: round 1: 55/100, round 2: 62/100."
    )
    judgment = ModelRequest(parts=[UserPromptPart(judgment_prompt)], instructions=JUDGMENT_INSTRUCTIONS)
    text = ModelRequestParameters(output_mode="text", allow_text_output=True)
    metric_params = output_tool(MetricScore, "The metric's score and comment.")
    judgment_params = output_tool(JudgmentOutput, "Whether to continue.")
    return [
        Call("leader", [leader_first], leader_params),
        Call("member", [member], text),
        Call("member", [member], text),
        Call("leader", leader_second, leader_params),
        *[Call("metric", [metric], metric_params) for metric in metrics],
        Call("judgment", [judgment], judgment_params),
    ]


SAMPLE_AIM_S = 90.0
DIFFERENT_BEST_AIM = 0.9
"""Share of sample runs whose two teams' best scores differ (the issue's 9 of 10)."""
_LETTER = re.compile(r"[^\W\d_]")
_JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]")


def script_share(text: str, language: str) -> float:
    """Share of the letters of `text` in the sample language's script (kana/kanji, or Latin): a
    rough sign of whether the model kept to the language it was asked in."""
    letters = _LETTER.findall(text)
    if not letters:
        return 0.0
    own = _JAPANESE if language == "ja" else _LATIN
    return sum(1 for letter in letters if own.match(letter)) / len(letters)


def sample_execution(model: str, language: str) -> dict[str, Any]:
    """`mixseek init --language L` + `mixseek exec --prompt-file prompt.txt` on the sample
    workspace, timed (subprocesses), and what its verdict says: each team's score per round."""

    def mixseek(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "mixseek.cli", *args], capture_output=True, text=True)

    with tempfile.TemporaryDirectory(prefix="mixseek-bench-") as tmp:
        workspace = str(Path(tmp) / "workspace")
        init = mixseek("init", "-w", workspace, "--model", model, "--language", language)
        if init.returncode != 0:
            raise SystemExit(f"mixseek init failed: {init.stderr.strip()}")
        load_before = os.getloadavg()[0]
        started = time.perf_counter()
        run = mixseek(
            "exec", "--prompt-file", str(Path(workspace) / "prompt.txt"), "-w", workspace, "-f", "json"
        )
        seconds = time.perf_counter() - started
        load_after = os.getloadavg()[0]
        try:
            summary = json.loads(run.stdout)
            shown = json.loads(
                mixseek("runs", "show", summary["execution_id"], "-w", workspace, "-f", "json").stdout
            )
        except (ValueError, KeyError):
            summary, shown = {}, {}
    scores = {
        team["team_id"]: {r["round_number"]: r["score"] for r in team["rounds"] if r["score"] is not None}
        for team in shown.get("teams", [])
    }
    best = shown.get("best") or {}
    checks = [
        r["metrics"]["patterns"]["score"]
        for team in shown.get("teams", [])
        for r in team["rounds"]
        if "patterns" in (r.get("metrics") or {})
    ]
    return {
        "seconds": seconds,
        "exit_code": run.returncode,
        "status": summary.get("status", "?"),
        "rounds": summary.get("rounds_run", 0),
        "requests": summary.get("usage", {}).get("requests", 0),
        "load": (load_before, load_after),
        "scores": scores,
        "script_share": script_share(str(best.get("content", "")), language),
        "checks": checks,
        "error": run.stderr.strip().splitlines()[-1] if run.returncode != 0 and run.stderr.strip() else "",
    }


def sample_verdicts(model: str, language: str, runs: int) -> dict[str, Any]:
    """`runs` sample executions in `language`: how often the two teams' best scores differ, how
    often a team's round 2 scored above its round 1, and the median wall time."""
    results = [sample_execution(model, language) for _ in range(runs)]
    differing = improved = pairs = 0
    for result in results:
        bests = [max(rounds.values()) for rounds in result["scores"].values() if rounds]
        differing += len(bests) == 2 and bests[0] != bests[1]
        for rounds in result["scores"].values():
            if 1 in rounds and 2 in rounds:
                pairs += 1
                improved += rounds[2] > rounds[1]
    return {
        "language": language,
        "runs": runs,
        "failed": sum(1 for r in results if r["exit_code"] != 0),
        "different_best": differing,
        "round2_above_round1": improved,
        "round_pairs": pairs,
        "median_s": statistics.median(r["seconds"] for r in results),
        "max_s": max(r["seconds"] for r in results),
        "median_requests": statistics.median(r["requests"] for r in results),
        "winner_script_share": statistics.fmean(r["script_share"] for r in results),
        "patterns_mean": statistics.fmean(c for r in results for c in r["checks"])
        if any(r["checks"] for r in results)
        else 0.0,
        "load": [round(min(r["load"][0] for r in results), 2), round(max(r["load"][1] for r in results), 2)],
        "errors": sorted({r["error"] for r in results if r["error"]}),
    }


def raw_generation(
    model: LlamaCppModel, prompt: str, max_tokens: int, schema: dict[str, Any] | None
) -> Generation:
    """One generation straight through the engine (no pydantic-ai), end of text suppressed."""
    engine = model.engine

    def job(llama: Any, cancelled: Any) -> Generation:
        request = GenerationRequest(
            prompt=ChatPrompt(turns=[{"role": "user", "content": prompt}]),
            max_tokens=max_tokens,
            grammar_schema=schema,
            sampling={"temperature": 0.7, "logit_bias": {int(llama.token_eos()): -100.0}},
        )
        return engine.generate(llama, request, cancelled)

    return engine.run_sync(job)


def throughput(model: LlamaCppModel) -> dict[str, float]:
    prompt_run = raw_generation(model, f"{time.time()} Summarise this:\n{words(1000)}", 1, None)
    free = raw_generation(model, f"{time.time()} Write a long story about a lighthouse keeper.", 256, None)
    schema = {
        "type": "object",
        "properties": {
            "title": {"type": "string", "maxLength": 80},
            "story": {"type": "string", "maxLength": 1000},
        },
        "required": ["title", "story"],
    }
    constrained = raw_generation(
        model, f"{time.time()} Write a story as JSON with title and story.", 256, schema
    )

    def gen_rate(run: Generation) -> float:
        return (run.completion_tokens - 1) / run.generation_seconds if run.generation_seconds > 0 else 0.0

    return {
        "prompt_tokens": prompt_run.prompt_tokens,
        "prompt_tok_s": prompt_run.prompt_tokens / prompt_run.prompt_seconds,
        "gen_tokens": free.completion_tokens,
        "gen_tok_s": gen_rate(free),
        "json_gen_tokens": constrained.completion_tokens,
        "json_gen_tok_s": gen_rate(constrained),
    }


async def time_calls(
    model: LlamaCppModel, runs: int, settings: ModelSettings
) -> dict[str, list[tuple[float, int, int]]]:
    """Per role: (seconds, input tokens, output tokens) of each call."""
    samples: dict[str, list[tuple[float, int, int]]] = {}
    for run in range(runs):
        for call in round_calls(run + 2):
            started = time.perf_counter()
            response = await model.request(call.messages, settings, call.params)
            elapsed = time.perf_counter() - started
            samples.setdefault(call.role, []).append(
                (elapsed, response.usage.input_tokens, response.usage.output_tokens)
            )
    return samples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="local:smollm2", help="a local: model string")
    parser.add_argument("--runs", type=int, default=3, help="simulated rounds of calls")
    parser.add_argument("--max-tokens", type=int, default=512, help="max_tokens of every call")
    parser.add_argument(
        "--threads", type=int, default=None, help="llama.cpp threads (default: usable CPUs - 1)"
    )
    parser.add_argument("--no-prompt-cache", action="store_true", help="do not keep states of recent prompts")
    parser.add_argument("--no-sample", action="store_true", help="do not run the sample mixseek exec")
    parser.add_argument("--sample-runs", type=int, default=10, help="sample executions per language")
    parser.add_argument("--languages", default="ja,en", help="sample languages, comma-separated")
    args = parser.parse_args()

    languages = [language.strip() for language in args.languages.split(",") if language.strip()]
    samples_by_language = (
        []
        if args.no_sample
        else [sample_verdicts(args.model, language, args.sample_runs) for language in languages]
    )

    built = create_model(args.model, role="bench")
    if not isinstance(built, LlamaCppModel):
        print(f"{args.model} is not an embedded local model", file=sys.stderr)
        return 2
    close_engine(built.model_path)
    model = LlamaCppModel(
        built.model_path,
        model_name=built.model_name,
        n_threads=args.threads,
        prompt_cache_bytes=0 if args.no_prompt_cache else DEFAULT_PROMPT_CACHE_BYTES,
    )
    engine = model.engine
    started = time.perf_counter()
    engine.run_sync(lambda llama, cancelled: None)
    load_s = engine.load_seconds if engine.load_seconds is not None else time.perf_counter() - started

    rates = throughput(model)
    settings = ModelSettings(max_tokens=args.max_tokens)
    samples = asyncio.run(time_calls(model, args.runs, settings))

    cache = "off" if args.no_prompt_cache else f"{DEFAULT_PROMPT_CACHE_BYTES >> 20} MiB"
    print(
        f"model {args.model}  file {engine.path.name}  n_ctx {engine.n_ctx}  threads {engine.n_threads}  "
        f"prompt cache {cache}"
    )
    print(f"load                 {load_s:8.2f} s")
    print(f"prompt processing    {rates['prompt_tok_s']:8.1f} tok/s  ({rates['prompt_tokens']} tokens)")
    print(f"generation (text)    {rates['gen_tok_s']:8.1f} tok/s  ({rates['gen_tokens']} tokens)")
    json_rate, json_tokens = rates["json_gen_tok_s"], rates["json_gen_tokens"]
    print(f"generation (JSON)    {json_rate:8.1f} tok/s  ({json_tokens} tokens, grammar)")
    print()
    print(f"{'call':<10} {'n':>3} {'in tok':>7} {'out tok':>8} {'mean s':>8} {'max s':>7}")
    per_call: dict[str, float] = {}
    for role in ("leader", "member", "metric", "judgment"):
        rows = samples[role]
        mean_s = statistics.fmean(s for s, _, _ in rows)
        per_call[role] = mean_s
        mean_in = statistics.fmean(i for _, i, _ in rows)
        mean_out = statistics.fmean(o for _, _, o in rows)
        max_s = max(s for s, _, _ in rows)
        print(f"{role:<10} {len(rows):>3} {mean_in:>7.0f} {mean_out:>8.0f} {mean_s:>8.2f} {max_s:>7.2f}")
    round_s = 2 * per_call["leader"] + 2 * per_call["member"] + 3 * per_call["metric"] + per_call["judgment"]
    print(
        f"team round (ESTIMATE: 2 leader + 2 member + 3 metric + 1 judgment calls, one team): {round_s:.1f} s"
    )
    if samples_by_language:
        print()
        print(
            f"{'sample':<7} {'runs':>4} {'failed':>6} {'best differs':>13} {'r2 > r1':>8} "
            f"{'median s':>9} {'max s':>6} {'aim s':>6} {'script':>7} {'checks':>7}"
        )
    for verdicts in samples_by_language:
        differs = f"{verdicts['different_best']}/{verdicts['runs']}"
        above = f"{verdicts['round2_above_round1']}/{verdicts['round_pairs']}"
        print(
            f"{verdicts['language']:<7} {verdicts['runs']:>4} {verdicts['failed']:>6} "
            f"{differs:>13} {above:>8} "
            f"{verdicts['median_s']:>9.1f} {verdicts['max_s']:>6.1f} {SAMPLE_AIM_S:>6.0f} "
            f"{verdicts['winner_script_share']:>7.2f} {verdicts['patterns_mean']:>7.1f}"
        )
        for error in verdicts["errors"]:
            print(f"  error: {error}")
    if samples_by_language:
        print(
            f"(best differs: the two teams' best scores differ, aim >= {DIFFERENT_BEST_AIM:.0%} of runs; "
            "r2 > r1: a team's round 2 scored above its round 1; "
            "script: share of the winning text's letters in the sample language's script; "
            "checks: mean patterns score of every submission, 0-100)"
        )

    line = {
        "bench": "local_model",
        "model": args.model,
        "threads": engine.n_threads,
        "prompt_cache": not args.no_prompt_cache,
        "load_s": round(load_s, 3),
        "prompt_tok_s": round(rates["prompt_tok_s"], 1),
        "gen_tok_s": round(rates["gen_tok_s"], 1),
        "json_gen_tok_s": round(rates["json_gen_tok_s"], 1),
        **{f"{role}_call_s": round(seconds, 2) for role, seconds in per_call.items()},
        "team_round_s_estimate": round(round_s, 1),
        "sample_exec_aim_s": SAMPLE_AIM_S,
        "samples": samples_by_language,
        "runs": args.runs,
        "max_tokens": args.max_tokens,
    }
    print(json.dumps(line))
    return 0


if __name__ == "__main__":
    sys.exit(main())
