"""What a migration could not carry over, or carried over with another meaning: one line each."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Note:
    """`file: key: why` — the file as named in the source workspace, the dotted key, the reason."""

    file: str
    key: str | None
    reason: str

    def line(self) -> str:
        return ": ".join(part for part in (self.file, self.key, self.reason) if part)


@dataclass
class Report:
    """Collected while converting: `dropped`, what the new workspace lacks; `changed`, what it renamed."""

    dropped: list[Note] = field(default_factory=list)
    changed: list[Note] = field(default_factory=list)

    def by_file(self) -> tuple[list[Note], list[Note]]:
        """(changed, dropped), each grouped by file, in the order found within a file."""
        return sorted(self.changed, key=lambda n: n.file), sorted(self.dropped, key=lambda n: n.file)

    def drop(self, file: str, key: str | None, reason: str) -> None:
        self.dropped.append(Note(file, key, reason))

    def change(self, file: str, key: str | None, reason: str) -> None:
        self.changed.append(Note(file, key, reason))
