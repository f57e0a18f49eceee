"""Ways a workspace's DuckDB file gets damaged, each applied to a real, closed file."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import duckdb

# DuckDB's file: a main header and two database headers (4 KiB each), then fixed-size blocks,
# each starting with its 8-byte checksum.
_HEADERS = 3 * 4096
_CHECKSUM = 8


def truncate(db: Path) -> None:
    """Cut the file in half (a copy or a disk that stopped half-way)."""
    os.truncate(db, db.stat().st_size // 2)


def garbage_header(db: Path) -> None:
    """Overwrite the start of the file: not recognisable as a DuckDB file any more."""
    with db.open("r+b") as fh:
        fh.write(b"this is not a database " * 200)


def flip_bytes(db: Path) -> None:
    """Invert 64 bytes in the middle of the file, inside the stored execution prompts."""
    conn = duckdb.connect(str(db), read_only=True)
    try:
        row = conn.execute("SELECT block_size FROM pragma_database_size()").fetchone()
        assert row is not None
        block_size = int(row[0])
        segment = conn.execute(
            "SELECT block_id, block_offset FROM pragma_storage_info('executions') "
            "WHERE column_name = 'user_prompt' AND segment_type <> 'VALIDITY' AND block_id >= 0 LIMIT 1"
        ).fetchone()
    finally:
        conn.close()
    assert segment is not None, "no stored prompt to damage"
    position = _HEADERS + int(segment[0]) * block_size + _CHECKSUM + int(segment[1])
    with db.open("r+b") as fh:
        fh.seek(position)
        original = fh.read(64)
        assert any(original), "the damaged bytes must be in use"
        fh.seek(position)
        fh.write(bytes(b ^ 0xFF for b in original))


def damage_wal(db: Path) -> None:
    """Leave a committed write in the write-ahead log (as a killed process does), then corrupt it."""
    conn = duckdb.connect(str(db))
    try:
        conn.execute("PRAGMA disable_checkpoint_on_shutdown")
        conn.execute("UPDATE executions SET user_prompt = user_prompt || ' (edited)'")
    finally:
        conn.close()
    wal = db.with_name(db.name + ".wal")
    size = wal.stat().st_size
    assert size > 64, "the write-ahead log must hold the write"
    with wal.open("r+b") as fh:
        fh.seek(size // 2)
        original = fh.read(16)
        fh.seek(size // 2)
        fh.write(bytes(b ^ 0xFF for b in original))


def sqlite_file(db: Path) -> None:
    """A real SQLite database where the DuckDB file should be (another tool's file, say)."""
    for path in (db, db.with_name(db.name + ".wal")):
        path.unlink(missing_ok=True)
    conn = sqlite3.connect(db)
    try:
        conn.execute("CREATE TABLE executions (execution_id TEXT PRIMARY KEY, status TEXT)")
        conn.execute("INSERT INTO executions VALUES ('x', 'completed')")
        conn.commit()
    finally:
        conn.close()


def directory(db: Path) -> None:
    """A directory where the file should be."""
    for path in (db, db.with_name(db.name + ".wal")):
        path.unlink(missing_ok=True)
    db.mkdir()


DAMAGES: dict[str, Callable[[Path], None]] = {
    "truncated": truncate,
    "garbage-header": garbage_header,
    "flipped-bytes": flip_bytes,
    "corrupt-wal": damage_wal,
    "sqlite-file": sqlite_file,
    "directory": directory,
}


def fill_disk(directory: Path, *, leave: int = 0) -> Path:
    """Write zeros until the disk holding `directory` is full, then give back `leave` bytes (room
    for a small write, not for a big one); returns the file to delete."""
    filler = directory / "filler"
    with filler.open("wb", buffering=0) as fh:
        for chunk in (b"\0" * (64 * 1024), b"\0" * 512):  # then the last partial chunk's room
            try:
                while fh.write(chunk):
                    pass
            except OSError:
                pass
        if leave:
            fh.truncate(max(0, fh.tell() - leave))
    return filler
