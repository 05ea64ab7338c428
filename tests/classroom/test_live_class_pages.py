"""The live class on the Lesson page, in AppTest sessions sharing a temporary SQLite store:
a lecturer (presenter mode) starts a class, students join by the link's code, follow
Next, vote (acknowledged once the store has it), see the reveal, vote again in round 2,
and learn that the class ended. Who may do what: a student's page has no lecturer
control, whatever its URL says; a vote for a closed round or a step not current, and an
unknown, closed or 10,000-character code, change nothing and get a plain message; the
lecturer's secret appears in no page and no URL."""

from __future__ import annotations

import json

import pytest
import redis

from attention.teaching.lesson.content import lesson_text
from attention.teaching.markdown import literal
from classroom.redis_store import RedisClassStore
from classroom.sqlite_store import SQLiteClassStore
from harness.class_student import class_step as student_step
from tests.support.apptest import chart, chart_keys, open_page
from ui.lesson.steps import LESSON_STEPS
from ui.live.joining import DEVICE
from ui.live.projector import CLOSED, LECTURER, results_file
from ui.live.student import OTHER_VIEW
from view_state.scenario import Scenario

PAGE = "pages/lesson.py"
STEPS = len(lesson_text())  # the questions a class votes on (the last slide has none)
LECTURER_CONTROLS = {"live_start", "live_vote_again", "live_close", "lesson_reveal"}
DEVICES = ["student-one-device-id-0001", "student-two-device-id-0002"]


@pytest.fixture
def store(tmp_path, monkeypatch):
    """The store the app's sessions use (HEADSPACES_CLASS_STORE), read by the test."""
    path = tmp_path / "classes.sqlite3"
    monkeypatch.setenv("HEADSPACES_CLASS_STORE", f"sqlite://{path}")
    store = SQLiteClassStore(path)
    yield store
    store.close()


@pytest.fixture(params=["sqlite", "redis"])
def any_store(request, monkeypatch):
    """The store on each backend: SQLite in a tmp dir, or a redis-server of our own."""
    if request.param == "sqlite":
        yield request.getfixturevalue("store")
        return
    server = request.getfixturevalue("redis_server")
    with redis.Redis.from_url(server.url) as client:
        client.flushdb()
    monkeypatch.setenv("HEADSPACES_CLASS_STORE", server.url)
    store = RedisClassStore.from_url(server.url)
    yield store
    store.close()


def ok(at):
    assert not at.exception, at.exception
    return at


def start_class():
    """A lecturer's presenter-mode session with a class started: (session, code)."""
    at = ok(open_page(PAGE, present="1"))
    ok(at.button(key="live_start").click().run())
    return at, at.query_params["class"]


def join(code: str, device: str, **query: str):
    """A student's session on the join link, after its browser has said its device id."""
    at = ok(open_page(PAGE, **{"class": code, **query}))
    at.session_state[DEVICE] = device
    return ok(at.run())


def texts(at) -> list[str]:
    """Every text the page shows (markdown, captions, messages, headers, labels)."""
    kinds = ("markdown", "caption", "info", "success", "warning", "error", "header", "subheader")
    shown = [element.value for kind in kinds for element in at.get(kind)]
    shown += [str(widget.label) for widget in at.button]
    return [str(text) for text in shown]


def class_step(at) -> int | None:
    """The class's step on a student's screen: its first status line (the step after,
    drawn ahead and hidden, has its own below it)."""
    return student_step(texts(at))


def keys(at) -> set[str]:
    widgets = [*at.button, *at.radio, *at.toggle, *at.selectbox, *at.text_input]
    return {str(widget.key) for widget in widgets}


def press(at, label: str):
    return ok(next(b for b in at.button if b.label == label).click().run())


def vote(at, step: int, round: int, option: str):
    return ok(at.radio(key=f"live_vote_{step}_{round}").set_value(option).run())


