"""The config layer imports no agent code: no import circle runs through member settings, and loading a
workspace imports no member class until a plugin type is named."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import mixseek
from e2e.scripted import write_workspace

SRC = Path(mixseek.__file__).parent
# what the config layer may import: itself and the ground below it
CONFIG_MAY_IMPORT = ("mixseek.config", "mixseek.errors", "mixseek.llm", "mixseek.plugin", "mixseek.redaction")


def _import_graph() -> dict[str, set[str]]:
    """Module -> the mixseek modules it imports anywhere in its body (function-level imports too)."""
    modules = {}
    for path in SRC.rglob("*.py"):
        name = ".".join(("mixseek", *path.relative_to(SRC).with_suffix("").parts)).removesuffix(".__init__")
        modules[name] = path
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
            else:
                continue
            graph[name] |= {t for t in targets if t in modules and t != name}
    return graph


def _reaches(graph: dict[str, set[str]], start: str, goal: str) -> bool:
    seen, todo = set(), [start]
    while todo:
        for nxt in graph[todo.pop()] - seen:
            if nxt == goal:
                return True
            seen.add(nxt)
            todo.append(nxt)
    return False


def test_no_import_circle_through_team_or_member_settings() -> None:
    graph = _import_graph()
    assert "mixseek.agents.member.registry" in graph["mixseek.agents.leader.agent"]  # the graph is real
    area = [m for m in graph if m.startswith(("mixseek.config", "mixseek.agents"))]
    assert [m for m in area if _reaches(graph, m, m)] == []


def test_config_layer_imports_only_config_and_ground() -> None:
    graph = _import_graph()
    upward = {
        module: sorted(
            t
            for t in targets
            if not t.startswith(CONFIG_MAY_IMPORT)
            # the prompt templates are the subject of another change (issue 10, item 3)
            and not (module == "mixseek.config.bundle" and t.startswith("mixseek.prompt_builder"))
        )
        for module, targets in graph.items()
        if module.startswith("mixseek.config")
    }
    assert {m: t for m, t in upward.items() if t} == {}


def test_seed_import_paths_still_export_the_models() -> None:
    from mixseek.agents.leader import config as leader_config
    from mixseek.agents.member import options as member_options
    from mixseek.config import member_options as config_member_options
    from mixseek.config import team_models

    for name in ("TeamConfig", "LeaderAgentConfig", "MemberAgentConfig"):
        assert getattr(leader_config, name) is getattr(team_models, name)
    for name in ("WebFetchOptions", "CodeExecOptions", "WebSearchOptions"):
        assert getattr(member_options, name) is getattr(config_member_options, name)


def test_loading_a_workspace_imports_no_member_class(tmp_path: Path) -> None:
    ws = write_workspace(tmp_path / "ws")
    script = (
        "import sys\n"
        "from mixseek.config.bundle import load_execution_config\n"
        "from mixseek.config.workspace import resolve_workspace\n"
        f"config = load_execution_config(resolve_workspace({str(ws)!r}))\n"
        "assert [m.agent_type for e in config.teams for m in e.config.members] == ['plain', 'plain']\n"
        "print(sorted(m for m in sys.modules if m.startswith('mixseek.agents.member')))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
