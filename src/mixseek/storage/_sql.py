"""SQL text used by `AggregationStore` (kept apart so the store module reads as behaviour)."""

from __future__ import annotations

KEY = "execution_id = ? AND team_id = ? AND round_number = ?"

ROUND_TABLES = ("round_history", "leader_board", "round_status")

DELETE_ROUND = tuple(f"DELETE FROM {table} WHERE {KEY}" for table in ROUND_TABLES)

INSERT_ROUND_HISTORY = """
INSERT INTO round_history
    (execution_id, team_id, team_name, round_number, message_history, member_submissions_record)
VALUES (?, ?, ?, ?, ?, ?)
"""

INSERT_LEADER_BOARD = """
INSERT INTO leader_board
    (execution_id, team_id, team_name, round_number, evaluation_score, evaluation_feedback,
     score_details, submission_content, submission_format, usage_info)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
"""

INSERT_ROUND_STATUS = """
INSERT INTO round_status
    (execution_id, team_id, round_number, status, started_at, ended_at,
     should_continue, judgment_reasoning, judgment_confidence, exit_reason, error_message)
VALUES (?, ?, ?, 'completed', ?, ?, ?, ?, ?, ?, NULL)
"""

UPSERT_ROUND_STATUS = """
INSERT INTO round_status (execution_id, team_id, round_number, status, started_at, ended_at, error_message)
VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (execution_id, team_id, round_number) DO UPDATE SET
    status = excluded.status,
    started_at = coalesce(excluded.started_at, round_status.started_at),
    ended_at = excluded.ended_at,
    error_message = excluded.error_message
"""

UPDATE_JUDGMENT = f"""
UPDATE round_status
SET should_continue = ?, judgment_reasoning = ?, judgment_confidence = ?, exit_reason = ?
WHERE {KEY}
RETURNING round_number
"""


_STANDINGS_COLUMNS = "execution_id, team_id, team_name, max_score, best_round, total_rounds, last_round"


def _team_aggregate(where: str) -> str:
    """Per team: name (from its latest round), best score, the latest round that reached
    it (the ranking's tie break), rounds on the board, and the latest round on the board."""
    return f"""
    WITH board AS (
        SELECT execution_id, team_id, team_name, round_number, evaluation_score
        FROM leader_board WHERE {where}
    ),
    best AS (
        SELECT execution_id, team_id, max(evaluation_score) AS max_score FROM board GROUP BY ALL
    )
    SELECT board.execution_id, board.team_id,
           arg_max(board.team_name, board.round_number) AS team_name,
           best.max_score,
           max(board.round_number) FILTER (WHERE board.evaluation_score = best.max_score) AS best_round,
           count(*) AS total_rounds,
           max(board.round_number) AS last_round
    FROM board JOIN best USING (execution_id, team_id)
    GROUP BY board.execution_id, board.team_id, best.max_score
    """


# Rewrites one team's standings row from its leader_board rows; each statement takes
# (execution_id, team_id). A team with no rounds on the board ends with no row.
REFRESH_STANDINGS = (
    "DELETE FROM team_standings WHERE execution_id = ? AND team_id = ?",
    f"INSERT INTO team_standings ({_STANDINGS_COLUMNS}) "
    + _team_aggregate("execution_id = ? AND team_id = ?"),
)

# Recomputes every team's standings (after bulk loads).
REBUILD_ALL_STANDINGS = (
    "DELETE FROM team_standings",
    f"INSERT INTO team_standings ({_STANDINGS_COLUMNS}) " + _team_aggregate("TRUE"),
)

_RANKING_ORDER = "ORDER BY max_score DESC, best_round DESC, team_id ASC"

RANKING = f"""
SELECT team_id, team_name, max_score, total_rounds, last_round FROM team_standings
WHERE execution_id = ? {_RANKING_ORDER}
"""

RANKING_UP_TO_ROUND = f"""
SELECT team_id, team_name, max_score, total_rounds, last_round
FROM ({_team_aggregate("execution_id = ? AND round_number <= ?")})
{_RANKING_ORDER}
"""

LEADER_BOARD_COLUMNS = (
    "id, execution_id, team_id, team_name, round_number, evaluation_score, evaluation_feedback, "
    "score_details, submission_content, submission_format, usage_info, is_final, created_at"
)

SUBMISSION_HISTORY = """
SELECT lb.round_number, lb.submission_content, lb.evaluation_score, lb.score_details, lb.evaluation_feedback,
       coalesce(rs.started_at, lb.created_at), coalesce(rs.ended_at, lb.created_at)
FROM leader_board lb
LEFT JOIN round_status rs USING (execution_id, team_id, round_number)
WHERE lb.execution_id = ? AND lb.team_id = ? AND lb.round_number < ?
ORDER BY lb.round_number
"""

ALL_SUBMISSION_HISTORIES = """
SELECT lb.team_id, lb.round_number, lb.submission_content, lb.evaluation_score, lb.score_details,
       lb.evaluation_feedback, coalesce(rs.started_at, lb.created_at), coalesce(rs.ended_at, lb.created_at)
FROM leader_board lb
LEFT JOIN round_status rs USING (execution_id, team_id, round_number)
WHERE lb.execution_id = ? AND lb.round_number < ?
ORDER BY lb.team_id, lb.round_number
"""

EXECUTION_COLUMNS = "execution_id, user_prompt, status, config, started_at, ended_at, summary"

ROUND_STATUS_COLUMNS = (
    "execution_id, team_id, round_number, status, started_at, ended_at, should_continue, "
    "judgment_reasoning, judgment_confidence, exit_reason, error_message"
)


INSERT_MODEL_CALL = """
INSERT INTO model_calls
    (execution_id, team_id, round_number, site, model,
     requests, input_tokens, output_tokens, cost, created_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
"""


def usage_query(
    group_by: str, execution_id: str, team_id: str | None, round_number: int | None
) -> tuple[str, list[object]]:
    """Summed usage of one execution, optionally of one team or team round, optionally per column."""
    where = ["execution_id = ?"]
    params: list[object] = [execution_id]
    if team_id is not None:
        where.append("team_id = ?")
        params.append(team_id)
    if round_number is not None:
        where.append("round_number = ?")
        params.append(round_number)
    select = f"{group_by}, " if group_by else ""
    query = (
        f"SELECT {select}sum(requests) AS requests, sum(input_tokens) AS input_tokens, "
        f"sum(output_tokens) AS output_tokens, sum(cost) AS cost FROM model_calls "
        f"WHERE {' AND '.join(where)}"
    )
    if group_by:
        query += f" GROUP BY {group_by} ORDER BY {group_by}"
    return query, params
