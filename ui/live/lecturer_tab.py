"""The lecturer keeps control when its worker dies: the right to drive a class lives in
the session, and the browser tab keeps a copy in its sessionStorage, so a new session on
that tab (the worker was killed, the app restarted, the page reloaded) takes the class
back, once the store says the secret still drives that open class."""

from __future__ import annotations

import streamlit as st

from classroom.store import (
    ClassStore,
    ClassStoreError,
    MalformedRequestError,
    OpenedClass,
    StoreUnavailableError,
    normalise_code,
)
from ui.js_component import mounted_component

_FORGET = "lecturer_tab_forget_"  # session, per slot: the tab must drop what it kept
_component = mounted_component("head_spaces_lecturer_tab", "lecturer_tab.js")


def kept_class(slot: str, held: OpenedClass | None, store: ClassStore) -> OpenedClass | None:
    """The tab keeps `held` (this session's class) under `slot`; a session holding none
    gets the class the tab kept, if the store says its secret drives that open class
    (else None, and the tab forgets it). Drawn in the sidebar: no space in the page.
    Raises StoreUnavailableError while the store cannot say (the tab keeps the class)."""
    key = f"lecturer_tab_{slot}"
    keep = None if held is None else {"code": held.code, "secret": held.secret}
    if held is not None:
        st.session_state.pop(_FORGET + slot, None)
    forget = bool(st.session_state.get(_FORGET + slot))
    with st.sidebar:
        _component(
            key=key, data={"slot": slot, "keep": keep, "forget": forget}, on_kept_change=_kept
        )
    # A reconnected session's first run already holds the tab's state (no change, so no
    # callback); a reloaded page's arrives with the rerun its component starts.
    kept = (st.session_state.get(key) or {}).get("kept")
    if held is not None or forget or kept is None:
        return held
    try:
        return checked_handover(store, kept)
    except StoreUnavailableError:
        raise
    except ClassStoreError:
        forget_class(slot)
        return None


def checked_handover(store: ClassStore, handed: object) -> OpenedClass:
    """The class a handover names, if its secret drives that open class; else the store's
    refusal (a malformed handover is refused as such)."""
    if not isinstance(handed, dict):
        raise MalformedRequestError("The handover is not a class.")
    code, secret = handed.get("code"), handed.get("secret")
    store.check_lecturer(code, secret)
    return OpenedClass(normalise_code(code), secret)


def _kept() -> None:
    """on_kept_change: the rerun it starts takes the kept class back (kept_class)."""


def forget_class(slot: str) -> None:
    """The tab drops the class it kept under `slot` (closed, refused, or ended)."""
    st.session_state[_FORGET + slot] = True
