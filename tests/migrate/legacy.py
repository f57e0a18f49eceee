"""mixseek-core 0.1.x workspaces and databases, written here from its documented formats.

`write_init_workspace` lays out what mixseek-core's `mixseek init` creates (two orchestrator
files under configs/, three team files under configs/agents/, an evaluator under
configs/evaluators/, a judgment file under configs/judgment/, logs/ and templates/), with
texts of our own. `create_database` builds a `mixseek.db` with mixseek-core's tables and
sequences (the schema of its round controller: `score` 0-100, `score_details`,
`final_submission`, `exit_reason`, `round_status`); `create_early_database` the first
release's `leader_board` (`evaluation_score` 0-1, `evaluation_feedback`, `usage_info`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

import duckdb

SIMPLE_ORCHESTRATOR = """\
# one team, evaluator and judgment from the workspace defaults
[orchestrator]
timeout_per_team_seconds = 180
min_rounds = 1
max_rounds = 2
submission_timeout_seconds = 120
judgment_timeout_seconds = 60

[[orchestrator.teams]]
config = "configs/agents/team_general_researcher.toml"
"""

MULTI_ORCHESTRATOR = """\
[orchestrator]
timeout_per_team_seconds = 300
min_rounds = 1
max_rounds = 3
submission_timeout_seconds = 180
judgment_timeout_seconds = 60
evaluator_config = "configs/evaluators/evaluator_search_news.toml"
judgment_config = "configs/judgment/judgment_search_news.toml"

[[orchestrator.teams]]
config = "configs/agents/team_general_researcher.toml"

[[orchestrator.teams]]
config = "configs/agents/team_sns_researcher.toml"

[[orchestrator.teams]]
config = "configs/agents/team_academic_researcher.toml"
"""


def _team(team_id: str, name: str, member: str, model: str, tool: str) -> str:
    return f"""\
[team]
team_id = "{team_id}"
team_name = "{name}"
max_concurrent_members = 1

[team.leader]
system_instruction = \"\"\"
You lead the {name}. Ask your member to search, then write the final report.
\"\"\"
model = "google-gla:gemini-flash-lite-latest"
temperature = 0.7

[[team.members]]
name = "{member}"
type = "web_search"
tool_name = "{tool}"
tool_description = \"\"\"
Searches the web for news for the {name}.
\"\"\"
model = "{model}"
temperature = 0.3
max_tokens = 6144
timeout_seconds = 120

[team.members.system_instruction]
text = \"\"\"
You search the web and cite every source with its URL.
\"\"\"

[team.members.tool_settings.web_search]
max_results = 15
timeout = 60
include_raw_content = true
"""


EVALUATOR = """\
default_model = "google-gla:gemini-flash-lite-latest"

[[metrics]]
name = "Coverage"
weight = 0.30
system_instruction = "Score how broadly the answer covers the question, 0-100."

[[metrics]]
name = "Relevance"
weight = 0.25

[[metrics]]
name = "ClarityCoherence"
weight = 0.20

[[metrics]]
name = "LLMPlain"
weight = 0.25
system_instruction = "Score how novel the findings are, 0-100."
"""

JUDGMENT = """\
model = "google-gla:gemini-flash-lite-latest"
temperature = 0.0
max_retries = 3
timeout_seconds = 60
judge_on_final_round = true
system_instruction = "Decide whether another round would improve the news report."
"""


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def write_init_workspace(root: Path) -> Path:
    """The files and directories mixseek-core's `mixseek init -w ROOT` creates."""
    write(root, "configs/search_news.toml", SIMPLE_ORCHESTRATOR)
    write(root, "configs/search_news_multi_perspective.toml", MULTI_ORCHESTRATOR)
    write(
        root,
        "configs/agents/team_general_researcher.toml",
        _team(
            "general-researcher-team",
            "General Research Team",
            "general-searcher",
            "google-gla:gemini-flash-lite-latest",
            "search_general_news",
        ),
    )
    write(
        root,
        "configs/agents/team_sns_researcher.toml",
        _team(
            "sns-researcher-team",
            "SNS Research Team",
            "sns-searcher",
            "grok-responses:grok-4-1-fast",
            "search_sns_trends",
        ),
    )
    write(
        root,
        "configs/agents/team_academic_researcher.toml",
        _team(
            "academic-researcher-team",
            "Academic Research Team",
            "academic-searcher",
            "google-gla:gemini-flash-lite-latest",
            "search_papers",
        ),
    )
    write(root, "configs/evaluators/evaluator_search_news.toml", EVALUATOR)
    write(root, "configs/judgment/judgment_search_news.toml", JUDGMENT)
    (root / "logs").mkdir(parents=True, exist_ok=True)
    (root / "templates").mkdir(parents=True, exist_ok=True)
    return root


