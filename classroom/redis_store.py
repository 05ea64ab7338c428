"""Class state in Redis, for workers on several machines
(HEADSPACES_CLASS_STORE=redis://host:6379/0). Each change is an optimistic transaction:
WATCH the class's record, check it with the rules of classroom.store, then MULTI/EXEC the
writes (retried if the record changed meanwhile), so a vote racing the lecturer's Reveal
is either counted before it or refused. Keys are namespaced per class."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TypeVar

import redis
from redis.client import Pipeline

from classroom import store
from classroom.store import ClassRecord, OpenedClass, PublicState, RoundResult

T = TypeVar("T")
PREFIX = "headspaces"


@contextmanager
def _reachable() -> Iterator[None]:
    """Redis's connection errors as the store's own refusal: a StoreUnavailableError, which
    says the class goes on (a restarting server), where a bare ConnectionError would end
    whatever reads the class (a page's run, an event stream's watcher)."""
    try:
        yield
    except (redis.ConnectionError, redis.TimeoutError) as error:
        raise store.StoreUnavailableError() from error


class RedisClassStore(store.LecturerSteps):
    """store.ClassStore in a Redis server."""

    def __init__(self, client: redis.Redis, clock: Callable[[], float] = time.time) -> None:
        self._client = client
        self._clock = clock

    @classmethod
    def from_url(cls, url: str, clock: Callable[[], float] = time.time) -> RedisClassStore:
        """A store on the server at `url` (redis://host:port/db)."""
        return cls(redis.Redis.from_url(url, decode_responses=True, socket_timeout=10), clock)

    @staticmethod
    def _key(code: str, *parts: object) -> str:
        """`headspaces:class:{CODE}[:part...]`; the braces keep a class's keys in one
        Redis Cluster slot."""
        return ":".join([f"{PREFIX}:class:{{{code}}}", *map(str, parts)])

    def _load(self, pipe: redis.Redis | Pipeline, code: str) -> ClassRecord | None:
        fields = pipe.hgetall(self._key(code))
        return ClassRecord.from_fields(fields) if fields else None

    def _retrying(self, attempt: Callable[[Pipeline], T], *watched: str) -> T:
        """Run `attempt` with `watched` keys watched until its EXEC goes through."""
        with _reachable():
            while True:
                with self._client.pipeline() as pipe:
                    try:
                        pipe.watch(*watched)
                        return attempt(pipe)
                    except redis.WatchError:
                        continue

    def _queue_public_reads(self, pipe: Pipeline, record: ClassRecord) -> None:
        """Queue, last in a MULTI, the reads public_state needs."""
        pipe.scard(self._key(record.code, "devices"))
        pipe.hvals(self._key(record.code, "votes", record.step, record.round))
        pipe.scard(self._key(record.code, "detached"))

    @staticmethod
    def _public(record: ClassRecord, replies: list) -> PublicState:
        """The public state from a MULTI whose last three replies are _queue_public_reads'."""
        joined, answers, detached = replies[-3:]
        return store.public_state(record, joined, answers, detached)

    def open_class(self, steps: int, options: Sequence[str] = ()) -> OpenedClass:
        while True:
            record, secret = store.new_record(steps, options)

            def attempt(pipe: Pipeline, record: ClassRecord = record) -> bool:
                if pipe.exists(self._key(record.code)):
                    return False  # the code is taken: draw another
                pipe.multi()
                pipe.hset(self._key(record.code), mapping=record.to_fields())
                pipe.execute()
                return True

            if self._retrying(attempt, self._key(record.code)):
                return OpenedClass(record.code, secret)

    def state(self, code: str) -> PublicState:
        code = store.normalise_code(code)

        def attempt(pipe: Pipeline) -> PublicState:
            record = store.require_open(self._load(pipe, code))
            pipe.multi()
            self._queue_public_reads(pipe, record)
            return self._public(record, pipe.execute())

        return self._retrying(attempt, self._key(code))

    def _lecturer_change(
        self, code: str, secret: str, change: Callable[[ClassRecord], ClassRecord]
    ) -> PublicState:
        code = store.normalise_code(code)

        def attempt(pipe: Pipeline) -> PublicState:
            record = store.require_lecturer(self._load(pipe, code), secret)
            record = change(store.require_open(record))
            pipe.multi()
            pipe.hset(self._key(code), mapping=record.to_fields())
            self._queue_public_reads(pipe, record)
            return self._public(record, pipe.execute())

        return self._retrying(attempt, self._key(code))

    def close_class(self, code: str, secret: str) -> None:
        code = store.normalise_code(code)

        def attempt(pipe: Pipeline) -> None:
            record = store.require_lecturer(self._load(pipe, code), secret)
            pipe.multi()
            pipe.hset(self._key(code), mapping=store.ended(record).to_fields())
            pipe.execute()

        self._retrying(attempt, self._key(code))

    def results(self, code: str, secret: str) -> list[RoundResult]:
        code = store.normalise_code(code)
        with _reachable():
            record = store.require_lecturer(self._load(self._client, code), secret)
            rounds = sorted(
                tuple(map(int, entry.split(":")))
                for entry in self._client.smembers(self._key(code, "rounds"))
            )
            return [
                store.round_result(
                    record, step, round, self._client.hvals(self._key(code, "votes", step, round))
                )
                for step, round in rounds
            ]

    def join(self, code: str, device: str) -> PublicState:
        code, device = store.normalise_code(code), store.check_device(device)

        def attempt(pipe: Pipeline) -> PublicState:
            record = store.require_open(self._load(pipe, code))
            pipe.multi()
            pipe.sadd(self._key(code, "devices"), device)
            self._queue_public_reads(pipe, record)
            return self._public(record, pipe.execute())

        return self._retrying(attempt, self._key(code))

    def set_detached(self, code: str, device: str, detached: bool) -> PublicState:
        code, device = store.normalise_code(code), store.check_device(device)

        def attempt(pipe: Pipeline) -> PublicState:
            record = store.require_open(self._load(pipe, code))
            if not pipe.sismember(self._key(code, "devices"), device):
                raise store.VoteRefusedError("Join the class first.")
            pipe.multi()
            if detached:
                pipe.sadd(self._key(code, "detached"), device)
            else:
                pipe.srem(self._key(code, "detached"), device)
            self._queue_public_reads(pipe, record)
            return self._public(record, pipe.execute())

        return self._retrying(attempt, self._key(code))

    def vote(self, code: str, device: str, step: int, round: int, option: str) -> PublicState:
        code, device = store.normalise_code(code), store.check_device(device)
        rate_key = self._key(code, "rate", device, store.rate_window(self._clock()))

        def attempt(pipe: Pipeline) -> PublicState:
            record = store.require_open(self._load(pipe, code))
            if not pipe.sismember(self._key(code, "devices"), device):
                raise store.VoteRefusedError("Join the class before answering.")
            store.check_vote(record, step, round, option)
            store.check_rate(int(pipe.get(rate_key) or 0))
            pipe.multi()
            pipe.hset(self._key(code, "votes", step, round), device, option)
            pipe.sadd(self._key(code, "rounds"), f"{step}:{round}")
            pipe.incr(rate_key)
            pipe.expire(rate_key, int(2 * store.VOTE_WINDOW))
            self._queue_public_reads(pipe, record)
            return self._public(record, pipe.execute())

        return self._retrying(attempt, self._key(code), rate_key)

    def ping(self) -> None:
        with _reachable():
            self._client.ping()

    def close(self) -> None:
        self._client.close()
