"""`run_scripted.py` (the CLI in a process of its own, scripted models) with a pairwise judge too:
`script:pairwise` prefers the teams in the order PAIRWISE_ORDER gives (comma-separated)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1] / "e2e"))
sys.path.insert(0, str(Path(__file__).parents[1]))

import run_scripted
from pairwise_script import ScriptedJudge, prefers

from mixseek.llm import override_models

if __name__ == "__main__":
    order = os.environ.get("PAIRWISE_ORDER", "alpha,beta,gamma").split(",")
    with override_models({"script:pairwise": ScriptedJudge(prefers(order)).model()}):
        run_scripted.main()
