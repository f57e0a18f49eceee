"""`json_schema`, no model call: 100 when the submission (JSON, else its first fenced ```json block) is valid
against the schema, else 0, the comment naming the first problem by its JSON path."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from jsonschema.validators import validator_for

from mixseek.config.evaluator import EvaluatorSettings, MetricConfig
from mixseek.errors import InputError
from mixseek.evaluator.metrics.base import Metric, MetricOutcome
from mixseek.evaluator.metrics.schema_file import load_schema

FENCED_JSON = re.compile(r"```json[ \t]*\r?\n(.*?)```", re.S | re.I)


def _document(submission: str) -> tuple[Any, str] | str:
    """The submission's JSON and where it was found, or why there is none."""
    try:
        return json.loads(submission), "the submission"
    except ValueError as whole:
        fenced = FENCED_JSON.search(submission)
        if fenced is None:
            return f"not JSON ({whole}) and no ```json block"
        try:
            return json.loads(fenced.group(1)), "its first ```json block"
        except ValueError as exc:
            return f"the first ```json block is not JSON ({exc})"


class JsonSchemaMetric(Metric):
    """Structured output checked exactly, for tasks whose answer a program reads."""

    def __init__(
        self, config: MetricConfig, settings: EvaluatorSettings, *, base_dir: Path | None = None
    ) -> None:
        super().__init__(config, settings)
        if config.json_schema is None:
            raise InputError(f"metric '{config.name}': json_schema: missing")
        try:
            schema = load_schema(config.json_schema, base_dir)
        except ValueError as exc:
            raise InputError(f"metric '{config.name}': json_schema: {exc}") from None
        self.validator = validator_for(schema)(schema)

    @classmethod
    def create(cls, config: MetricConfig, settings: EvaluatorSettings, *, base_dir: Path | None) -> Metric:
        return cls(config, settings, base_dir=base_dir)

    async def score(self, user_prompt: str, submission: str, evaluator_prompt: str) -> MetricOutcome:
        found = _document(submission)
        if isinstance(found, str):
            return MetricOutcome(score=0.0, comment=found)
        document, where = found
        errors = list(self.validator.iter_errors(document))
        if not errors:
            return MetricOutcome(score=100.0, comment=f"JSON in {where} matches the schema")
        first = min(errors, key=lambda e: (e.json_path, e.message))
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        return MetricOutcome(
            score=0.0,
            comment=f"JSON in {where} does not match the schema: at {first.json_path}: {first.message}{more}",
        )
