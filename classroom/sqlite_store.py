"""Class state in one SQLite file (the default: `make run` and `make serve` need nothing
else). WAL mode lets workers read while one writes; every change runs in a
BEGIN IMMEDIATE transaction, so several processes never interleave a read-check-write."""

from __future__ import annotations

import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from classroom import store
from classroom.store import ClassRecord, OpenedClass, PublicState, RoundResult

_SCHEMA = """
CREATE TABLE IF NOT EXISTS classes (
    code TEXT PRIMARY KEY, secret_hash TEXT NOT NULL, steps INTEGER NOT NULL,
    step INTEGER NOT NULL, round INTEGER NOT NULL, phase TEXT NOT NULL,
    options TEXT NOT NULL, closed TEXT NOT NULL, question TEXT NOT NULL DEFAULT '',
    right_answers TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS devices (
    code TEXT NOT NULL, device TEXT NOT NULL, PRIMARY KEY (code, device)
);
CREATE TABLE IF NOT EXISTS detached (
    code TEXT NOT NULL, device TEXT NOT NULL, PRIMARY KEY (code, device)
);
CREATE TABLE IF NOT EXISTS votes (
    code TEXT NOT NULL, step INTEGER NOT NULL, round INTEGER NOT NULL,
    device TEXT NOT NULL, option TEXT NOT NULL, PRIMARY KEY (code, step, round, device)
);
CREATE TABLE IF NOT EXISTS vote_rate (
    code TEXT NOT NULL, device TEXT NOT NULL, time_window INTEGER NOT NULL,
    accepted INTEGER NOT NULL, PRIMARY KEY (code, device)
);
"""
_FIELDS = (
    "code",
    "secret_hash",
    "steps",
    "step",
    "round",
    "phase",
    "options",
    "closed",
    "question",
    "right_answers",
)
# Columns added to the classes table since its first release, added to an older file.
_ADDED_COLUMNS = {
    "question": "TEXT NOT NULL DEFAULT ''",
    "right_answers": "TEXT NOT NULL DEFAULT '{}'",
}


_WAIT_SECONDS = 30.0  # how long a connection waits for another process's lock
# SQLite's errors that say the file cannot be used just now, not that a request is wrong:
# another process held its lock past the wait, or the disk is full or failing. (A path
# that cannot be opened is a setting to fix, not a moment to wait out.)
_TRANSIENT = ("locked", "busy", "disk i/o error", "disk is full")


@contextmanager
def _reachable() -> Iterator[None]:
    """SQLite's transient errors as the store's StoreUnavailableError (503: the class goes
    on, ask again), where a bare OperationalError would end the page's run."""
    try:
        yield
    except sqlite3.OperationalError as error:
        if not any(words in str(error).lower() for words in _TRANSIENT):
            raise
        raise store.StoreUnavailableError() from error


def _use_wal(db: sqlite3.Connection, wait_seconds: float) -> None:
    """Switch the file to WAL mode. Workers opening a fresh file at the same moment can be
    told "database is locked" at once here (the switch does not wait as a write does: a
    cluster's worker died of it at start), so it tries again for up to `wait_seconds`."""
    deadline = time.monotonic() + wait_seconds
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