def bars(at) -> dict[int, list[int]]:
    """The projector's histogram: round → counts in option order."""
    figure = chart(at, "live_votes")
    return {int(t["name"].split()[-1]): t["x"] for t in figure["data"]}


def test_a_students_screen_holds_the_step_after_as_the_projector_will_ask_it(store):
    """The step after the class's is drawn ahead (hidden until the push announces it):
    asking, round 1, with the answers the projector then publishes, nothing revealed."""
    lecturer, code = start_class()
    student = join(code, DEVICES[0])
    assert class_step(student) == 1
    assert f"Class {code} · Step 2 of {STEPS} · vote open" in texts(student)
    ahead = list(student.radio(key="live_vote_2_1").options)
    assert not student.radio(key="live_vote_2_1").disabled
    assert not any(text.startswith("The answer:") for text in texts(student))
    press(lecturer, "Next ▶")  # the projector computes and publishes step 2's answers
    assert list(store.state(code).votes) == ahead
    ok(lecturer.button(key="lesson_reveal").click().run())
    ok(student.run())
    assert class_step(student) == 2
    assert student.radio(key="live_vote_2_1").disabled  # the class's step 2, revealed
    assert any(text.startswith("The answer:") for text in texts(student))
    assert list(student.radio(key="live_vote_3_1").options)  # and step 3 ahead, asking
    assert not student.radio(key="live_vote_3_1").disabled


def test_on_every_step_a_student_on_the_join_link_asks_what_the_projector_asks(store):
    """Default sentence and settings on both screens: at every step the student's screen
    asks its own question with the projector's answers (never "the projector's question"),
    and the step it drew ahead has the answers the lecturer's Next then publishes (a
    radio's options as drawn: markdown-escaped)."""
    lecturer, code = start_class()
    student = join(code, DEVICES[0])
    for number in range(1, STEPS + 1):
        state = store.state(code)
        assert (state.step, class_step(student)) == (number, number)
        drawn = student.radio(key=f"live_vote_{number}_1").options
        assert list(drawn) == [literal(option) for option in state.votes]
        assert OTHER_VIEW not in texts(student), number
        if number == STEPS:
            break
        ahead = list(student.radio(key=f"live_vote_{number + 1}_1").options)
        press(lecturer, "Next ▶")
        assert [literal(option) for option in store.state(code).votes] == ahead, number + 1
        ok(student.run())


def test_a_class_from_start_to_close(any_store):
    store = any_store
    lecturer, code = start_class()
    secret = lecturer.session_state[LECTURER].secret
    assert len(code) == 6 and secret not in str(lecturer.query_params)
    assert not any(secret in text for text in texts(lecturer))
    assert any(code in text for text in texts(lecturer))  # the code is on the projector

    students = [join(code, device) for device in DEVICES]
    assert store.state(code).joined == 2
    assert f"Step 1 of {STEPS}" in " ".join(texts(students[0]))
    ok(lecturer.run())
    assert any("**2** students joined" in text for text in texts(lecturer))

    press(lecturer, "Next ▶")
    state = store.state(code)
    assert (state.step, state.phase, state.round) == (2, "asking", 1)
    options = list(state.votes)
    for at in students:
        ok(at.run())
        assert class_step(at) == 2
        assert list(at.radio(key="live_vote_2_1").options) == options
    # No one has answered step 2: the projector says so instead of drawing empty bars.
    assert "none yet" in " ".join(texts(lecturer))
    assert "live_votes" not in chart_keys(lecturer)

    vote(students[0], 2, 1, options[0])
    vote(students[1], 2, 1, options[1])
    vote(students[1], 2, 1, options[0])  # the latest answer wins
    assert any("Your answer is in" in text for text in texts(students[1]))
    assert store.state(code).votes[options[0]] == 2 and store.state(code).answered == 2
    ok(lecturer.run())
    assert bars(lecturer) == {1: [2 if o == options[0] else 0 for o in options]}

    ok(lecturer.button(key="lesson_reveal").click().run())
    assert store.state(code).phase == "revealed"
    for at in students:
        ok(at.run())
        assert at.radio(key="live_vote_2_1").disabled
        assert any("answer shown" in text for text in texts(at))
        assert any(text.startswith("The answer:") for text in texts(at))
    # The right answer as the students' pages state it, for the results' share right.
    right = shown_answer(students[0])
    assert right in options

    ok(lecturer.button(key="live_vote_again").click().run())
    assert (store.state(code).round, store.state(code).phase) == (2, "asking")
    ok(students[0].run())
    vote(students[0], 2, 2, options[1])
    ok(lecturer.run())
    assert bars(lecturer) == {
        1: [2 if o == options[0] else 0 for o in options],
        2: [1 if o == options[1] else 0 for o in options],
    }

    ok(lecturer.button(key="live_close").click().run())
    assert "class" not in lecturer.query_params
    ok(students[1].run())
    assert any("This class has ended" in text for text in texts(students[1]))
    results = {(r.step, r.round): r.votes for r in store.results(code, secret)}
    assert results == {(2, 1): {options[0]: 2}, (2, 2): {options[1]: 1}}
    # The closed class's results stay downloadable on the projector.
    (download,) = lecturer.get("download_button")
    assert code in download.proto.label and secret not in download.proto.label
    rows = results_file(store, lecturer.session_state[CLOSED]).decode()
    shares = {o: "1.000" if o == right else "0.000" for o in options}  # one option each round
    assert rows.splitlines()[1:] == [
        f"2,1,{options[0]},2,2,{shares[options[0]]}",
        f"2,2,{options[1]},1,1,{shares[options[1]]}",
    ]