# -- databases ----------------------------------------------------------------------------------

_SEQUENCES = (
    "round_history_id_seq",
    "leader_board_id_seq",
    "execution_summary_id_seq",
    "round_status_id_seq",
)

_ROUND_HISTORY = """
CREATE TABLE IF NOT EXISTS round_history (
    id INTEGER PRIMARY KEY DEFAULT nextval('round_history_id_seq'),
    execution_id TEXT NOT NULL, team_id TEXT NOT NULL, team_name TEXT NOT NULL,
    round_number INTEGER NOT NULL, message_history JSON, member_submissions_record JSON,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    UNIQUE (execution_id, team_id, round_number))
"""
_LEADER_BOARD = """
CREATE TABLE IF NOT EXISTS leader_board (
    id INTEGER PRIMARY KEY DEFAULT nextval('leader_board_id_seq'),
    execution_id VARCHAR NOT NULL, team_id VARCHAR NOT NULL, team_name VARCHAR NOT NULL,
    round_number INTEGER NOT NULL, submission_content TEXT NOT NULL,
    submission_format VARCHAR NOT NULL DEFAULT 'md', score FLOAT NOT NULL, score_details JSON NOT NULL,
    final_submission BOOLEAN NOT NULL DEFAULT FALSE, exit_reason VARCHAR NULL,
    created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    UNIQUE (execution_id, team_id, round_number))
"""
_EARLY_LEADER_BOARD = """
CREATE TABLE IF NOT EXISTS leader_board (
    id INTEGER PRIMARY KEY DEFAULT nextval('leader_board_id_seq'),
    execution_id TEXT NOT NULL, team_id TEXT NOT NULL, team_name TEXT NOT NULL, round_number INTEGER NOT NULL,
    evaluation_score DOUBLE NOT NULL CHECK (evaluation_score >= 0.0 AND evaluation_score <= 1.0),
    evaluation_feedback TEXT, submission_content TEXT NOT NULL,
    submission_format TEXT DEFAULT 'structured_json',
    usage_info JSON, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP)
"""
_ROUND_STATUS = """
CREATE TABLE IF NOT EXISTS round_status (
    id INTEGER PRIMARY KEY DEFAULT nextval('round_status_id_seq'),
    execution_id VARCHAR NOT NULL, team_id VARCHAR NOT NULL, team_name VARCHAR NOT NULL,
    round_number INTEGER NOT NULL, should_continue BOOLEAN NULL, reasoning TEXT NULL,
    confidence_score FLOAT NULL, round_started_at TIMESTAMP NULL, round_ended_at TIMESTAMP NULL,
    created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    UNIQUE (execution_id, team_id, round_number))
"""
_EXECUTION_SUMMARY = """
CREATE TABLE IF NOT EXISTS execution_summary (
    execution_id TEXT PRIMARY KEY, user_prompt TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('completed', 'partial_failure', 'failed')),
    team_results JSON NOT NULL, total_teams INTEGER NOT NULL, best_team_id TEXT, best_score DOUBLE,
    total_execution_time_seconds DOUBLE NOT NULL,
    completed_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP)
"""


@dataclass
class LegacyRound:
    team_id: str
    team_name: str
    number: int
    score: float
    content: str
    metrics: dict[str, tuple[float, str]] = field(default_factory=dict)
    should_continue: bool | None = None
    reasoning: str | None = None
    confidence: float | None = None
    final: bool = False
    exit_reason: str | None = None
    leader_tokens: tuple[int, int] = (0, 0)  # input, output: one model response
    member_tokens: dict[str, tuple[int, int]] = field(default_factory=dict)


