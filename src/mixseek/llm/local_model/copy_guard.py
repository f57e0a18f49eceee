"""Steers generation away from copying the prompt's instruction texts (a small model often answers with the
system prompt it has just read): `CopyGuard` forbids a token that would continue one to `BAN_AT_CHARS`
characters. Only free text is guarded; when the grammar allows nothing else, the ban yields."""

from __future__ import annotations

from collections.abc import Callable, Sequence

BAN_AT_CHARS = 12
"""A copied run may not reach this many characters."""

STRUCTURE_KEYS = frozenset({"tool"})
"""JSON keys whose string values are chosen from the reply format, not written."""


def _chars(piece: bytes) -> int:
    """Characters a token adds: its UTF-8 bytes that start a character."""
    return sum(1 for byte in piece if byte & 0xC0 != 0x80)


class _JsonPosition:
    """Where in a JSON text the generation is: inside a string value, and after which key."""

    def __init__(self) -> None:
        self.containers: list[str] = []
        self.in_string = False
        self.escaped = False
        self.string_is_key = False
        self.expect_key = False
        self.key_chars: list[str] = []
        self.last_key: str | None = None

    @property
    def in_free_text(self) -> bool:
        return self.in_string and not self.string_is_key and self.last_key not in STRUCTURE_KEYS

    def feed(self, text: str) -> None:
        for char in text:
            if self.in_string:
                self._in_string(char)
            else:
                self._outside(char)

    def _in_string(self, char: str) -> None:
        if self.escaped:
            self.escaped = False
        elif char == "\\":
            self.escaped = True
        elif char == '"':
            self.in_string = False
            if self.string_is_key:
                self.last_key = "".join(self.key_chars)
            return
        if self.string_is_key:
            self.key_chars.append(char)

    def _outside(self, char: str) -> None:
        if char == '"':
            self.in_string = True
            self.string_is_key = self.expect_key
            self.key_chars = []
        elif char in "{[":
            self.containers.append(char)
            self.expect_key = char == "{"
        elif char in "}]":
            if self.containers:
                self.containers.pop()
            self.expect_key = False
        elif char == ",":
            self.expect_key = bool(self.containers) and self.containers[-1] == "{"
        elif char == ":":
            self.expect_key = False


class CopyGuard:
    """The tokens that would extend a copy of an instruction text, for each step of one generation."""

    def __init__(
        self,
        protected: Sequence[Sequence[int]],
        piece: Callable[[int], bytes],
        *,
        json_reply: bool,
        ban_at_chars: int = BAN_AT_CHARS,
    ) -> None:
        """`protected`: the token sequences of the instruction texts; `piece`: a token's bytes;
        `json_reply`: the reply is JSON (guard string values only) rather than free text."""
        self._piece = piece
        self._ban_at = ban_at_chars
        self._tokens: list[int] = []
        self._positions: dict[int, list[int]] = {}
        for sequence in protected:
            for token in sequence:
                self._positions.setdefault(token, []).append(len(self._tokens))
                self._tokens.append(token)
            self._tokens.append(-1)  # no run continues from one text into the next
        self._widths: dict[int, int] = {}
        self._json = _JsonPosition() if json_reply else None
        self._runs: dict[int, int] = {}
        """Position in the protected tokens a run would continue at -> characters copied so far."""
        self._pending = b""

    def _width(self, token: int) -> int:
        width = self._widths.get(token)
        if width is None:
            width = self._widths[token] = _chars(self._piece(token))
        return width

    def banned(self) -> list[int]:
        """Tokens that may not come next."""
        if not self._runs:
            return []
        banned = set()
        for position, copied in self._runs.items():
            token = self._tokens[position]
            if token >= 0 and copied + self._width(token) >= self._ban_at:
                banned.add(token)
        return sorted(banned)

    def accept(self, token: int) -> None:
        """The token the model wrote: runs go on or end, and new ones start."""
        if self._json is not None:
            self._pending += self._piece(token)
            text = self._pending.decode("utf-8", errors="ignore")
            if text:
                self._pending = b""
                was_free = self._json.in_free_text
                self._json.feed(text)
                if not (was_free and self._json.in_free_text):
                    self._runs = {}
                    return
        width = self._width(token)
        runs = {
            position + 1: copied + width
            for position, copied in self._runs.items()
            if self._tokens[position] == token
        }
        for position in self._positions.get(token, ()):
            runs.setdefault(position + 1, width)
        self._runs = runs