def shown_answer(student) -> str:
    """The right answer as a student's page states it after the reveal."""
    (shown,) = [t for t in texts(student) if t.startswith("The answer:")]
    return shown.split("“", 1)[1].split("”", 1)[0]


def share(cast: list[str], right: str) -> str:
    """The share of the answers cast that were right, as the results CSV writes it."""
    return f"{cast.count(right) / len(cast):.3f}"


def test_a_reloaded_lecturer_still_gets_the_earlier_steps_share_right(store):
    """The right answers live in the store, not in the session: a new session on the
    lecturer's tab (a reload, a dead worker) takes the class back and its results CSV
    fills share_right for the steps the old session drove too."""
    lecturer, code = start_class()
    secret = lecturer.session_state[LECTURER].secret
    students = [join(code, device) for device in DEVICES]
    options, right = {}, {}  # per step: its options and its right answer
    cast = {}  # (step, round): the answers cast

    def two_rounds(projector, step: int, first: list[str]) -> None:
        """Round 1: each student answers `first` in turn, the projector reveals and a
        student's page states the right answer; round 2: one right answer, one wrong."""
        cast[step, 1] = first
        for at, option in zip(students, first, strict=True):
            vote(ok(at.run()), step, 1, option)
        ok(projector.button(key="lesson_reveal").click().run())
        right[step] = shown_answer(ok(students[0].run()))
        assert right[step] in options[step]
        ok(projector.button(key="live_vote_again").click().run())
        cast[step, 2] = [right[step], next(o for o in options[step] if o != right[step])]
        for at, option in zip(students, cast[step, 2], strict=True):
            vote(ok(at.run()), step, 2, option)

    press(lecturer, "Next ▶")
    options[2] = list(store.state(code).votes)
    two_rounds(lecturer, 2, options[2][:2])  # round 1: one student each on two options

    # The tab reloads: a new session, to which the tab hands back the class it kept.
    reloaded = ok(open_page(PAGE, present="1", step="2", **{"class": code}))
    reloaded.session_state["lecturer_tab_lecturer"] = {"kept": {"code": code, "secret": secret}}
    ok(reloaded.run())
    assert reloaded.session_state[LECTURER].code == code
    press(reloaded, "Next ▶")
    assert store.state(code).step == 3
    options[3] = list(store.state(code).votes)
    two_rounds(reloaded, 3, [options[3][0]] * 2)

    ok(reloaded.button(key="live_close").click().run())
    assert reloaded.get("download_button")  # the new session offers the results
    rows = results_file(store, reloaded.session_state[CLOSED]).decode().splitlines()
    assert rows[1:] == [
        f"{step},{round},{option},{answers.count(option)},2,{share(answers, right[step])}"
        for (step, round), answers in sorted(cast.items())
        for option in sorted(set(answers))
    ]
    assert {row.rsplit(",", 1)[1] for row in rows[1:] if row.split(",")[1] == "2"} == {"0.500"}


