"""`exec --otel off|console|otlp|logfire --otel-content on|off`: where spans go, whether they carry text (over
`[orchestrator] telemetry(_content)`); a missing package: one line, exit 2. OpenTelemetry loads only then."""

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
OtelContentOption = Annotated[
    str | None, typer.Option("--otel-content", help="on, or off: spans without any text.", show_default=False)
]


def apply_otel(loaded: ExecutionConfig, otel: str | None, content: str | None = None) -> ExecutionConfig:
    """Switch on the spans `--otel`, or else the config, asks for; the config with the flags' choices."""
    from mixseek.orchestrator.orchestrator import telemetry_site
    from mixseek.telemetry import TELEMETRY_MODES, configure_telemetry

    if otel is not None and otel not in TELEMETRY_MODES:
        raise InputError(f"--otel: must be one of {', '.join(TELEMETRY_MODES)} (got '{otel}')")
    if content not in (None, "on", "off"):
        raise InputError(f"--otel-content: must be on or off (got '{content}')")
    mode = cast("TelemetryMode", otel) if otel is not None else loaded.orchestrator.value.telemetry
    if mode != "off":
        source, key = ("--otel", None) if otel is not None else telemetry_site(loaded.orchestrator)
        configure_telemetry(mode, source=source, key=key)
    update = {"telemetry": mode} | ({"telemetry_content": content} if content else {})
    settings = loaded.orchestrator.value.model_copy(update=update)
    return dataclasses.replace(loaded, orchestrator=dataclasses.replace(loaded.orchestrator, value=settings))