class SQLiteClassStore(store.LecturerSteps):
    """store.ClassStore in an SQLite file. Connections are pooled: a transaction borrows
    an idle one (or opens one) and gives it back, so the pool holds as many as ran at
    once. (One per thread leaked: Streamlit runs each script run on a new thread.)"""

    def __init__(
        self,
        path: str | Path,
        clock: Callable[[], float] = time.time,
        wait_seconds: float = _WAIT_SECONDS,
    ) -> None:
        """`wait_seconds`: how long a request waits for another process's lock before the
        store refuses it as unavailable."""
        self.path = Path(path)
        self._wait_seconds = wait_seconds
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._clock = clock
        self._idle: queue.SimpleQueue[sqlite3.Connection] = queue.SimpleQueue()
        self._connections: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        with self._write() as db:
            for statement in filter(str.strip, _SCHEMA.split(";")):
                db.execute(statement)
            columns = {row[1] for row in db.execute("PRAGMA table_info(classes)")}
            for name, kind in _ADDED_COLUMNS.items():
                if name not in columns:
                    db.execute(f"ALTER TABLE classes ADD COLUMN {name} {kind}")

    def _open_connection(self) -> sqlite3.Connection:
        # isolation_level=None: we issue BEGIN/COMMIT ourselves; timeout waits for
        # another process's write lock instead of failing at once.
        db = sqlite3.connect(
            self.path, timeout=self._wait_seconds, isolation_level=None, check_same_thread=False
        )
        _use_wal(db, self._wait_seconds)
        db.execute("PRAGMA synchronous=FULL")  # an acknowledged vote survives a crash
        with self._lock:
            self._connections.append(db)
        return db

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        """An idle pooled connection (or a new one) for one transaction."""
        with _reachable():
            try:
                db = self._idle.get_nowait()
            except queue.Empty:
                db = self._open_connection()
            try:
                yield db
            finally:
                if db.in_transaction:  # a COMMIT that failed: nothing half-done goes back
                    db.execute("ROLLBACK")
                self._idle.put(db)

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """A write transaction that takes the file's write lock up front."""
        with self._connection() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                if db.in_transaction:  # SQLite itself rolls back on a full disk
                    db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: one consistent snapshot."""
        with self._connection() as db:
            db.execute("BEGIN")
            try:
                yield db
            finally:
                if db.in_transaction:
                    db.execute("COMMIT")

    @staticmethod
    def _record(db: sqlite3.Connection, code: str) -> ClassRecord | None:
        row = db.execute(
            f"SELECT {', '.join(_FIELDS)} FROM classes WHERE code = ?", (code,)
        ).fetchone()
        if row is None:
            return None
        return ClassRecord.from_fields(dict(zip(_FIELDS, row, strict=True)))

    @staticmethod
    def _save(db: sqlite3.Connection, record: ClassRecord) -> None:
        fields = record.to_fields()
        db.execute(
            f"INSERT OR REPLACE INTO classes ({', '.join(_FIELDS)}) "
            f"VALUES ({', '.join('?' * len(_FIELDS))})",
            [fields[name] for name in _FIELDS],
        )

    @staticmethod
    def _answers(db: sqlite3.Connection, code: str, step: int, round: int) -> list[str]:
        rows = db.execute(
            "SELECT option FROM votes WHERE code = ? AND step = ? AND round = ?",
            (code, step, round),
        )
        return [option for (option,) in rows]

    def _public(self, db: sqlite3.Connection, record: ClassRecord) -> PublicState:
        (joined,) = db.execute(
            "SELECT COUNT(*) FROM devices WHERE code = ?", (record.code,)
        ).fetchone()
        (detached,) = db.execute(
            "SELECT COUNT(*) FROM detached WHERE code = ?", (record.code,)
        ).fetchone()
        answers = self._answers(db, record.code, record.step, record.round)
        return store.public_state(record, joined, answers, detached)

    def open_class(self, steps: int, options: Sequence[str] = ()) -> OpenedClass:
        while True:
            record, secret = store.new_record(steps, options)
            with self._write() as db:
                if self._record(db, record.code) is None:
                    self._save(db, record)
                    return OpenedClass(record.code, secret)

    def state(self, code: str) -> PublicState:
        code = store.normalise_code(code)
        with self._read() as db:
            return self._public(db, store.require_open(self._record(db, code)))

    def _lecturer_change(
        self, code: str, secret: str, change: Callable[[ClassRecord], ClassRecord]
    ) -> PublicState:
        code = store.normalise_code(code)
        with self._write() as db:
            record = store.require_lecturer(self._record(db, code), secret)
            record = change(store.require_open(record))
            self._save(db, record)
            return self._public(db, record)

    def close_class(self, code: str, secret: str) -> None:
        code = store.normalise_code(code)
        with self._write() as db:
            record = store.require_lecturer(self._record(db, code), secret)
            self._save(db, store.ended(record))

    def results(self, code: str, secret: str) -> list[RoundResult]:
        code = store.normalise_code(code)
        with self._read() as db:
            record = store.require_lecturer(self._record(db, code), secret)
            rounds = db.execute(
                "SELECT DISTINCT step, round FROM votes WHERE code = ? ORDER BY step, round",
                (code,),
            ).fetchall()
            return [
                store.round_result(record, step, round, self._answers(db, code, step, round))
                for step, round in rounds
            ]

    def join(self, code: str, device: str) -> PublicState:
        code, device = store.normalise_code(code), store.check_device(device)
        with self._write() as db:
            record = store.require_open(self._record(db, code))
            db.execute("INSERT OR IGNORE INTO devices VALUES (?, ?)", (code, device))
            return self._public(db, record)

    def set_detached(self, code: str, device: str, detached: bool) -> PublicState:
        code, device = store.normalise_code(code), store.check_device(device)
        with self._write() as db:
            record = store.require_open(self._record(db, code))
            self._require_joined(db, code, device)
            if detached:
                db.execute("INSERT OR IGNORE INTO detached VALUES (?, ?)", (code, device))
            else:
                db.execute("DELETE FROM detached WHERE code = ? AND device = ?", (code, device))
            return self._public(db, record)

    @staticmethod
    def _require_joined(db: sqlite3.Connection, code: str, device: str) -> None:
        if not db.execute(
            "SELECT 1 FROM devices WHERE code = ? AND device = ?", (code, device)
        ).fetchone():
            raise store.VoteRefusedError("Join the class first.")

    def vote(self, code: str, device: str, step: int, round: int, option: str) -> PublicState:
        code, device = store.normalise_code(code), store.check_device(device)
        window = store.rate_window(self._clock())
        with self._write() as db:
            record = store.require_open(self._record(db, code))
            if not db.execute(
                "SELECT 1 FROM devices WHERE code = ? AND device = ?", (code, device)
            ).fetchone():
                raise store.VoteRefusedError("Join the class before answering.")
            store.check_vote(record, step, round, option)
            accepted = self._accepted_in_window(db, code, device, window)
            store.check_rate(accepted)
            db.execute(
                "INSERT OR REPLACE INTO vote_rate VALUES (?, ?, ?, ?)",
                (code, device, window, accepted + 1),
            )
            db.execute(
                "INSERT INTO votes VALUES (?, ?, ?, ?, ?) ON CONFLICT (code, step, round, "
                "device) DO UPDATE SET option = excluded.option",
                (code, step, round, device, option),
            )
            return self._public(db, record)

    @staticmethod
    def _accepted_in_window(db: sqlite3.Connection, code: str, device: str, window: int) -> int:
        row = db.execute(
            "SELECT accepted FROM vote_rate WHERE code = ? AND device = ? AND time_window = ?",
            (code, device, window),
        ).fetchone()
        return 0 if row is None else row[0]

    def ping(self) -> None:
        with self._read() as db:
            db.execute("SELECT 1").fetchone()

    def close(self) -> None:
        with self._lock:
            for db in self._connections:
                db.close()
            self._connections.clear()
        self._idle = queue.SimpleQueue()
