"""Content files in the top-level `assets/` folder (sentences, the translation vocabulary
and examples, the page-3 task's texts), read as TOML or CSV.

The folder is found relative to this package. Each content module checks its own data
on load with the helpers below, so a bad file fails at import with a ValueError that
names the file and the entry, never later in a page.
"""

from __future__ import annotations

import csv
import io
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from attention.wording import plural

ASSETS_DIR = Path(__file__).resolve().parent.parent / "assets"


class AssetError(ValueError):
    """A content file is missing, unreadable or holds a bad entry; the message says which."""


@dataclass(frozen=True)
class CsvRow:
    """One data row of a CSV file: its line number (for messages) and its cells by column."""

    line: int
    cells: dict[str, str]


def asset_label(name: str, root: Path | None = None) -> str:
    """How messages name a file: 'assets/…' for the app's own folder, else the full path."""
    root = ASSETS_DIR if root is None else root
    return f"assets/{name}" if root == ASSETS_DIR else str(root / name)


def _read_text(name: str, root: Path | None) -> str:
    path = (ASSETS_DIR if root is None else root) / name
    label = asset_label(name, root)
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise AssetError(
            f"{label}: file not found (the app's content files live in assets/)."
        ) from None
    except UnicodeDecodeError as error:
        raise AssetError(
            f"{label}: not UTF-8 text ({error.reason} at byte {error.start})."
        ) from None


def read_toml(name: str, root: Path | None = None) -> dict:
    """The TOML file `name` under `root` (default: the app's assets/) as a dict."""
    text = _read_text(name, root)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise AssetError(f"{asset_label(name, root)}: not valid TOML: {error}.") from None


def read_csv(name: str, columns: tuple[str, ...], root: Path | None = None) -> list[CsvRow]:
    """The CSV file `name`: its header must be exactly `columns`; every row must fill each
    column once. Blank lines are skipped."""
    label = asset_label(name, root)
    reader = csv.reader(io.StringIO(_read_text(name, root), newline=""), strict=True)
    try:
        header = next(reader, None)
        if header is None or [c.strip() for c in header] != list(columns):
            raise AssetError(
                f"{label}, line 1: the header must be {','.join(columns)}; got "
                f"{','.join(header or [])!r}."
            )
        rows = []
        for cells in reader:
            if not any(c.strip() for c in cells):
                continue
            if len(cells) != len(columns):
                raise AssetError(
                    f"{label}, line {reader.line_num}: {len(cells)} "
                    f"{plural(len(cells), 'cell')}, expected {len(columns)} "
                    f"({', '.join(columns)})."
                )
            stripped = (c.strip() for c in cells)
            rows.append(CsvRow(reader.line_num, dict(zip(columns, stripped, strict=True))))
    except csv.Error as error:
        raise AssetError(f"{label}, line {reader.line_num}: not valid CSV: {error}.") from None
    return rows


TEXT = "a non-empty text"
TEXTS = "a list of non-empty texts"
TABLES = "a list of tables"
_IS = {
    TEXT: lambda v: isinstance(v, str) and bool(v.strip()),
    TEXTS: lambda v: isinstance(v, list) and all(_IS[TEXT](x) for x in v),
    TABLES: lambda v: isinstance(v, list) and all(isinstance(x, dict) for x in v),
}


def check_fields(entry: object, where: str, fields: Mapping[str, str]) -> dict:
    """`entry` as a dict with exactly the keys of `fields`, each value of its kind (TEXT,
    TEXTS or TABLES); an AssetError names `where` and the field."""
    if not isinstance(entry, dict):
        raise AssetError(f"{where}: expected a table of fields, got {entry!r}.")
    for key in entry:
        if key not in fields:
            raise AssetError(f"{where}: unknown field {key!r} (expected: {', '.join(fields)}).")
    for key, kind in fields.items():
        if key not in entry:
            raise AssetError(f"{where}: missing field {key!r}.")
        if not _IS[kind](entry[key]):
            raise AssetError(f"{where}: field {key!r} must be {kind}; got {entry[key]!r}.")
    return entry


def check_choice(value: str, allowed: tuple[str, ...], what: str, where: str) -> str:
    """`value` if it is one of `allowed`, else an AssetError listing them."""
    if value not in allowed:
        raise AssetError(f"{where}: {what} {value!r} is not one of: {', '.join(allowed)}.")
    return value
