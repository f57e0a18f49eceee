"""Judges against human labels (`mixseek judges calibrate`): how well each judge, metric and the overall score
track people's scores of the same stored submissions, one label per submission (a CSV naming `COLUMNS`)."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mixseek.config.evaluator import PERCENT, stored_scale
from mixseek.config.metric_options import DETERMINISTIC_OPTIONS
from mixseek.errors import InputError
from mixseek.stats.calibration import Calibration, calibrate

if TYPE_CHECKING:
    from mixseek.storage.scored import ScoredExecution

COLUMNS = ("execution_id", "team_id", "round_number", "human_score")


@dataclass(frozen=True)
class Label:
    """A human score of one submission: a team's round of an execution, from line `line`."""

    line: int
    execution_id: str
    team_id: str
    round_number: int
    human_score: float


def _problem(path: Path, line: int, reason: str) -> InputError:
    return InputError(f"{path}: line {line}: {reason}")


class _Lines:
    """The file's lines, counted: the CSV reader's `line_num` lags one behind on a line it refuses."""

    def __init__(self, text: str) -> None:
        # newline="": lines end at \r, \n or \r\n, as CSV's do; U+2028 or U+0085 in a note is text
        self._lines = io.StringIO(text, newline="")
        self.read = 0

    def __iter__(self) -> _Lines:
        return self

    def __next__(self) -> str:
        line = next(self._lines)
        self.read += 1
        return line


def _rows(path: Path) -> Iterator[tuple[int, dict[str | None, Any]]]:
    """The data rows with the line each ends on, after checking the header."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    lines = _Lines(text)
    reader = csv.DictReader(lines)
    try:
        header = [name.strip() for name in reader.fieldnames or []]
    except csv.Error as exc:
        raise _problem(path, lines.read, f"not valid CSV: {exc}") from None
    if not header:
        raise _problem(path, 1, f"no header row: expected the columns {', '.join(COLUMNS)}")
    reader.fieldnames = header
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise _problem(
            path, 1, f"missing column(s) {', '.join(missing)}: the header must name {', '.join(COLUMNS)}"
        )
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise _problem(path, lines.read, f"not valid CSV: {exc}") from None
        yield lines.read, row


def _field(path: Path, line: int, row: Mapping[str | None, Any], column: str) -> str:
    value = row.get(column)
    text = value.strip() if isinstance(value, str) else ""
    if not text:
        raise _problem(path, line, f"{column}: missing")
    return text


def load_labels(path: Path) -> list[Label]:
    """Every label of the CSV file at `path`; the first bad line is an `InputError` naming it."""
    labels: list[Label] = []
    seen: dict[tuple[str, str, int], int] = {}
    for line, row in _rows(path):
        if not any(isinstance(v, str) and v.strip() for k, v in row.items() if k is not None):
            continue  # a blank line inside the file
        execution_id, team_id = (_field(path, line, row, c) for c in COLUMNS[:2])
        raw_round = _field(path, line, row, "round_number")
        try:
            round_number = int(raw_round)
        except ValueError:
            raise _problem(path, line, f"round_number: {raw_round!r} is not a whole number") from None
        raw_score = _field(path, line, row, "human_score")
        try:
            score = float(raw_score)
        except ValueError:
            raise _problem(path, line, f"human_score: {raw_score!r} is not a number") from None
        if not math.isfinite(score):  # on the execution's scale, which need not be 0–100
            raise _problem(path, line, f"human_score: {raw_score} is not a finite number")
        key = (execution_id, team_id, round_number)
        if key in seen:
            raise _problem(path, line, f"a second label for the submission labelled on line {seen[key]}")
        seen[key] = line
        labels.append(Label(line, execution_id, team_id, round_number, score))
    if not labels:
        raise InputError(f"{path}: no labels after the header")
    return labels


@dataclass(frozen=True)
class Scored:
    """One calibrated scorer: the overall score, a metric, or one judge of a metric."""

    scope: str
    """`overall`, `metric` or `judge`."""
    metric: str | None
    model: str | None
    kind: str | None
    """A metric's: `panel`, `judge` (one model) or `deterministic`."""
    aggregate: str | None
    """A panel metric's aggregate (`mean`, `median`, `trimmed_mean`)."""
    calibration: Calibration

    def document(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "metric": self.metric,
            "model": self.model,
            "kind": self.kind,
            "aggregate": self.aggregate,
            **asdict(self.calibration),
        }


@dataclass(frozen=True)
class CalibrationReport:
    labels: int
    executions: list[str]
    rows: list[Scored]

    def document(self) -> dict[str, Any]:
        return {
            "labels": self.labels,
            "executions": self.executions,
            "rows": [row.document() for row in self.rows],
        }


