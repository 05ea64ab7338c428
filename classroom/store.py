"""The live class's state behind one interface: what a class holds, who may change it,
and the errors a bad request gets. Backends (SQLite, Redis) only load and save records;
every rule lives here so both apply the same ones. No Streamlit here."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, Protocol

# Join codes: capitals and digits without look-alikes (no 0/O, 1/I/L).
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 6
_CODE_PATTERN = re.compile(f"[{CODE_ALPHABET}]{{4,8}}")
# A device id is a random URL-safe token the student's browser keeps (new_device_id()).
_DEVICE_PATTERN = re.compile(r"[A-Za-z0-9_-]{16,64}")
MAX_OPTION_CHARS = 200
MAX_OPTIONS = 12
# The step's question as the projector filled it (plain text; escaped wherever shown).
MAX_QUESTION_CHARS = 600
MAX_STEPS = 200
# A flood of votes from one device: at most VOTE_LIMIT accepted votes per VOTE_WINDOW
# seconds (fixed windows); the rest are refused with RateLimitedError.
VOTE_LIMIT = 5
VOTE_WINDOW = 10.0

Phase = Literal["asking", "revealed"]


class ClassStoreError(Exception):
    """A request the class store refused; nothing was changed. `status` is the HTTP code
    an endpoint answers with."""

    status = 400


class MalformedRequestError(ClassStoreError):
    """A code, device id, step or option that cannot be valid (wrong shape or size)."""


class UnknownClassError(ClassStoreError):
    """No class has this code."""

    status = 404


class ClassClosedError(ClassStoreError):
    """The lecturer has closed this class."""

    status = 410


class NotAllowedError(ClassStoreError):
    """Only the lecturer (who holds the class's secret) may do this."""

    status = 403


class VoteRefusedError(ClassStoreError):
    """A vote for a step that is not current, a closed round, or from a device that has
    not joined."""

    status = 409


UNREACHABLE = "The class's store cannot be reached just now; try again in a moment."


class StoreUnavailableError(ClassStoreError):
    """The store cannot be reached just now (Redis restarting, the network gone, SQLite's
    file locked or its disk full): nothing was changed, the class goes on, and the same
    request may work in a moment."""

    status = 503

    def __init__(self, message: str = UNREACHABLE) -> None:
        super().__init__(message)


class RateLimitedError(ClassStoreError):
    """Too many votes from one device in a short time."""

    status = 429


@dataclass(frozen=True)
class OpenedClass:
    """What the lecturer gets on opening a class: the public join code and the secret
    that alone allows driving it (never shown to students; not in repr)."""

    code: str
    secret: str = field(repr=False)


@dataclass(frozen=True)
class ClassRecord:
    """A class's own fields as a backend stores them; the secret only as a hash.
    `right_answers` (step → its right answer, as the lecturer's page sent it) is the
    lecturer's: only results() reads it, never the public state."""

    code: str
    secret_hash: str
    steps: int
    step: int = 1
    round: int = 1
    phase: Phase = "asking"
    options: tuple[str, ...] = ()
    closed: bool = False
    question: str = ""
    right_answers: Mapping[int, str] = field(default_factory=dict)

    def to_fields(self) -> dict[str, str]:
        """Flat string fields (a Redis hash, SQLite columns)."""
        return {
            "code": self.code,
            "secret_hash": self.secret_hash,
            "steps": str(self.steps),
            "step": str(self.step),
            "round": str(self.round),
            "phase": self.phase,
            "options": json.dumps(list(self.options)),
            "closed": "1" if self.closed else "0",
            "question": self.question,
            "right_answers": json.dumps(
                {str(step): right for step, right in self.right_answers.items()}
            ),
        }

    @classmethod
    def from_fields(cls, fields: Mapping[str, str]) -> ClassRecord:
        """The inverse of to_fields."""
        return cls(
            code=fields["code"],
            secret_hash=fields["secret_hash"],
            steps=int(fields["steps"]),
            step=int(fields["step"]),
            round=int(fields["round"]),
            phase="revealed" if fields["phase"] == "revealed" else "asking",
            options=tuple(json.loads(fields["options"])),
            closed=fields["closed"] == "1",
            question=fields.get("question") or "",  # a record saved before questions
            right_answers={  # "{}" for a record saved before right answers
                int(step): right
                for step, right in json.loads(fields.get("right_answers") or "{}").items()
            },
        )


@dataclass(frozen=True)
class PublicState:
    """What anyone may read about a class: no secret, no device id."""

    code: str
    step: int
    steps: int
    phase: Phase
    round: int
    joined: int
    answered: int
    votes: dict[str, int]
    detached: int = 0  # joined students exploring alone, not following the lecturer
    question: str = ""  # the step's question as the projector filled it; "" until it does

    def to_json(self) -> dict[str, object]:
        """The body of GET /api/classes/CODE."""
        return {
            "code": self.code,
            "step": self.step,
            "steps": self.steps,
            "phase": self.phase,
            "round": self.round,
            "joined": self.joined,
            "detached": self.detached,
            "answered": self.answered,
            "votes": dict(self.votes),
            "question": self.question,
        }


@dataclass(frozen=True)
class RoundResult:
    """One step's round for the results CSV: counts per option, how many answered and the
    step's right answer ("" when the lecturer's page never sent it)."""

    step: int
    round: int
    votes: dict[str, int]
    answered: int
    right: str = ""


class ClassStore(Protocol):
    """Class state shared by every worker. Lecturer operations take the class's secret;
    student operations take a device id. Every refusal raises a ClassStoreError and
    changes nothing."""

    def open_class(self, steps: int, options: Sequence[str] = ()) -> OpenedClass:
        """Open a class at step 1, round 1, asking; `options` are step 1's answers."""
        ...

    def state(self, code: str) -> PublicState:
        """The public state of an open class."""
        ...

    def set_step(
        self,
        code: str,
        secret: str,
        step: int,
        options: Sequence[str] = (),
        question: str = "",
        right: str = "",
    ) -> PublicState:
        """Lecturer: go to `step` (1-based) with its answer options, its question as the
        projector filled it and its right answer (one of the options; kept for the results
        only, never public; "" keeps the one the step had); round 1, asking."""
        ...

    def reveal(self, code: str, secret: str) -> PublicState:
        """Lecturer: close the current round's vote and show the answer."""
        ...

    def open_second_round(self, code: str, secret: str) -> PublicState:
        """Lecturer: vote again on the current step (round 2, asking)."""
        ...

    def check_lecturer(self, code: str, secret: str) -> PublicState:
        """Lecturer: the public state if `secret` drives this open class (the console
        checks a handed-over secret with it); changes nothing."""
        ...

    def close_class(self, code: str, secret: str) -> None:
        """Lecturer: end the class; students then get ClassClosedError."""
        ...

    def results(self, code: str, secret: str) -> list[RoundResult]:
        """Lecturer (also after closing): every step and round that got votes, with the
        step's right answer."""
        ...

    def join(self, code: str, device: str) -> PublicState:
        """Student: join with the browser's device id (joining twice counts once)."""
        ...

    def vote(self, code: str, device: str, step: int, round: int, option: str) -> PublicState:
        """Student: answer the current step and round; the device's latest answer wins.
        Returns once the store has the vote (the acknowledgement)."""
        ...

    def set_detached(self, code: str, device: str, detached: bool) -> PublicState:
        """Student: exploring alone (True) or following the lecturer again (False);
        the public state counts the devices exploring alone."""
        ...

    def ping(self) -> None:
        """Return once the store answers; StoreUnavailableError while it cannot be reached
        (a page waiting out an outage asks this, whatever class it shows)."""
        ...

    def close(self) -> None:
        """Release the backend's connections."""
        ...


def new_device_id() -> str:
    """A random device id for a student's browser: no personal data."""
    return secrets.token_urlsafe(16)


def new_code() -> str:
    """A random join code, independent of the secret."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def new_secret() -> str:
    """The lecturer's secret: 256 random bits."""
    return secrets.token_urlsafe(32)


def hash_secret(secret: str) -> str:
    """Stores keep only this hash, so reading the store does not give the right to drive."""
    return hashlib.sha256(secret.encode()).hexdigest()


def normalise_code(code: object) -> str:
    """The code in capitals, or MalformedRequestError if it cannot be a join code (checked on
    the length first, so a 10,000-character code costs nothing)."""
    if not isinstance(code, str) or len(code.strip()) > 8:
        raise MalformedRequestError("A class code has 4 to 8 letters and digits.")
    code = code.strip().upper()
    if not _CODE_PATTERN.fullmatch(code):
        raise MalformedRequestError("A class code has 4 to 8 letters and digits.")
    return code


def check_device(device: object) -> str:
    """The device id if it has the shape new_device_id() gives, else MalformedRequestError."""
    if not isinstance(device, str) or not _DEVICE_PATTERN.fullmatch(device):
        raise MalformedRequestError("This device id is not valid.")
    return device


def check_options(options: Sequence[str]) -> tuple[str, ...]:
    """A step's answer options: distinct non-empty texts, a handful, each short."""
    if isinstance(options, str):
        raise MalformedRequestError("Options are a list of texts.")
    options = tuple(options)
    if len(options) > MAX_OPTIONS or len(set(options)) != len(options):
        raise MalformedRequestError(f"A step has at most {MAX_OPTIONS} distinct options.")
    for option in options:
        if not isinstance(option, str) or not 0 < len(option) <= MAX_OPTION_CHARS:
            raise MalformedRequestError(f"An option has 1 to {MAX_OPTION_CHARS} characters.")
    return options


def check_question(question: object) -> str:
    """A step's question as the projector filled it: plain text, at most MAX_QUESTION_CHARS."""
    if not isinstance(question, str) or len(question) > MAX_QUESTION_CHARS:
        raise MalformedRequestError(f"A question has at most {MAX_QUESTION_CHARS} characters.")
    return question


def check_right(right: object, options: Sequence[str]) -> str:
    """A step's right answer: "" (not sent) or one of the step's options (so no longer
    than an option)."""
    if right != "" and (not isinstance(right, str) or right not in options):
        raise MalformedRequestError("The right answer must be one of the step's options.")
    return right


def check_steps(steps: object) -> int:
    """A class's number of steps."""
    if not isinstance(steps, int) or isinstance(steps, bool) or not 1 <= steps <= MAX_STEPS:
        raise MalformedRequestError(f"A class has 1 to {MAX_STEPS} steps.")
    return steps


def _check_whole(value: object, low: int, high: int, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise MalformedRequestError(f"The {name} must be a whole number from {low} to {high}.")
    return value


def new_record(steps: int, options: Sequence[str]) -> tuple[ClassRecord, str]:
    """A fresh class record and its secret (the code is drawn here; a backend that finds
    it taken draws again)."""
    secret = new_secret()
    record = ClassRecord(
        code=new_code(),
        secret_hash=hash_secret(secret),
        steps=check_steps(steps),
        options=check_options(options),
    )
    return record, secret


def require_open(record: ClassRecord | None) -> ClassRecord:
    """The record of an open class, or UnknownClassError / ClassClosedError."""
    if record is None:
        raise UnknownClassError("No class has this code. Check the code on the projector.")
    if record.closed:
        raise ClassClosedError("This class has ended.")
    return record


def require_lecturer(record: ClassRecord | None, secret: object) -> ClassRecord:
    """The record if `secret` is the class's own (compared in constant time)."""
    if record is None:
        raise UnknownClassError("No class has this code.")
    given = hash_secret(secret) if isinstance(secret, str) else ""
    if not hmac.compare_digest(given, record.secret_hash):
        raise NotAllowedError("Only the lecturer can do this.")
    return record


def with_step(
    record: ClassRecord,
    step: object,
    options: Sequence[str],
    question: object = "",
    right: object = "",
) -> ClassRecord:
    """The class moved to `step`: round 1, asking, the step's options and question, and
    its right answer kept with the earlier steps' ("" keeps the step's known one: the
    console's Back and Next send none)."""
    step = _check_whole(step, 1, record.steps, "step")
    options = check_options(options)
    right = check_right(right, options)
    return replace(
        record,
        step=step,
        round=1,
        phase="asking",
        options=options,
        question=check_question(question),
        right_answers={**record.right_answers, step: right} if right else record.right_answers,
    )


def revealed(record: ClassRecord) -> ClassRecord:
    """The class with the current round's answer shown (its vote closed)."""
    return replace(record, phase="revealed")


def second_round(record: ClassRecord) -> ClassRecord:
    """The class voting again on the same step; only once per step."""
    if record.round != 1:
        raise VoteRefusedError("This step already has a second round.")
    return replace(record, round=2, phase="asking")


def ended(record: ClassRecord) -> ClassRecord:
    """The class closed by its lecturer."""
    return replace(record, closed=True)


def check_vote(record: ClassRecord, step: object, round: object, option: object) -> None:
    """Refuse a vote for a step that is not current, a closed round or an unknown option."""
    step = _check_whole(step, 1, MAX_STEPS, "step")
    round = _check_whole(round, 1, 2, "round")
    if not isinstance(option, str) or len(option) > MAX_OPTION_CHARS:
        raise MalformedRequestError("An answer is one of the step's options.")
    if step != record.step:
        raise VoteRefusedError("The class has moved to another step.")
    if round != record.round or record.phase != "asking":
        raise VoteRefusedError("This round's vote is closed.")
    if option not in record.options:
        raise VoteRefusedError("This is not one of the step's answers.")


def rate_window(now: float) -> int:
    """The number of the rate limit's fixed time window that `now` falls in."""
    return int(now // VOTE_WINDOW)


def check_rate(accepted_in_window: int) -> None:
    """Refuse a device's vote once it has VOTE_LIMIT accepted votes in this window."""
    if accepted_in_window >= VOTE_LIMIT:
        raise RateLimitedError("Too many answers at once: wait a few seconds.")


def public_state(
    record: ClassRecord, joined: int, answers: Sequence[str], detached: int = 0
) -> PublicState:
    """The public view of a record, given how many joined, the current round's answers
    (one per device) and how many explore alone."""
    counts = Counter(answers)
    return PublicState(
        code=record.code,
        step=record.step,
        steps=record.steps,
        phase=record.phase,
        round=record.round,
        joined=joined,
        answered=len(answers),
        votes={option: counts.get(option, 0) for option in record.options},
        detached=detached,
        question=record.question,
    )


def round_result(record: ClassRecord, step: int, round: int, answers: Sequence[str]) -> RoundResult:
    """One round's counts per option from its answers (one per device), with the step's
    right answer as `record` keeps it."""
    return RoundResult(
        step=step,
        round=round,
        votes=dict(Counter(answers)),
        answered=len(answers),
        right=record.right_answers.get(step, ""),
    )


class LecturerSteps:
    """The lecturer's changes of step and phase, the same for every backend: each is one
    change of the class record through the backend's `_lecturer_change`, which checks the
    secret and that the class is open, and saves the change atomically."""

    def _lecturer_change(
        self, code: str, secret: str, change: Callable[[ClassRecord], ClassRecord]
    ) -> PublicState:
        raise NotImplementedError

    def set_step(
        self,
        code: str,
        secret: str,
        step: int,
        options: Sequence[str] = (),
        question: str = "",
        right: str = "",
    ) -> PublicState:
        return self._lecturer_change(
            code, secret, lambda record: with_step(record, step, options, question, right)
        )

    def reveal(self, code: str, secret: str) -> PublicState:
        return self._lecturer_change(code, secret, revealed)

    def open_second_round(self, code: str, secret: str) -> PublicState:
        return self._lecturer_change(code, secret, second_round)

    def check_lecturer(self, code: str, secret: str) -> PublicState:
        return self._lecturer_change(code, secret, lambda record: record)