def test_a_class_started_at_a_later_step_opens_there(store):
    """Start a class on step 3: the class is at step 3 with that step's answers, and the
    session drives it (the move is this run's sync, after the class was opened)."""
    at = ok(open_page(PAGE, present="1", step="3"))
    ok(at.button(key="live_start").click().run())
    code = at.query_params["class"]
    state = store.state(code)
    assert state.step == 3 and at.session_state[LECTURER].code == code
    quiz_key = f"quiz_{LESSON_STEPS[2].text.id}_"
    quiz = next(radio for radio in at.radio if str(radio.key).startswith(quiz_key))
    assert list(state.votes) == list(quiz.options)


def test_a_students_page_never_offers_a_lecturer_control(store):
    lecturer, code = start_class()
    secret = lecturer.session_state[LECTURER].secret
    # A student who adds presenter mode and another step to the link.
    student = join(code, DEVICES[0], present="1", step="5")
    assert not keys(student) & LECTURER_CONTROLS
    assert "present" not in keys(student)
    assert not any(label in texts(student) for label in ("Next ▶", "◀ Back"))
    assert f"Step 1 of {STEPS}" in " ".join(texts(student))
    assert store.state(code).step == 1
    assert not any(secret in text for text in texts(student))
    # Exploring alone: the Lesson's own navigation, still no class control; the projector
    # counts it.
    ok(student.button(key="live_explore").click().run())
    assert store.state(code).detached == 1
    ok(lecturer.run())
    assert any("**1** exploring alone" in text for text in texts(lecturer))
    assert not keys(student) & LECTURER_CONTROLS and "present" not in keys(student)
    press(student, "Next ▶")
    assert store.state(code).step == 1  # the student moved alone, not the class
    ok(student.button(key="live_follow").click().run())
    assert f"Step 1 of {STEPS}" in " ".join(texts(student))
    assert store.state(code).detached == 0


def test_a_vote_for_a_closed_round_or_another_step_changes_nothing(store):
    lecturer, code = start_class()
    student = join(code, DEVICES[0])
    options = list(student.radio(key="live_vote_1_1").options)
    ok(lecturer.button(key="lesson_reveal").click().run())  # the student's page is stale
    vote(student, 1, 1, options[0])
    assert any("Not counted" in t and "closed" in t for t in texts(student))
    assert store.state(code).answered == 0

    press(lecturer, "Next ▶")
    stale = join(code, DEVICES[1])
    press(lecturer, "Next ▶")  # step 3 now; the page still shows step 2
    vote(stale, 2, 1, stale.radio(key="live_vote_2_1").options[0])
    assert any("Not counted" in t and "another step" in t for t in texts(stale))
    assert store.state(code).answered == 0
    assert not any("Your answer is in" in text for text in texts(stale))


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("ZZZZZZ", "No class has this code"),
        ("A" * 10_000, "not valid"),
        ("<b>x</b>", "not valid"),
    ],
)
def test_a_bad_code_gets_plain_words(store, code, message):
    at = join(code, DEVICES[0])
    assert any(message in text for text in texts(at))
    assert not keys(at) & LECTURER_CONTROLS


def test_a_closed_class_says_so(store):
    lecturer, code = start_class()
    ok(lecturer.button(key="live_close").click().run())
    at = join(code, DEVICES[0])
    assert any("This class has ended" in text for text in texts(at))


