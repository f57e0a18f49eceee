"""Benchmark: what asking the execution's governor service costs per model request.

With the Temporal engine every model request of a worker asks the `mixseek exec` process's
governor service first (admit: budget, rate-limit slot, budget again) and reports its usage
after (done): one WebSocket round trip plus one more message. This times N such admissions
over loopback, the service in a child process (as `mixseek exec` is), and reports:

- wall time per admission, with C requests asking at once (C = 1 is the latency a request waits);
- CPU per admission in the worker (this process) and in the service (the child), measured by
  the processes' own CPU clocks — the cost the remote admission adds to each request;
- the same admissions from the worker's own governor (`Governor.local_admission`), the local
  engine's path, for comparison.

Prints a table, then one JSON line:

    {"bench": "governor_service", "admissions": N, "results": [{"concurrency": C,
     "remote_wall_us": ..., "worker_cpu_us": ..., "service_cpu_us": ..., "local_cpu_us": ...}, ...]}

Run: python bench/governor_service.py [--admissions 5000] [--concurrency 1 8 64]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import time
from multiprocessing.connection import Connection

import psutil
from pydantic_ai import RunUsage

from mixseek.llm.governor import Budget, Governor, ModelLimit
from mixseek.orchestrator.temporal.governor_client import GovernorClient
from mixseek.orchestrator.temporal.governor_service import GovernorService
from mixseek.orchestrator.temporal.messages import GovernorAccess

MODEL = "openai:gpt-bench"


def _governor() -> Governor:
    # a budget to check (never reached) and a slot limit that never makes a request wait
    return Governor(Budget(max_requests=10**12, max_total_tokens=10**15), ModelLimit(1024, None))


def _serve(pipe: Connection) -> None:
    async def main() -> None:
        async with GovernorService(_governor()) as service:
            pipe.send(service.access.model_dump())
            await asyncio.get_running_loop().run_in_executor(None, pipe.recv)  # until told to stop

    asyncio.run(main())


async def _admit(governor: Governor, n: int, concurrency: int) -> None:
    left = n

    async def one_by_one() -> None:
        nonlocal left
        while left > 0:
            left -= 1
            async with governor.admission(MODEL) as ticket:
                ticket.spent = RunUsage(requests=1, input_tokens=100, output_tokens=20)

    await asyncio.gather(*(one_by_one() for _ in range(concurrency)))


async def _measure(
    governor: Governor, n: int, concurrency: int, service: psutil.Process | None = None
) -> tuple[float, float, float]:
    """(wall s, this process's CPU s, the service's CPU s) for n admissions, C at once."""
    await _admit(governor, min(200, n), concurrency)  # connect and warm up, not timed
    served = service.cpu_times() if service is not None else None
    cpu, wall = time.process_time(), time.perf_counter()
    await _admit(governor, n, concurrency)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if service is None or served is None:
        return wall, cpu, 0.0
    after = service.cpu_times()
    return wall, cpu, (after.user + after.system) - (served.user + served.system)


async def _remote(
    access: GovernorAccess, n: int, concurrency: int, service: psutil.Process
) -> tuple[float, float, float]:
    worker = _governor()
    client = GovernorClient(access)
    worker.authority = client
    try:
        return await _measure(worker, n, concurrency, service)
    finally:
        await client.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--admissions", type=int, default=5000)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 64])
    args = parser.parse_args()
    n: int = args.admissions

    ours, theirs = multiprocessing.Pipe()
    child = multiprocessing.get_context("spawn").Process(target=_serve, args=(theirs,), daemon=True)
    child.start()
    access = GovernorAccess.model_validate(ours.recv())
    service = psutil.Process(child.pid)
    results: list[dict[str, float | int]] = []
    try:
        for concurrency in args.concurrency:
            wall, cpu, served = asyncio.run(_remote(access, n, concurrency, service))
            local_wall, local_cpu, _ = asyncio.run(_measure(_governor(), n, concurrency))
            results.append(
                {
                    "concurrency": concurrency,
                    "remote_wall_us": round(wall / n * 1e6, 1),
                    "worker_cpu_us": round(cpu / n * 1e6, 1),
                    "service_cpu_us": round(served / n * 1e6, 1),
                    "local_wall_us": round(local_wall / n * 1e6, 1),
                    "local_cpu_us": round(local_cpu / n * 1e6, 1),
                }
            )
    finally:
        ours.send("stop")
        child.join(10)
        if child.is_alive():
            child.kill()

    header = f"{'C':>4} {'remote wall/adm':>16} {'worker CPU':>11} {'service CPU':>12} {'local CPU':>10}"
    print(f"{n} admissions each, service in a child process over loopback (µs per admission)")
    print(header)
    for r in results:
        print(
            f"{r['concurrency']:>4} {r['remote_wall_us']:>16} {r['worker_cpu_us']:>11} "
            f"{r['service_cpu_us']:>12} {r['local_cpu_us']:>10}"
        )
    print(json.dumps({"bench": "governor_service", "admissions": n, "results": results}))


if __name__ == "__main__":
    main()
