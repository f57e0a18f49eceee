"""The Temporal SDK runtime of a mixseek process: its core prints only errors (its lines land in `exec -f
json`'s stdout), and its logs are not forwarded (Rust threads calling Python abort at exit)."""

from __future__ import annotations

from functools import cache

from temporalio.runtime import LoggingConfig, Runtime, TelemetryConfig, TelemetryFilter


@cache
def sdk_runtime() -> Runtime:
    """One runtime per process, made on first use; every Temporal client mixseek makes uses it."""
    quiet = LoggingConfig(filter=TelemetryFilter(core_level="ERROR", other_level="ERROR"))
    return Runtime(telemetry=TelemetryConfig(logging=quiet))


def started() -> bool:
    """Whether this process started the runtime's threads (`cli.entry.leave` asks)."""
    return sdk_runtime.cache_info().currsize > 0
