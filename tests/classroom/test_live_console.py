"""The lecturer's console (`/lesson?console=1`) in AppTest sessions sharing a temporary
SQLite store: paired with the lecturer's class, its Back / Next / Reveal / Vote again
change the class in the store and the projector's page follows; it shows the current and
next step with their speaker notes and the live counts. Unpaired (a link typed by hand,
a student's phone), it says so in plain words and has no button. A handover is checked
with the store: a wrong secret, a closed class or junk pairs nothing."""

from __future__ import annotations

import pytest

from attention.teaching.lesson.content import lesson_text
from classroom.store import ClassStoreError, NotAllowedError
from tests.classroom import test_live_class_pages as live
from tests.classroom.test_live_class_pages import PAGE, join, ok, start_class, texts
from tests.support.apptest import open_page
from ui.live.console import NOT_PAIRED, PAIRED, checked_handover
from ui.live.projector import LECTURER, class_store
from ui.live.student import OTHER_VIEW

STEPS = lesson_text()
store = live.store  # the app's sessions and the test share a temporary SQLite store
CONSOLE_BUTTONS = {"console_back", "console_next", "console_reveal", "console_again"}


def console(opened=None):
    """A console session; `opened` is what the lecturer's window handed over."""
    at = ok(open_page(PAGE, console="1"))
    if opened is not None:
        at.session_state[PAIRED] = checked_handover_of(opened)
        ok(at.run())
    return at


def checked_handover_of(opened):
    return checked_handover(class_store(), {"code": opened.code, "secret": opened.secret})


def shown(at) -> str:
    return "\n".join(texts(at))


def click(at, key: str):
    return ok(at.button(key=key).click().run())


def test_the_paired_console_drives_the_class_and_the_projector_follows(store):
    lecturer, code = start_class()
    opened = lecturer.session_state[LECTURER]
    student = join(code, "student-one-device-id-0001")
    first_options = list(store.state(code).votes)
    desk = console(opened)
    page = shown(desk)
    assert f"Class {code} · Step 1 of {len(STEPS)}" in page
    assert f"Now: 1. {STEPS[0].title}" in page and STEPS[0].notes in page
    assert f"Next: 2. {STEPS[1].title}" in page and STEPS[1].notes in page
    assert all(f"“{option}”" in page for option in first_options)
    assert f"**The question:** {live.projector_question(lecturer)}" in texts(desk)  # filled
    assert "{" not in page and "…”" not in page  # no raw placeholder, no blank
    assert "**1** student joined · **0** answered this round · **0** exploring alone" in page
    assert desk.button(key="console_back").disabled and desk.button(key="console_again").disabled

    click(desk, "console_next")
    assert (store.state(code).step, store.state(code).votes) == (2, {})
    ok(student.run())  # before the projector sends step 2's answers: no false excuse
    assert "The question is on the projector." in shown(student)
    assert OTHER_VIEW not in shown(student)
    ok(lecturer.run())  # the projector's next run (its poll reruns it) takes step 2
    assert f"Step 2 of {len(STEPS)}" in shown(lecturer)
    assert lecturer.query_params["step"] == "2"
    assert list(store.state(code).votes)  # and sends step 2's answers to the class
    ok(desk.run())  # the console shows step 2's question as the projector asks it
    assert f"**The question:** {live.projector_question(lecturer)}" in texts(desk)
    assert f"Now: 2. {STEPS[1].title}" in shown(ok(desk.run()))

    click(desk, "console_reveal")
    assert store.state(code).phase == "revealed"
    ok(lecturer.run())
    assert lecturer.button(key="lesson_reveal").disabled  # the projector shows the answer
    assert store.state(code).phase == "revealed"  # and did not move the class back

    click(desk, "console_again")
    assert (store.state(code).round, store.state(code).phase) == (2, "asking")
    ok(lecturer.run())
    assert not lecturer.button(key="lesson_reveal").disabled  # the projector asks again
    assert (store.state(code).round, store.state(code).phase) == (2, "asking")

    click(desk, "console_back")
    ok(lecturer.run())
    assert store.state(code).step == 1 and lecturer.query_params.get("step", "1") == "1"
    ok(student.run())
    assert any(STEPS[0].title in text for text in texts(student))  # the student follows

    secret = opened.secret
    for at in (desk, lecturer, student):
        assert secret not in shown(at) and secret not in str(at.query_params)

    ok(student.button(key="live_explore").click().run())
    assert "· **1** exploring alone" in shown(ok(desk.run()))

    ok(lecturer.button(key="live_close").click().run())
    ok(desk.run())  # the class ended: the console unpairs and says why
    assert "This class has ended" in shown(desk) and any(NOT_PAIRED in t for t in texts(desk))
    assert not CONSOLE_BUTTONS & {str(b.key) for b in desk.button}


