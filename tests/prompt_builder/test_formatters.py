"""Formatters: the exact texts of seed 001 §2, plus the optional history limits."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from mixseek.prompt_builder import (
    find_team_position,
    format_ranking_table,
    format_submission_history,
    generate_position_message,
    get_current_datetime_with_timezone,
)

from .support import entry, round_state

INVALID_TZ = (
    "Invalid timezone in TZ environment variable: Invalid/Timezone. "
    "Valid examples: 'UTC', 'Asia/Tokyo', 'America/New_York'"
)

# ---------------------------------------------------------------- submission history


def test_history_seed_docstring_example() -> None:
    history = [round_state(1, "...", 75.5, {"accuracy": 80.0})]
    assert format_submission_history(history) == (
        '## ラウンド 1\nスコア: 75.50/100\nスコア詳細:\n{\n  "accuracy": 80.0\n}\nあなたの提出内容: ...'
    )


def test_history_rounds_separated_by_blank_line() -> None:
    history = [round_state(1, "一回目", 60.0, {"a": 1}), round_state(2, "二回目", 72.345, {"a": 2})]
    assert format_submission_history(history) == (
        '## ラウンド 1\nスコア: 60.00/100\nスコア詳細:\n{\n  "a": 1\n}\nあなたの提出内容: 一回目'
        "\n\n"
        '## ラウンド 2\nスコア: 72.34/100\nスコア詳細:\n{\n  "a": 2\n}\nあなたの提出内容: 二回目'
    )


def test_history_empty_text() -> None:
    assert format_submission_history([]) == "まだ過去のSubmissionはありません。"


def test_history_score_details_keep_non_ascii_and_nesting() -> None:
    history = [round_state(1, "x", 100.0, {"正確性": {"score": 90, "comment": "良い"}})]
    assert format_submission_history(history) == (
        "## ラウンド 1\nスコア: 100.00/100\nスコア詳細:\n"
        '{\n  "正確性": {\n    "score": 90,\n    "comment": "良い"\n  }\n}\n'
        "あなたの提出内容: x"
    )


def test_history_empty_score_details() -> None:
    assert format_submission_history([round_state(3, "x", 0.0)]) == (
        "## ラウンド 3\nスコア: 0.00/100\nスコア詳細:\n{}\nあなたの提出内容: x"
    )


def test_history_multiline_submission_kept_as_is() -> None:
    text = format_submission_history([round_state(1, "line1\nline2\n", 1.0)])
    assert text.endswith("あなたの提出内容: line1\nline2\n")


# ---------------------------------------------------------------- history limits


def test_history_max_items_keeps_latest_rounds() -> None:
    history = [round_state(n, f"s{n}", float(n)) for n in range(1, 6)]
    text = format_submission_history(history, max_items=2)
    assert text.startswith("（古い3ラウンド分の提出履歴は省略しています）\n\n## ラウンド 4\n")
    assert "## ラウンド 3" not in text
    assert text.endswith("## ラウンド 5\nスコア: 5.00/100\nスコア詳細:\n{}\nあなたの提出内容: s5")


def test_history_max_items_not_reached_is_unchanged() -> None:
    history = [round_state(1, "a"), round_state(2, "b")]
    assert format_submission_history(history, max_items=2) == format_submission_history(history)


def test_history_preview_chars_marks_the_cut() -> None:
    history = [round_state(1, "あいうえおかきくけこ", 10.0), round_state(2, "短い", 20.0)]
    text = format_submission_history(history, preview_chars=5)
    assert "あなたの提出内容: あいうえお…（以下5文字省略）\n\n" in text
    assert text.endswith("あなたの提出内容: 短い")


def test_history_preview_exact_length_not_cut() -> None:
    text = format_submission_history([round_state(1, "12345")], preview_chars=5)
    assert text.endswith("あなたの提出内容: 12345")


@pytest.mark.parametrize("kwargs", [{"max_items": 0}, {"preview_chars": 0}, {"max_items": -1}])
def test_history_invalid_limits(kwargs: dict[str, int]) -> None:
    with pytest.raises(ValueError, match="must be >= 1"):
        format_submission_history([round_state(1)], **kwargs)


# ---------------------------------------------------------------- ranking table


def test_ranking_seed_docstring_example() -> None:
    ranking = [entry("team1", "Alpha", 85.5, 3), entry("team2", "Beta", 80.0, 2)]
    assert format_ranking_table(ranking, "team1", "Alpha") == (
        "**#1 Alpha (あなたのチーム) - スコア: 85.50/100 (ラウンド数: 3)**\n"
        "#2 Beta - スコア: 80.00/100 (ラウンド数: 2)"
    )


def test_ranking_own_team_not_first() -> None:
    ranking = [entry("t1", "Alpha", 90.0, 2), entry("t2", "Beta", 80.0, 2), entry("t3", "Gamma", 70.125, 1)]
    assert format_ranking_table(ranking, "t2", "Beta") == (
        "#1 Alpha - スコア: 90.00/100 (ラウンド数: 2)\n"
        "**#2 Beta (あなたのチーム) - スコア: 80.00/100 (ラウンド数: 2)**\n"
        "#3 Gamma - スコア: 70.12/100 (ラウンド数: 1)"
    )


def test_ranking_empty_text() -> None:
    assert format_ranking_table([], "team1", "Alpha") == "現在はランキング情報がありません。"


def test_ranking_team_not_ranked_has_no_bold_line() -> None:
    text = format_ranking_table([entry("t1", "Alpha", 1.0, 1)], "t9", "Zeta")
    assert text == "#1 Alpha - スコア: 1.00/100 (ラウンド数: 1)"


def test_ranking_missing_key_is_clear() -> None:
    with pytest.raises(ValueError, match="ranking entry 0 has no 'max_score'"):
        format_ranking_table([{"team_id": "t", "team_name": "T", "total_rounds": 1}], "t", "T")


def _teams(n: int) -> list[dict[str, object]]:
    return [entry(f"t{i}", f"Team{i}", 100.0 - i, 1) for i in range(1, n + 1)]


def test_ranking_max_teams_own_team_within_top() -> None:
    text = format_ranking_table(_teams(5), "t2", "Team2", max_teams=3)
    assert text.splitlines() == [
        "#1 Team1 - スコア: 99.00/100 (ラウンド数: 1)",
        "**#2 Team2 (あなたのチーム) - スコア: 98.00/100 (ラウンド数: 1)**",
        "#3 Team3 - スコア: 97.00/100 (ラウンド数: 1)",
        "…（2チーム省略）",
    ]


def test_ranking_max_teams_own_team_beyond_top_is_still_shown() -> None:
    text = format_ranking_table(_teams(8), "t6", "Team6", max_teams=2)
    assert text.splitlines() == [
        "#1 Team1 - スコア: 99.00/100 (ラウンド数: 1)",
        "#2 Team2 - スコア: 98.00/100 (ラウンド数: 1)",
        "…（3チーム省略）",
        "**#6 Team6 (あなたのチーム) - スコア: 94.00/100 (ラウンド数: 1)**",
        "…（2チーム省略）",
    ]


def test_ranking_max_teams_own_team_right_after_top_and_last() -> None:
    assert format_ranking_table(_teams(3), "t3", "Team3", max_teams=2).splitlines()[2:] == [
        "**#3 Team3 (あなたのチーム) - スコア: 97.00/100 (ラウンド数: 1)**"
    ]


def test_ranking_max_teams_not_reached_is_unchanged() -> None:
    teams = _teams(3)
    assert format_ranking_table(teams, "t1", "Team1", max_teams=3) == format_ranking_table(
        teams, "t1", "Team1"
    )


def test_ranking_invalid_max_teams() -> None:
    with pytest.raises(ValueError, match="max_teams must be >= 1"):
        format_ranking_table(_teams(2), "t1", "Team1", max_teams=0)


def test_find_team_position() -> None:
    teams = _teams(4)
    assert find_team_position(teams, "t3") == 3
    assert find_team_position(teams, "nope") is None


# ---------------------------------------------------------------- position message


@pytest.mark.parametrize(
    ("position", "total", "message"),
    [
        (1, 5, "🏆 現在、あなたのチームは1位です！この調子で頑張ってください。"),
        (1, 1, "🏆 現在、あなたのチームは1位です！この調子で頑張ってください。"),
        (2, 5, "現在、5チーム中2位です。素晴らしい成績です！"),
        (3, 5, "現在、5チーム中3位です。素晴らしい成績です！"),
        (4, 5, "現在、5チーム中4位です。"),
        (5, 5, "現在、5チーム中5位です。"),
        (64, 64, "現在、64チーム中64位です。"),
    ],
)
def test_position_messages(position: int, total: int, message: str) -> None:
    assert generate_position_message(position, total) == message


@pytest.mark.parametrize(("position", "total"), [(0, 5), (-1, 5), (6, 5), (2, 1)])
def test_position_invalid_position(position: int, total: int) -> None:
    with pytest.raises(ValueError) as info:
        generate_position_message(position, total)
    assert str(info.value) == "Invalid position"


@pytest.mark.parametrize(("position", "total"), [(1, 0), (0, 0), (1, -3)])
def test_position_invalid_total_teams(position: int, total: int) -> None:
    with pytest.raises(ValueError) as info:
        generate_position_message(position, total)
    assert str(info.value) == "Invalid total_teams"


# ---------------------------------------------------------------- current datetime

ISO_WITH_OFFSET = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}[+-]\d{2}:\d{2}$")
INSTANT = datetime(2025, 11, 19, 12, 34, 56, 789012, tzinfo=UTC)


def test_datetime_tz_unset_is_utc() -> None:
    value = get_current_datetime_with_timezone()
    assert ISO_WITH_OFFSET.match(value)
    assert value.endswith("+00:00")
    parsed = datetime.fromisoformat(value)
    assert abs((datetime.now(UTC) - parsed).total_seconds()) < 60


def test_datetime_seed_examples() -> None:
    assert get_current_datetime_with_timezone(now=INSTANT) == "2025-11-19T12:34:56.789012+00:00"


def test_datetime_asia_tokyo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    assert get_current_datetime_with_timezone(now=INSTANT) == "2025-11-19T21:34:56.789012+09:00"
    assert get_current_datetime_with_timezone().endswith("+09:00")


def test_datetime_always_has_microseconds() -> None:
    moment = datetime(2025, 1, 1, tzinfo=UTC)
    assert get_current_datetime_with_timezone(now=moment) == "2025-01-01T00:00:00.000000+00:00"


def test_datetime_negative_offset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "America/New_York")
    assert get_current_datetime_with_timezone(now=INSTANT) == "2025-11-19T07:34:56.789012-05:00"


def test_datetime_invalid_tz_message(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "Invalid/Timezone")
    with pytest.raises(ValueError) as info:
        get_current_datetime_with_timezone()
    assert str(info.value) == INVALID_TZ


@pytest.mark.parametrize("value", ["Asia", " ", "../etc/passwd", "/etc/localtime", "JST-9"])
def test_datetime_other_invalid_values(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("TZ", value)
    with pytest.raises(ValueError) as info:
        get_current_datetime_with_timezone()
    assert str(info.value).startswith(
        f"Invalid timezone in TZ environment variable: {value}. Valid examples:"
    )


def test_datetime_empty_tz_means_utc(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "")
    assert get_current_datetime_with_timezone(now=INSTANT) == "2025-11-19T12:34:56.789012+00:00"


def test_datetime_posix_colon_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", ":Asia/Tokyo")
    assert get_current_datetime_with_timezone(now=INSTANT).endswith("+09:00")
