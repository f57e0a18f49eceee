"""The two consoles every command writes to; lines are never wrapped, so logs and tests see them whole."""

from __future__ import annotations

from collections.abc import Iterable

import pydantic_ai
from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment

from mixseek.redaction import Redactor
from mixseek.text_safety import strip_controls


class SafeConsole(Console):
    """A console that never lets a control character of the printed text reach the terminal.

    Commands strip model text before laying it out; this is the backstop for every other string
    (config values, error messages). Rich's own cursor and style codes are added after rendering
    or travel as control segments, so they are kept."""

    def render(self, renderable: RenderableType, options: ConsoleOptions | None = None) -> Iterable[Segment]:
        redactor = Redactor()  # nor a credential value (see mixseek.redaction)
        for segment in super().render(renderable, options):
            if segment.control:
                yield segment
            else:
                yield Segment(redactor.text(strip_controls(segment.text)), segment.style)


def stdout_console() -> Console:
    return SafeConsole(soft_wrap=True, highlight=False)


def stderr_console() -> Console:
    return SafeConsole(stderr=True, soft_wrap=True, highlight=False)


def silence_library_banners() -> None:
    """Turn off pydantic-ai's first-run banner (Logfire advice for people writing agents).

    pydantic-ai hides it when an installed package runs the agents, but not when mixseek runs
    from a clone (`pip install -e`); there it was printed into the middle of the live table."""
    pydantic_ai.BANNER_ENABLED = False