def test_a_console_without_a_handover_can_change_nothing(store):
    _, code = start_class()
    for desk in (console(), ok(open_page(PAGE, console="1", **{"class": code}))):
        assert any(NOT_PAIRED in text for text in texts(desk))
        assert not CONSOLE_BUTTONS & {str(b.key) for b in desk.button}
        assert "Now:" not in shown(desk)
    assert store.state(code).step == 1


def test_the_projector_offers_the_console_by_a_link_without_the_secret(store):
    lecturer, _ = start_class()
    (link,) = [b for b in lecturer.get("link_button") if "console" in b.proto.label]
    assert link.proto.url.endswith("?console=1")
    assert lecturer.session_state[LECTURER].secret not in link.proto.url


def test_a_handover_is_checked_with_the_store(store):
    opened = store.open_class(len(STEPS), ["a", "b"])
    other = store.open_class(len(STEPS), ["a", "b"])
    assert checked_handover(store, {"code": opened.code.lower(), "secret": opened.secret}) == opened
    for handed, error in [
        ({"code": opened.code, "secret": other.secret}, NotAllowedError),
        ({"code": opened.code, "secret": None}, NotAllowedError),
        ({"code": "X" * 10_000, "secret": opened.secret}, ClassStoreError),
        ("not a class", ClassStoreError),
        (None, ClassStoreError),
    ]:
        with pytest.raises(error):
            checked_handover(store, handed)
    store.close_class(opened.code, opened.secret)
    with pytest.raises(ClassStoreError, match="ended"):
        checked_handover(store, {"code": opened.code, "secret": opened.secret})


def tab_keeps(at, slot: str, code: str, secret: str):
    """A new session on a tab whose sessionStorage kept this class (the component's state
    the browser sends on reconnecting, or after a reload)."""
    at.session_state[f"lecturer_tab_{slot}"] = {"kept": {"code": code, "secret": secret}}
    return ok(at.run())


def test_a_new_session_on_the_lecturers_tab_takes_the_class_back(store):
    lecturer, code = start_class()
    opened = lecturer.session_state[LECTURER]
    again = tab_keeps(
        open_page(PAGE, present="1", **{"class": code}), "lecturer", code, opened.secret
    )
    assert again.session_state[LECTURER] == opened  # it drives the class again
    assert again.button(key="live_close") and f"Join the class: {code}" in shown(again)
    assert store.state(code).joined == 0  # it did not join its own class as a student
    press_next = next(b for b in again.button if b.label == "Next ▶")
    ok(press_next.click().run())
    assert store.state(code).step == 2  # and moves it
    assert opened.secret not in shown(again) and opened.secret not in str(again.query_params)

    desk = tab_keeps(open_page(PAGE, console="1"), "console", code, opened.secret)
    assert desk.session_state[PAIRED] == opened and desk.button(key="console_next")


@pytest.mark.parametrize("case", ["wrong secret", "closed", "another class"])
def test_a_tab_with_a_wrong_or_ended_class_takes_nothing(store, case):
    lecturer, code = start_class()
    opened = lecturer.session_state[LECTURER]
    secret = opened.secret
    if case == "wrong secret":
        secret = store.open_class(3).secret
    elif case == "closed":
        store.close_class(code, secret)
    elif case == "another class":
        code = store.open_class(3).code  # the URL names another class than the tab's
    at = tab_keeps(open_page(PAGE, present="1", **{"class": code}), "lecturer", opened.code, secret)
    assert LECTURER not in at.session_state
    assert not CONSOLE_BUTTONS & {b.key for b in at.button}
    assert not {"live_close", "live_vote_again"} & {b.key for b in at.button}
    if case == "another class":
        return  # (the console has no class in its URL: it takes the tab's class)
    desk = tab_keeps(open_page(PAGE, console="1"), "console", opened.code, secret)
    assert PAIRED not in desk.session_state and NOT_PAIRED in shown(desk)
