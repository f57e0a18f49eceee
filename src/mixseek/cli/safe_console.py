"""The console class behind `console.stdout_console` and `console.stderr_console` (rich loads with it)."""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment

from mixseek.redaction import Redactor
from mixseek.text_safety import strip_controls


class SafeConsole(Console):
    """A console no control character of the text gets through (Rich's own come after rendering)."""

    def render(self, renderable: RenderableType, options: ConsoleOptions | None = None) -> Iterable[Segment]:
        redactor = Redactor()  # nor a credential value (see mixseek.redaction)
        for segment in super().render(renderable, options):
            if segment.control:
                yield segment
            else:
                yield Segment(redactor.text(strip_controls(segment.text)), segment.style)
