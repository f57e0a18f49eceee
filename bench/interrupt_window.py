"""Benchmark: how long a starting `mixseek` process goes without its Ctrl-C guard.

Until `cli.entry` installs `cli.loading_guard`, a Ctrl-C is the interpreter's own: a
`KeyboardInterrupt` traceback (or, in the first instants of start-up, death by the signal). This
times that window as the installed `mixseek` script meets it (`from mixseek.cli.entry import
main`), N runs each, as real processes:

- `interpreter start-up`: from just before the process is spawned to the first statement of
  `python -c` (the CLOCK_MONOTONIC the child reads there, less the one read before spawning);
- `start → guard`: the same to the moment the guard's module has been imported, which is what
  `cli.entry` does first (`install()` follows at once) — with the packages' `__init__` before it;
- `mixseek's share`: the difference of the two medians, the part mixseek can shrink;
- `mixseek's share (importtime)`: the same from `python -X importtime`, without the noise of
  spawning: the self time of every module imported before the guard that `python -c pass` does
  not import.

`--baseline SRC` measures another copy of mixseek's source side by side (SRC is its `src`
directory, put first on PYTHONPATH), run for run alternately; a tree without `cli.loading_guard`
is taken to install its guard once `cli.entry` is imported (where `main()` then installed it).

Prints a table, then one JSON line:

    {"bench": "interrupt_window", "runs": N, "results": {"startup_ms": {...}, "guard_ms": {...},
     "share_ms": ..., "share_importtime_ms": {...}}, "baseline": {...}}

Run: python bench/interrupt_window.py [--runs 21] [--baseline /path/to/other/src]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

_STAMP = "import time; print(time.monotonic_ns())"


@dataclass
class Tree:
    """A mixseek source tree to measure, and where its guard is in force."""

    label: str
    env: dict[str, str] | None
    guard_module: str
    startup_ms: list[float] = field(default_factory=list)
    guard_ms: list[float] = field(default_factory=list)
    share_importtime_ms: list[float] = field(default_factory=list)


def _tree(label: str, src: Path | None) -> Tree:
    import mixseek

    root = src if src is not None else Path(mixseek.__file__).parents[1]
    env = None
    if src is not None:
        path = [str(src.resolve()), *filter(None, [os.environ.get("PYTHONPATH")])]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    has_guard = (root / "mixseek" / "cli" / "loading_guard.py").is_file()
    compileall.compile_dir(str(root / "mixseek"), quiet=1)  # as an installed package has them
    return Tree(label, env, "mixseek.cli.loading_guard" if has_guard else "mixseek.cli.entry")


def _ms_to_first_statement(code: str, env: dict[str, str] | None) -> float:
    """Milliseconds from just before spawning `python -c CODE` to the stamp its code prints last."""
    started = time.monotonic_ns()
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise SystemExit(f"python -c {code!r} exited {done.returncode}:\n{done.stderr}")
    return (int(done.stdout.split()[-1]) - started) / 1e6


def _imports(code: str, env: dict[str, str] | None) -> list[tuple[str, int]]:
    """(module, self µs) of each import of `python -X importtime -c CODE`, in the order they end."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True, env=env, check=True
    )
    out = []
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and not line.rstrip().endswith("imported package"):
            own, _, name = line.removeprefix("import time:").split("|")
            out.append((name.strip(), int(own)))
    return out


def _share_importtime_ms(tree: Tree) -> float:
    start_up = {name for name, _ in _imports("pass", tree.env)}
    imported = _imports(f"import {tree.guard_module}", tree.env)
    names = [name for name, _ in imported]
    before = imported[: names.index(tree.guard_module) + 1]
    return sum(us for name, us in before if name not in start_up) / 1000


def _measure(tree: Tree) -> None:
    tree.startup_ms.append(_ms_to_first_statement(_STAMP, tree.env))
    tree.guard_ms.append(_ms_to_first_statement(f"import {tree.guard_module}; {_STAMP}", tree.env))
    tree.share_importtime_ms.append(_share_importtime_ms(tree))


def _stats(samples: list[float]) -> dict[str, float]:
    return {
        "median": round(statistics.median(samples), 2),
        "min": round(min(samples), 2),
        "max": round(max(samples), 2),
    }


def _results(tree: Tree) -> dict[str, object]:
    return {
        "guard_module": tree.guard_module,
        "startup_ms": _stats(tree.startup_ms),
        "guard_ms": _stats(tree.guard_ms),
        "share_ms": round(statistics.median(tree.guard_ms) - statistics.median(tree.startup_ms), 2),
        "share_importtime_ms": _stats(tree.share_importtime_ms),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=21, help="runs of each measure (medians are reported)")
    parser.add_argument("--baseline", type=Path, default=None, help="another mixseek `src` directory")
    args = parser.parse_args(argv)
    trees = [_tree("this tree", None)]
    if args.baseline is not None:
        if not (args.baseline / "mixseek" / "__init__.py").is_file():
            raise SystemExit(f"--baseline: {args.baseline}: no mixseek package there")
        trees.append(_tree("baseline", args.baseline))
    for _ in range(args.runs):
        for tree in trees:
            _measure(tree)
    results = [_results(tree) for tree in trees]
    print(f"{'ms (median, min-max)':<34}" + "".join(f"{tree.label:>24}" for tree in trees))
    rows = {
        "interpreter start-up": "startup_ms",
        "start → guard": "guard_ms",
        "mixseek's share (importtime)": "share_importtime_ms",
    }
    for title, key in rows.items():
        cells = []
        for result in results:
            s = result[key]
            assert isinstance(s, dict)
            cells.append(f"{s['median']:.2f} ({s['min']:.2f}-{s['max']:.2f})")
        print(f"{title:<34}" + "".join(f"{cell:>24}" for cell in cells))
    share = "mixseek's share (difference)"
    print(f"{share:<34}" + "".join(f"{r['share_ms']:>24.2f}" for r in results))
    print(f"{'guard in force from':<34}" + "".join(f"{tree.guard_module:>24}" for tree in trees))
    report: dict[str, object] = {"bench": "interrupt_window", "runs": args.runs, "results": results[0]}
    if args.baseline is not None:
        report["baseline"] = {"src": str(args.baseline), "results": results[1]}
    print(json.dumps(report))


if __name__ == "__main__":
    main()