@pytest.mark.parametrize("page", [None, "pages/head_spaces.py"])
def test_a_class_code_on_another_page_opens_the_lesson(store, page):
    """A join link cut down to the site's root, or a class code on another page's address,
    opens the Lesson's class screen with the same address (its sentence too)."""
    _, code = start_class()
    at = ok(open_page(page, **{"class": code, "heads": "2"}))
    at.session_state[DEVICE] = DEVICES[0]
    ok(at.run())
    assert f"Class {code} · Step 1 of {STEPS}" in " ".join(texts(at))
    assert at.query_params["class"] == code and at.query_params["heads"] == "2"
    assert store.state(code).joined == 1


def test_typing_the_code_joins(store):
    _, code = start_class()
    at = ok(open_page(PAGE))
    at.session_state[DEVICE] = DEVICES[0]
    ok(at.text_input(key="live_join_code").input(code.lower()).run())
    assert at.query_params["class"] == code
    ok(at.run())
    assert store.state(code).joined == 1
    assert f"Step 1 of {STEPS}" in " ".join(texts(at))


def test_a_typed_junk_code_gets_plain_words(store):
    at = ok(open_page(PAGE))
    ok(at.text_input(key="live_join_code").input("O0I1").run())
    assert "class" not in at.query_params
    assert any("4 to 8 letters and digits" in text for text in texts(at))


def projector_question(lecturer) -> str:
    """The question as the projector's own quiz asks it (markdown, its tokens escaped)."""
    prefix = "**Check yourself:** "
    return next(t for t in texts(lecturer) if t.startswith(prefix)).removeprefix(prefix)


def test_a_student_on_another_sentence_is_shown_the_projectors_question(store):
    lecturer = ok(open_page(PAGE, present="1", text="My sister gave the old dog a bone."))
    ok(lecturer.button(key="live_start").click().run())
    code = lecturer.query_params["class"]
    press(lecturer, "Next ▶")
    student = join(code, DEVICES[0])  # the link carries no sentence: the default one
    options = list(store.state(code).votes)
    assert list(student.radio(key="live_vote_2_1").options) == options
    asked = projector_question(lecturer)
    assert "“" in asked and "{" not in asked  # filled with the projector's own tokens
    shown = texts(student)
    assert f"**The question:** {asked}" in shown  # the projector's words, not this screen's
    assert OTHER_VIEW in shown and "The question is on the projector" not in " ".join(shown)


def test_a_reconnect_to_another_worker_joins_with_the_browsers_id(store):
    """A socket that reconnects to another worker starts a new session whose first run
    already carries the device component's state (no change, so no callback): the page
    must take the id from it and join, not wait for an id that never changes."""
    _, code = start_class()
    at = ok(open_page(PAGE, **{"class": code}))
    at.session_state["live_device"] = {"device": DEVICES[0]}  # the browser's widget state
    ok(at.run())
    assert f"Class {code} · Step 1 of {STEPS} · vote open" in texts(at)
    assert store.state(code).joined == 1


def test_after_the_reveal_a_student_sees_the_steps_revealed_figure(store):
    """Step 3 asks with the query, keys and values and reveals the arithmetic: a student's
    screen must draw the step's asking figure, then after the reveal its revealed one (the
    screens are shared between students, so the phase is part of their key)."""
    step = LESSON_STEPS[2]
    view = step.view(Scenario(), step.control(Scenario()).default)  # as a new screen has it
    asking, revealed = (
        json.loads(f.to_json())["data"] for f in (view.figure, view.revealed_figure)
    )
    lecturer, code = start_class()
    for _ in range(2):
        press(lecturer, "Next ▶")
    student = join(code, DEVICES[0])
    assert chart(student, "lesson_view_by_hand")["data"] == asking
    ok(lecturer.button(key="lesson_reveal").click().run())
    ok(student.run())
    assert chart(student, "lesson_view_by_hand")["data"] == revealed != asking
