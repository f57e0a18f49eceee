"""`mixseek exec --otel off|console|otlp|logfire`: where an execution's OpenTelemetry spans go. The flag wins
over `[orchestrator] telemetry`; either is switched on before anything runs, so a missing package is one line
and exit 2. OpenTelemetry loads only then."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Annotated, cast

import typer

from mixseek.errors import InputError

if TYPE_CHECKING:
    from mixseek.config.bundle import ExecutionConfig
    from mixseek.config.orchestrator import TelemetryMode

OtelOption = Annotated[
    str | None,
    typer.Option(
        "--otel",
        help="OpenTelemetry spans: off, console (stderr), otlp (OTEL_* variables) or logfire "
        "(default: orchestrator.toml's telemetry, else off).",
        show_default=False,
    ),
]


def apply_otel(loaded: ExecutionConfig, otel: str | None) -> ExecutionConfig:
    """Switch on the spans `--otel`, or else the config, asks for; the config with the flag's choice."""
    from mixseek.orchestrator.orchestrator import telemetry_site
    from mixseek.telemetry import TELEMETRY_MODES, configure_telemetry

    if otel is not None and otel not in TELEMETRY_MODES:
        raise InputError(f"--otel: must be one of {', '.join(TELEMETRY_MODES)} (got '{otel}')")
    mode = cast("TelemetryMode", otel) if otel is not None else loaded.orchestrator.value.telemetry
    if mode != "off":
        source, key = ("--otel", None) if otel is not None else telemetry_site(loaded.orchestrator)
        configure_telemetry(mode, source=source, key=key)
    if mode == loaded.orchestrator.value.telemetry:
        return loaded
    settings = loaded.orchestrator.value.model_copy(update={"telemetry": mode})
    return dataclasses.replace(loaded, orchestrator=dataclasses.replace(loaded.orchestrator, value=settings))
