"""Text that came from the operating system: command-line arguments, environment variables, file names.
`surrogateescape` turns non-UTF-8 bytes into lone surrogates no UTF-8 sink can encode: such text is refused
where it comes in (`not_utf8`), and a name that may hold one is shown `escaped`."""

from __future__ import annotations

import re

_UNDECODABLE = re.compile("[\udc80-\udcff]")
_SURROGATE_BASE = 0xDC00


def not_utf8(value: str) -> str | None:
    """Why `value` is not UTF-8 text (its first bad byte and that byte's offset), or None if it is."""
    found = _UNDECODABLE.search(value)
    if found is None:
        return None
    offset = len(value[: found.start()].encode("utf-8", "surrogatepass"))
    return f"not UTF-8 text (byte 0x{ord(found.group()) - _SURROGATE_BASE:02x} at offset {offset})"


def escaped(value: str) -> str:
    """`value` on one printable line: line breaks and other control characters as escapes (`\\n`,
    `\\x1b`), a byte that was not UTF-8 as `\\xe9`; the rest (Japanese too) as it is."""
    if value.isprintable():
        return value
    return "".join(ch if ch.isprintable() else _escape(ch) for ch in value)


def _escape(ch: str) -> str:
    code = ord(ch)
    if _SURROGATE_BASE + 0x80 <= code <= _SURROGATE_BASE + 0xFF:
        return f"\\x{code - _SURROGATE_BASE:02x}"
    return ch.encode("unicode_escape").decode("ascii")
