"""The same workload as `bench/orchestration.py` through bare pydantic-ai agents: the floor.

No mixseek code runs here but the simulated models: per round every team's
leader agent calls its M member agents through tools (one response asks them
all), then answers; E metric agents score the answer at once (structured
output); every team waits at the round barrier; the judgment agents run (not
in the last round); the next round starts. No store, no prompts, no events,
no governor, no retries.

What this run needs beyond the model latency is what pydantic-ai itself costs
on this machine in one process; mixseek's own overhead is the difference to
the orchestrated run.
"""

from __future__ import annotations

import asyncio

from _sim import SimWorld
from pydantic import BaseModel
from pydantic_ai import Agent


class Score(BaseModel):
    score: float
    comment: str


class Decision(BaseModel):
    should_continue: bool
    reasoning: str
    confidence_score: float


def _leader(world: SimWorld, members: int) -> Agent[None, str]:
    member = Agent(world.models()["sim:member"])
    leader = Agent(world.models()["sim:leader"])

    def delegate_to(index: int) -> None:
        async def delegate(task: str) -> str:
            return (await member.run(task)).output

        leader.tool_plain(name=f"delegate_to_member{index}", description=f"helper number {index}")(delegate)

    for index in range(members):
        delegate_to(index)
    return leader


async def run_bare(world: SimWorld, *, teams: int, rounds: int, members: int, metrics: int) -> None:
    """Play `rounds` lock-step rounds of `teams` teams; returns when the last round ends."""
    models = world.models()
    leaders = [_leader(world, members) for _ in range(teams)]
    scorer = Agent(models["sim:metric"], output_type=Score)
    judge = Agent(models["sim:judgment"], output_type=Decision)

    async def play(leader: Agent[None, str]) -> None:
        answer = (await leader.run("the task")).output
        await asyncio.gather(*(scorer.run(answer) for _ in range(metrics)))

    for round_number in range(1, rounds + 1):
        await asyncio.gather(*(play(leader) for leader in leaders))
        if round_number < rounds:
            await asyncio.gather(*(judge.run("the board") for _ in range(teams)))
