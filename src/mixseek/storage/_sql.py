"""SQL text used by `AggregationStore` (kept apart so the store module reads as behaviour)."""

from __future__ import annotations

KEY = "execution_id = ? AND team_id = ? AND round_number = ?"


def values(rows: int, width: int, row: str | None = None) -> str:
    """`(?, ?), (?, ?)`: the VALUES list of a multi-row statement (`row` overrides one row's text)."""
    one = row if row is not None else "(" + ", ".join(["?"] * width) + ")"
    return ", ".join([one] * rows)


def delete_rounds(table: str, rows: int) -> str:
    """Delete the rows of `rows` rounds; takes (execution_id, team_id, round_number) per round."""
    return (
        f"DELETE FROM {table} USING (VALUES {values(rows, 3)}) AS k(execution_id, team_id, round_number) "
        f"WHERE {table}.execution_id = k.execution_id AND {table}.team_id = k.team_id "
        f"AND {table}.round_number = k.round_number"
    )


ROUND_HISTORY_INSERT_COLUMNS = (
    "execution_id, team_id, team_name, round_number, message_history, member_submissions_record"
)
LEADER_BOARD_INSERT_COLUMNS = (
    "execution_id, team_id, team_name, round_number, evaluation_score, evaluation_feedback, "
    "score_details, submission_content, submission_format, usage_info"
)
ROUND_STATUS_INSERT_COLUMNS = (
    "execution_id, team_id, round_number, status, started_at, ended_at, "
    "should_continue, judgment_reasoning, judgment_confidence, exit_reason, error_message"
)


def insert(table: str, columns: str, rows: int) -> str:
    return f"INSERT INTO {table} ({columns}) VALUES {values(rows, columns.count(',') + 1)}"


def upsert_round_status(rows: int) -> str:
    """Start or fail rounds, one row each; a missing start time keeps the stored one."""
    return f"""
INSERT INTO round_status (execution_id, team_id, round_number, status, started_at, ended_at, error_message)
VALUES {values(rows, 7)}
ON CONFLICT (execution_id, team_id, round_number) DO UPDATE SET
    status = excluded.status,
    started_at = coalesce(excluded.started_at, round_status.started_at),
    ended_at = excluded.ended_at,
    error_message = excluded.error_message
"""


_JUDGMENT_ROW = "(?, ?, ?, CAST(? AS BOOLEAN), CAST(? AS TEXT), CAST(? AS DOUBLE), CAST(? AS TEXT))"


def update_judgments(rows: int) -> str:
    """Store decisions, one row each; returns the key of every round it found."""
    return f"""
UPDATE round_status
SET should_continue = v.should_continue, judgment_reasoning = v.reasoning,
    judgment_confidence = v.confidence, exit_reason = v.exit_reason
FROM (VALUES {values(rows, 7, _JUDGMENT_ROW)})
    AS v(execution_id, team_id, round_number, should_continue, reasoning, confidence, exit_reason)
WHERE round_status.execution_id = v.execution_id AND round_status.team_id = v.team_id
    AND round_status.round_number = v.round_number
RETURNING round_status.execution_id, round_status.team_id, round_status.round_number
"""


_STANDINGS_COLUMNS = "execution_id, team_id, team_name, max_score, best_round, total_rounds, last_round"


def _team_aggregate(where: str) -> str:
    """Per team: latest name, best score, latest round reaching it, rounds and last round on the board."""
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