def _metric_models(config: Mapping[str, Any]) -> dict[str, str | None]:
    """Per configured metric, its one judge model: None for a deterministic built-in (or a panel)."""
    evaluator = config.get("evaluator")
    if not isinstance(evaluator, Mapping):
        return {}
    default = evaluator.get("model")
    models: dict[str, str | None] = {}
    for metric in evaluator.get("metrics") or []:
        if not isinstance(metric, Mapping) or not isinstance(metric.get("name"), str):
            continue
        name = metric["name"]
        if name in DETERMINISTIC_OPTIONS and metric.get("class_path") is None:
            models[name] = None
        else:
            model = metric.get("model") or default
            models[name] = model if isinstance(model, str) else None
    return models


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


class _Pairs:
    """Judge and human scores collected per scorer, in the order scorers are first met."""

    def __init__(self) -> None:
        self.pairs: dict[tuple[str, str | None, str | None], tuple[list[float], list[float]]] = {}
        self.kinds: dict[str, str] = {}
        self.aggregates: dict[str, str] = {}

    def add(self, key: tuple[str, str | None, str | None], judge: float | None, human: float) -> None:
        if judge is None:
            return
        judged, humans = self.pairs.setdefault(key, ([], []))
        judged.append(judge)
        humans.append(human)


def calibrate_labels(
    labels: Sequence[Label], scored: Mapping[str, ScoredExecution], path: Path
) -> CalibrationReport:
    """Each scorer's calibration against `labels`; `scored` is `storage.scored.read_scored`'s
    result for their executions. A label naming a submission the store lacks is an `InputError`
    naming its line (`path` is the labels file)."""
    collected = _Pairs()
    for label in labels:
        execution = scored.get(label.execution_id)
        if execution is None:
            raise _problem(path, label.line, f"no execution {label.execution_id!r} in the workspace")
        row = execution.rounds.get((label.team_id, label.round_number))
        if row is None:
            raise _problem(
                path,
                label.line,
                f"no scored submission of team {label.team_id!r} in round {label.round_number} "
                f"of execution {label.execution_id!r}",
            )
        human = label.human_score
        scale = stored_scale(execution.config.get("evaluator"))
        if not scale.contains(human):
            shown = "0–100" if scale == PERCENT else scale
            raise _problem(path, label.line, f"human_score: {human:g} is outside {shown} (the judges' scale)")
        collected.add(("overall", None, None), _number(row["evaluation_score"]), human)
        models = _metric_models(execution.config)
        for metric, entry in row["score_details"].items():
            detail = entry if isinstance(entry, Mapping) else {"score": entry}
            judges = detail.get("judges")
            if isinstance(judges, list):
                collected.kinds.setdefault(metric, "panel")
                if isinstance(detail.get("aggregate"), str):
                    collected.aggregates.setdefault(metric, detail["aggregate"])
            elif models.get(metric) is None and metric in models:
                collected.kinds.setdefault(metric, "deterministic")
            else:
                collected.kinds.setdefault(metric, "judge")
            collected.add(("metric", metric, None), _number(detail.get("score")), human)
            if isinstance(judges, list):
                for judge in judges:
                    if isinstance(judge, Mapping) and isinstance(judge.get("model"), str):
                        collected.add(("judge", metric, judge["model"]), _number(judge.get("score")), human)
            elif (model := models.get(metric)) is not None:
                collected.add(("judge", metric, model), _number(detail.get("score")), human)
    return CalibrationReport(
        labels=len(labels),
        executions=list(dict.fromkeys(label.execution_id for label in labels)),
        rows=_ordered(collected),
    )


def _ordered(collected: _Pairs) -> list[Scored]:
    """Overall first, then each metric (by name) followed by its judges (by model)."""
    order = {"overall": 0, "metric": 1, "judge": 2}

    def key(item: tuple[str, str | None, str | None]) -> tuple[str, int, str]:
        scope, metric, model = item
        return (metric or "", order[scope], model or "")

    return [
        Scored(
            scope,
            metric,
            model,
            collected.kinds.get(metric or "") if scope == "metric" else None,
            collected.aggregates.get(metric or "") if scope == "metric" else None,
            calibrate(*pair),
        )
        for (scope, metric, model), pair in sorted(collected.pairs.items(), key=lambda kv: key(kv[0]))
    ]


def calibration_report(labels_file: Path, db: Path) -> CalibrationReport:
    """Read the labels (checked whole first), then the store at `db`, and calibrate."""
    from mixseek.storage.quick_read import read_once
    from mixseek.storage.scored import read_scored

    labels = load_labels(labels_file)
    if not db.is_file():
        raise InputError(f"{db}: no database here (run 'mixseek exec' in this workspace first)")
    ids = [label.execution_id for label in labels]
    found = read_once(db, lambda conn: read_scored(conn, ids))
    return calibrate_labels(labels, found, labels_file)
