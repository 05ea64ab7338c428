"""A student's place in a live class: the device id the browser keeps, joining once per
session, leaving, exploring alone and following the lecturer again, and joining by a
typed code from the Lesson alone."""

from __future__ import annotations

import streamlit as st

from classroom.store import ClassStoreError, PublicState, StoreUnavailableError
from ui.js_component import mounted_component
from ui.lesson import walk
from ui.live.projector import class_store, unreachable
from view_state import url_params
from view_state.url_params import CLASS_PARAM

DEVICE = "live_device_id"  # session: this browser's device id, once the browser said it
DETACHED = "live_detached"  # session: the student explores alone


_COMPONENT = "live_device"
_JOINED = "live_joined"  # session: the code this session has joined


_TYPED_ERROR = "live_typed_code_error"
_UNTOLD = "live_untold"  # session: exploring alone or not, as the class has not heard yet


_device_component = mounted_component("head_spaces_class_device", "device_id.js")


def device_id() -> str | None:
    """The browser's device id (None until its first answer arrives)."""
    device = st.session_state.get(DEVICE)
    _device_component(key=_COMPONENT, data={"device": device}, on_device_change=_keep_device)
    if device is None:  # a socket reconnected to another worker: a new session, whose
        _keep_device()  # first run already has the browser's id (no change, no callback)
        device = st.session_state.get(DEVICE)
    return device


def _keep_device() -> None:
    st.session_state[DEVICE] = (st.session_state.get(_COMPONENT) or {}).get("device")


def joined_state(code: str) -> PublicState | None:
    """Join the class once per session and return its state; None (with the reason on the
    page) when the browser has not said its id yet or the class refuses."""
    device = device_id()
    if device is None:
        st.info(f"Joining class {code}…")
        return None
    store = class_store()
    try:
        if st.session_state.get(_JOINED) != code:
            state = store.join(code, device)
            st.session_state[_JOINED] = code
            return state
        return store.state(code)
    except ClassStoreError as error:
        if isinstance(error, StoreUnavailableError):
            unreachable(code, error)
        else:
            st.error(f"Class {code}: {error}", icon=":material/block:")
        st.button("Leave and use the Lesson alone", on_click=leave, key="live_leave")
        return None


def leave() -> None:
    """Drop the class from the URL and the session: the Lesson alone."""
    if CLASS_PARAM in st.query_params:
        del st.query_params[CLASS_PARAM]
    for key in (_JOINED, DETACHED, _UNTOLD):
        st.session_state.pop(key, None)


def follow_button(state: PublicState) -> None:
    """While exploring alone: one tap back to the lecturer's step."""
    st.button(
        f"Follow the lecturer (step {state.step})",
        on_click=_follow,
        args=(state.code, state.step),
        key="live_follow",
        type="primary",
    )


def _follow(code: str, step: int) -> None:
    st.session_state[DETACHED] = False
    st.session_state[walk.STEP_KEY] = step
    _tell_the_class(code, detached=False)


def _explore(code: str) -> None:
    st.session_state[DETACHED] = True
    _tell_the_class(code, detached=True)


def _tell_the_class(code: str, detached: bool) -> None:
    """Let the projector count who explores alone."""
    st.session_state[_UNTOLD] = detached
    tell_untold(code)


def tell_untold(code: str) -> None:
    """Tell the class whether this student explores alone, if it has not heard it yet:
    while the store cannot be reached it stays untold, for a later run. Only a count: when
    the store refuses (the class ended), the next run says so anyway."""
    detached = st.session_state.get(_UNTOLD)
    if detached is None:
        return
    try:
        class_store().set_detached(code, st.session_state.get(DEVICE, ""), detached)
    except StoreUnavailableError:
        return
    except ClassStoreError:
        pass
    del st.session_state[_UNTOLD]


def explore_button(code: str) -> None:
    st.button(
        "Explore alone",
        on_click=_explore,
        args=(code,),
        key="live_explore",
        help="Move through the Lesson yourself; one tap brings you back to the class.",
    )


def detached() -> bool:
    return bool(st.session_state.get(DETACHED))


def join_by_code() -> None:
    """On the Lesson alone: type a class's code to join it."""
    with st.expander("In a class? Join it with its code"):
        st.text_input(
            "The class code on the projector",
            key="live_join_code",
            max_chars=8,
            on_change=_join_typed,
            placeholder="e.g. K7QX9P",
        )


def _join_typed() -> None:
    typed = st.session_state.get("live_join_code", "")
    value, problem = url_params.row(CLASS_PARAM).read(typed.strip())
    if problem or not value:
        st.session_state[_TYPED_ERROR] = (
            "A class code has 4 to 8 letters and digits, with no 0, O, 1, I or L: check it."
        )
        return
    st.query_params[CLASS_PARAM] = value


def typed_code_error() -> str | None:
    return st.session_state.pop(_TYPED_ERROR, None)
