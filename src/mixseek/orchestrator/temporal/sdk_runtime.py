"""The Temporal SDK runtime of a mixseek process: its Core says only what went wrong.

The SDK's Rust core prints its log lines on stdout, in the middle of what `mixseek exec -f json`
prints there, and warns about what this engine does on purpose (a workflow task held open while
its local activities — store work, judgments — run). Only errors are printed. Its logs are not
forwarded to Python's logging: that has Rust threads call into the interpreter, which aborts the
process when one does so while Python is shutting down.
"""

from __future__ import annotations

from functools import cache

from temporalio.runtime import LoggingConfig, Runtime, TelemetryConfig, TelemetryFilter


@cache
def sdk_runtime() -> Runtime:
    """One runtime per process, made on first use (a runtime owns threads of its own); every
    Temporal client mixseek makes uses it."""
    quiet = LoggingConfig(filter=TelemetryFilter(core_level="ERROR", other_level="ERROR"))
    return Runtime(telemetry=TelemetryConfig(logging=quiet))


def started() -> bool:
    """Whether this process started the runtime's threads (`cli.entry.leave` asks)."""
    return sdk_runtime.cache_info().currsize > 0