@dataclass
class LegacyExecution:
    execution_id: str
    prompt: str
    status: str
    completed_at: datetime
    seconds: float
    rounds: list[LegacyRound] = field(default_factory=list)


def _messages(r: LegacyRound) -> str:
    return json.dumps(
        [
            {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "task"}]},
            {
                "kind": "response",
                "parts": [{"part_kind": "text", "content": r.content}],
                "usage": {"input_tokens": r.leader_tokens[0], "output_tokens": r.leader_tokens[1]},
                "model_name": "gemini-flash-lite-latest",
            },
        ]
    )


def _member_record(eid: str, r: LegacyRound) -> str:
    submissions = [
        {
            "agent_name": name,
            "agent_type": "web_search",
            "content": f"{name} found three articles",
            "status": "SUCCESS",
            "error_message": None,
            "usage": {"input_tokens": tin, "output_tokens": tout, "requests": 1, "details": {}},
            "timestamp": "2025-11-05T10:00:15Z",
            "execution_time_ms": 2500.0,
            "all_messages": None,
        }
        for name, (tin, tout) in r.member_tokens.items()
    ]
    return json.dumps(
        {
            "execution_id": eid,
            "team_id": r.team_id,
            "team_name": r.team_name,
            "round_number": r.number,
            "submissions": submissions,
            "successful_submissions": submissions,
            "failed_submissions": [],
            "total_count": len(submissions),
        }
    )


def _details(r: LegacyRound) -> str:
    return json.dumps(
        {
            "overall_score": r.score,
            "metrics": [
                {"metric_name": name, "score": score, "evaluator_comment": comment}
                for name, (score, comment) in r.metrics.items()
            ],
        }
    )


def create_database(path: Path, executions: list[LegacyExecution], *, round_status: bool = True) -> Path:
    """A mixseek.db as mixseek-core's store writes it (sequences, DEFAULT nextval(...) keys)."""
    conn = duckdb.connect(str(path))
    try:
        for sequence in _SEQUENCES:
            conn.execute(f"CREATE SEQUENCE IF NOT EXISTS {sequence}")
        for ddl in (
            _ROUND_HISTORY,
            _LEADER_BOARD,
            _EXECUTION_SUMMARY,
            *((_ROUND_STATUS,) if round_status else ()),
        ):
            conn.execute(ddl)
        for e in executions:
            for r in e.rounds:
                ended = e.completed_at - timedelta(seconds=e.seconds) + timedelta(seconds=30 * r.number)
                conn.execute(
                    "INSERT INTO round_history (execution_id, team_id, team_name, round_number, "
                    "message_history, "
                    "member_submissions_record, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [
                        e.execution_id,
                        r.team_id,
                        r.team_name,
                        r.number,
                        _messages(r),
                        _member_record(e.execution_id, r),
                        ended - timedelta(seconds=10),
                    ],
                )
                conn.execute(
                    "INSERT INTO leader_board (execution_id, team_id, team_name, round_number, "
                    "submission_content, "
                    "submission_format, score, score_details, final_submission, exit_reason, created_at, "
                    "updated_at) "
                    "VALUES (?, ?, ?, ?, ?, 'md', ?, ?, ?, ?, ?, ?)",
                    [
                        e.execution_id,
                        r.team_id,
                        r.team_name,
                        r.number,
                        r.content,
                        r.score,
                        _details(r),
                        r.final,
                        r.exit_reason,
                        ended,
                        ended,
                    ],
                )
                if round_status:
                    conn.execute(
                        "INSERT INTO round_status (execution_id, team_id, team_name, round_number, "
                        "should_continue, "
                        "reasoning, confidence_score, round_started_at, round_ended_at) VALUES (?, ?, ?, "
                        "?, ?, ?, ?, ?, ?)",
                        [
                            e.execution_id,
                            r.team_id,
                            r.team_name,
                            r.number,
                            r.should_continue,
                            r.reasoning,
                            r.confidence,
                            ended - timedelta(seconds=25),
                            ended,
                        ],
                    )
            teams = sorted({r.team_id for r in e.rounds})
            best = max(e.rounds, key=lambda r: r.score, default=None)
            conn.execute(
                "INSERT INTO execution_summary (execution_id, user_prompt, status, team_results, "
                "total_teams, "
                "best_team_id, best_score, total_execution_time_seconds, completed_at, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    e.execution_id,
                    e.prompt,
                    e.status,
                    json.dumps([]),
                    len(teams) or 1,
                    best.team_id if best else None,
                    best.score if best else None,
                    e.seconds,
                    e.completed_at,
                    e.completed_at,
                ],
            )
    finally:
        conn.close()
    return path


