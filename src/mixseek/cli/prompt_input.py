"""PROMPT and SUBMISSION as an argument or, since a megabyte does not fit on a command line, from
`--prompt-file PATH` (`-` for stdin)."""

from __future__ import annotations

import sys
from pathlib import Path

from mixseek.errors import ConfigError, InputError

STDIN = "-"


def read_text_input(path: str, option: str) -> str:
    """The UTF-8 text of `path`, or of standard input for `-`; a failure is one line naming the file."""
    where = "standard input" if path == STDIN else path
    try:
        data = sys.stdin.buffer.read() if path == STDIN else Path(path).read_bytes()
    except FileNotFoundError:
        raise ConfigError(option, where, "file not found") from None
    except IsADirectoryError:
        raise ConfigError(option, where, "is a directory, not a file") from None
    except OSError as exc:
        raise ConfigError(option, where, f"cannot read: {exc.strerror or exc}") from None
    # the config files' decoder, so a bad byte reads the same here; a byte-order mark is no prompt
    from mixseek.config.loader import decode_utf8

    return decode_utf8(data, f"{option}: {where}").removeprefix("\ufeff")


def given_text(argument: str | None, file: str | None, *, name: str, option: str) -> str | None:
    """The text given as the argument `name` or read with `option`; None if neither was given."""
    if file is None:
        return argument
    if argument is not None:
        raise InputError(f"{name}: give it as an argument or with {option}, not both")
    return read_text_input(file, option)


def required_text(text: str | None, *, name: str, option: str) -> str:
    """`text`, which must have more than white space (an empty file is an empty prompt)."""
    if text is None or not text.strip():
        raise InputError(f"{name}: must not be empty (give it as an argument or with {option})")
    return text


def given_reference(text: str | None, file: str | None, *, resume: str | None) -> str | None:
    """The reference answer of `exec --reference TEXT` or `--reference-file PATH`, if any."""
    if text is not None and file is not None:
        raise InputError("--reference: give it as --reference TEXT or --reference-file PATH, not both")
    if resume is not None and (text is not None or file is not None):
        raise InputError("--reference: not allowed with --resume (the execution keeps its reference)")
    reference = read_text_input(file, "--reference-file") if file is not None else text
    if reference is not None and not reference.strip():
        raise InputError("--reference: must not be empty")
    return reference