def refresh_standings(teams: int) -> tuple[str, str]:
    """Rewrite `teams` teams' standings from leader_board (per team: execution_id, team_id)."""
    keys = f"(SELECT * FROM (VALUES {values(teams, 2)}) AS k(execution_id, team_id))"
    return (
        f"DELETE FROM team_standings WHERE (execution_id, team_id) IN {keys}",
        f"INSERT INTO team_standings ({_STANDINGS_COLUMNS}) "
        + _team_aggregate(f"(execution_id, team_id) IN {keys}"),
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

_HISTORY_COLUMNS = (
    "lb.round_number, lb.submission_content, lb.evaluation_score, lb.score_details, lb.evaluation_feedback, "
    "coalesce(rs.started_at, lb.created_at), coalesce(rs.ended_at, lb.created_at)"
)


def _submission_history(where: str, *, by_team: bool) -> str:
    """Scored rounds matching `where` by round number; `by_team` puts `team_id` first and orders by it."""
    team = "lb.team_id, " if by_team else ""
    return f"""
SELECT {team}{_HISTORY_COLUMNS}
FROM leader_board lb
LEFT JOIN round_status rs USING (execution_id, team_id, round_number)
WHERE {where}
ORDER BY {team}lb.round_number
"""


SUBMISSION_HISTORY = _submission_history(
    "lb.execution_id = ? AND lb.team_id = ? AND lb.round_number < ?", by_team=False
)
ALL_SUBMISSION_HISTORIES = _submission_history("lb.execution_id = ? AND lb.round_number < ?", by_team=True)

# Executions with their lease, if any, and their last stored model call (a sign of life
# the heartbeat may not have caught up with).
_WITH_OWNER = """
SELECT e.execution_id, e.user_prompt, e.status, e.config, e.started_at, e.ended_at, e.summary, e.reference,
       e.active_since, e.active_before_seconds,
       l.pid, l.host, l.process_started, l.command_sha256, l.acquired_at, l.heartbeat_at,
       (SELECT max(m.created_at) FROM model_calls m WHERE m.execution_id = {id}) AS last_call_at
FROM executions e LEFT JOIN execution_leases l USING (execution_id)
"""
EXECUTIONS_WITH_OWNER = _WITH_OWNER.format(id="e.execution_id")
# One execution by `$id`: its last call looked up for that id alone (not correlated: faster)
EXECUTION_WITH_OWNER = _WITH_OWNER.format(id="$id") + "WHERE e.execution_id = $id\n"

LEASE_COLUMNS = (
    "execution_id, owner_token, pid, host, process_started, command_sha256, acquired_at, heartbeat_at"
)

MODEL_CALL_INSERT_COLUMNS = (
    "execution_id, team_id, round_number, site, model, "
    "requests, input_tokens, output_tokens, cost, created_at, settings"
)


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


# Member answers of every scored round (round_history without its message history, which can be large).
MEMBER_RECORDS = (
    "SELECT team_id, round_number, member_submissions_record FROM round_history WHERE execution_id = ?"
)

# usage per call site and model in one scan, summed by the read model (twice GROUPING SETS' speed)
USAGE_BREAKDOWN = """
SELECT site, model, sum(requests) AS requests, sum(input_tokens) AS input_tokens,
       sum(output_tokens) AS output_tokens, sum(cost) AS cost
FROM model_calls WHERE execution_id = ?
GROUP BY site, model
"""

_LISTED = "execution_id IN (SELECT unnest(?::VARCHAR[]))"

# of each listed execution: the leader, the last round, tokens and cost, teams that started
LISTED_LEADERS = f"""
SELECT execution_id, team_id, max_score, team_name FROM team_standings WHERE {_LISTED}
QUALIFY row_number() OVER (PARTITION BY execution_id {_RANKING_ORDER}) = 1
"""
LISTED_LAST_ROUNDS = f"SELECT execution_id, max(last_round) FROM team_standings WHERE {_LISTED} GROUP BY ALL"
LISTED_TOKENS = (
    "SELECT execution_id, coalesce(sum(input_tokens), 0) + coalesce(sum(output_tokens), 0), sum(cost) "
    f"FROM model_calls WHERE {_LISTED} GROUP BY ALL"
)
LISTED_TEAM_COUNTS = (
    f"SELECT execution_id, count(DISTINCT team_id) FROM round_status WHERE {_LISTED} GROUP BY ALL"
)

# an execution's rows in a few numbers, any change of a round or a model call changing one
PROGRESS_MARKS = """
SELECT
    (SELECT count(*) FROM leader_board WHERE execution_id = $id),
    (SELECT max(id) FROM leader_board WHERE execution_id = $id),
    (SELECT count(*) FROM round_status WHERE execution_id = $id),
    (SELECT bit_xor(hash(team_id, round_number, status, started_at, ended_at, should_continue,
                         judgment_reasoning, exit_reason, error_message))
     FROM round_status WHERE execution_id = $id),
    (SELECT max(id) FROM model_calls WHERE execution_id = $id)
"""

# An execution's outline: its scored rounds without texts, the usage parts of a round's tokens ...
OUTLINE_BOARD = """
SELECT team_id, team_name, round_number, evaluation_score, is_final,
       json_object('team', usage_info->'$.team', 'evaluation', usage_info->'$.evaluation') AS usage_info
FROM leader_board WHERE execution_id = ? ORDER BY round_number, team_id
"""
# ... each round's member statuses, and the whole record only where a member failed ...
OUTLINE_MEMBERS = """
SELECT team_id, round_number, statuses,
       CASE WHEN len([s FOR s IN statuses IF s IS DISTINCT FROM 'SUCCESS']) > 0 THEN record END
FROM (
    SELECT team_id, round_number, member_submissions_record AS record,
           member_submissions_record->>'$.submissions[*].status' AS statuses
    FROM round_history WHERE execution_id = ?
)
"""
# ... its round_status rows, times in epoch microseconds (converting TIMESTAMPTZ costs more) ...
OUTLINE_STATUSES = """
SELECT team_id, round_number, status, epoch_us(started_at) AS started_at,
       epoch_us(ended_at) AS ended_at, should_continue, judgment_reasoning, judgment_confidence,
       exit_reason, error_message
FROM round_status WHERE execution_id = ? ORDER BY round_number, team_id
"""
# ... and every leader_board row, texts included, of one team (the leader: its best is shown).
TEAM_BOARD = (
    f"SELECT {LEADER_BOARD_COLUMNS} FROM leader_board WHERE execution_id = ? AND team_id = ? "
    "ORDER BY round_number"
)
