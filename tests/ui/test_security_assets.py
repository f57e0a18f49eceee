"""The dashboard's scripts are vendored, pinned and licensed, and ship with the package: it works
offline, loads nothing from elsewhere, and every file the CSP lets it load is one listed here."""

from __future__ import annotations

import hashlib
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).parents[2]
PACKAGE = ROOT / "src" / "mixseek"
UI = PACKAGE / "ui"
VENDOR = UI / "static" / "vendor"


def vendored_table() -> dict[str, tuple[str, str, str]]:
    """VENDORED.md's rows: file -> (version, source URL, sha256)."""
    rows = {}
    for line in (VENDOR / "VENDORED.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and cells[0].startswith("`"):
            rows[cells[0].strip("`")] = (cells[2], cells[4], cells[5].strip("`"))
    return rows


def test_every_vendored_script_is_listed_with_its_sha256_and_licence() -> None:
    table = vendored_table()
    scripts = sorted(p.name for p in VENDOR.glob("*.js"))
    assert scripts == sorted(table) == ["htmx-ext-sse.min.js", "htmx.min.js"]
    for name, (version, source, sha256) in table.items():
        assert hashlib.sha256((VENDOR / name).read_bytes()).hexdigest() == sha256, name
        assert source.startswith("https://registry.npmjs.org/") and source.endswith(f"-{version}.tgz")
        licence = VENDOR / name.replace(".min.js", ".LICENSE")
        assert "Permission to use, copy, modify, and/or distribute this software" in licence.read_text()
    assert table["htmx.min.js"][0].startswith("2.")
    assert 'version:"2.0.11"' in (VENDOR / "htmx.min.js").read_text(encoding="utf-8")


def test_the_layout_loads_only_files_of_this_package() -> None:
    base = (UI / "templates" / "base.html").read_text(encoding="utf-8")
    loaded = re.findall(r'(?:src|href)="([^"]+)"', base)
    assets = [url for url in loaded if url.startswith("/static/")]
    assert assets and all((UI / url.removeprefix("/")).is_file() for url in assets)
    assert all(url.startswith("/") and not url.startswith("//") for url in loaded)


def test_the_templates_and_static_files_are_package_data() -> None:
    """Every template and static file of the dashboard matches a `package-data` pattern, so a
    wheel (not only an editable install) carries them."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["mixseek"]
    shipped = {path for pattern in patterns for path in PACKAGE.glob(pattern) if path.is_file()}
    needed = {
        path
        for folder in (UI / "templates", UI / "static")
        for path in folder.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    assert sorted(str(p.relative_to(PACKAGE)) for p in needed - shipped) == []
