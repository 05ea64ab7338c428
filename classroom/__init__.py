"""The live class: class state behind one interface (classroom.store.ClassStore) with an
SQLite backend (the default) and a Redis one, chosen by HEADSPACES_CLASS_STORE."""

from __future__ import annotations

import os
from pathlib import Path

from classroom.store import ClassStore

STORE_SETTING = "HEADSPACES_CLASS_STORE"
# The default: one SQLite file in the project's data folder (git-ignored).
DEFAULT_SQLITE_PATH = Path(__file__).resolve().parent.parent / "artifacts" / "classroom.sqlite3"


def open_store(url: str | None = None) -> ClassStore:
    """The class store at `url`, else at $HEADSPACES_CLASS_STORE, else the default SQLite
    file. `sqlite:///absolute/path.sqlite3` or `redis://host:port/db` (`rediss://` for TLS)."""
    url = url or os.environ.get(STORE_SETTING) or f"sqlite://{DEFAULT_SQLITE_PATH}"
    if url.startswith("sqlite://"):
        from classroom.sqlite_store import SQLiteClassStore

        path = url.removeprefix("sqlite://")
        if not path.startswith("/"):
            raise ValueError(f"{STORE_SETTING}: write sqlite:///absolute/path, not {url!r}")
        return SQLiteClassStore(path)
    if url.startswith(("redis://", "rediss://")):
        from classroom.redis_store import RedisClassStore

        return RedisClassStore.from_url(url)
    raise ValueError(f"{STORE_SETTING} must start with sqlite:/// or redis://, not {url!r}")