def create_early_database(path: Path) -> Path:
    """The first release's store: scores 0-1 with feedback and the leader's usage on the board."""
    conn = duckdb.connect(str(path))
    try:
        for sequence in _SEQUENCES[:3]:
            conn.execute(f"CREATE SEQUENCE IF NOT EXISTS {sequence}")
        for ddl in (_ROUND_HISTORY, _EARLY_LEADER_BOARD, _EXECUTION_SUMMARY):
            conn.execute(ddl)
        conn.execute(
            "INSERT INTO leader_board (execution_id, team_id, team_name, round_number, evaluation_score, "
            "evaluation_feedback, submission_content, usage_info, created_at) VALUES "
            "('early-1', 'team-001', 'Alpha Team', 1, 0.85, 'Relevance (0.90): on topic', 'Alpha answer', "
            '\'{"input_tokens": 450, "output_tokens": 900, "requests": 3}\', TIMESTAMP \'2025-11-05 '
            "10:05:00')"
        )
        conn.execute(
            "INSERT INTO execution_summary (execution_id, user_prompt, status, team_results, total_teams, "
            "best_team_id, best_score, total_execution_time_seconds, completed_at, created_at) VALUES "
            "('early-1', 'Summarise the news', 'completed', '[]', 1, 'team-001', 0.85, 5.2, "
            "TIMESTAMP '2025-11-05 10:05:00', TIMESTAMP '2025-11-05 10:05:00')"
        )
    finally:
        conn.close()
    return path


def init_history() -> list[LegacyExecution]:
    """Two executions of the init workspace's multi-perspective orchestrator, and one that failed."""
    general, sns = (
        ("general-researcher-team", "General Research Team"),
        ("sns-researcher-team", "SNS Research Team"),
    )
    first = LegacyExecution(
        "6f1c2a9e-0000-4000-8000-000000000001",
        "Summarise this week's AI news",
        "completed",
        datetime(2025, 11, 20, 9, 30, 0),
        95.0,
        [
            LegacyRound(
                *general,
                1,
                71.5,
                "General report v1",
                {"Coverage": (70.0, "misses Asia"), "Relevance": (73.0, "on topic")},
                should_continue=True,
                reasoning="Below minimum rounds (1 < 2)",
                confidence=1.0,
                leader_tokens=(1200, 300),
                member_tokens={"general-searcher": (800, 400)},
            ),
            LegacyRound(
                *general,
                2,
                84.25,
                "General report v2",
                {"Coverage": (85.0, "broad"), "Relevance": (83.5, "focused")},
                should_continue=False,
                reasoning="Scores have levelled off",
                confidence=0.8,
                final=True,
                exit_reason="no_improvement_expected",
                leader_tokens=(1500, 350),
                member_tokens={"general-searcher": (900, 450)},
            ),
            LegacyRound(
                *sns,
                1,
                64.0,
                "SNS report v1",
                {"Coverage": (60.0, "thin"), "Relevance": (68.0, "ok")},
                should_continue=True,
                reasoning="Below minimum rounds (1 < 2)",
                confidence=1.0,
                final=True,
                leader_tokens=(1000, 250),
            ),
            LegacyRound(
                *sns,
                2,
                58.0,
                "SNS report v2",
                {"Coverage": (55.0, "thinner"), "Relevance": (61.0, "drifts")},
                should_continue=False,
                reasoning="Final round reached",
                confidence=0.9,
                exit_reason="max_rounds_reached",
                leader_tokens=(1100, 260),
            ),
        ],
    )
    second = LegacyExecution(
        "6f1c2a9e-0000-4000-8000-000000000002",
        "Which chips were announced today?",
        "failed",
        datetime(2025, 11, 21, 8, 0, 0),
        12.5,
    )
    return [first, second]
