"""The projector's and the console's class panels redraw when the class changes: their
browser polls the public state (GET /api/classes/CODE) and reruns the panel's fragment
only when it differs from what the panel drew. A Streamlit timer (st.fragment(run_every))
reran and redrew the panel at every poll: ~10 % of a core in the projector's browser
with the class idle, and again while 160 phones drew a Next on the same machine."""

from __future__ import annotations

from classroom.store import PublicState
from ui.js_component import mounted_component

# How often the projector asks for joined, answered and the votes: one page per class,
# so a poll (students' screens follow by push: classroom/events.py). At 1 s a vote
# reached the projector in p95 0.97 s with 160 voting (issue 26's target: 1 s).
POLL_SECONDS = 0.5

_watch_component = mounted_component("head_spaces_class_watch", "class_watch.js")


def drawn_state(state: PublicState) -> dict[str, object]:
    """The state as the watcher compares it with the endpoint's: its JSON body, with the
    votes as [option, count] pairs (a JS object would reorder options such as "2")."""
    return {**state.to_json(), "votes": [[option, n] for option, n in state.votes.items()]}


def rerun_on_change(state: PublicState, key: str) -> None:
    """Rerun the calling fragment once the class's public state is no longer `state`, the
    one it just drew (the trigger itself reruns the fragment)."""
    _watch_component(
        key=key,
        data={
            "url": f"/api/classes/{state.code}",
            "seconds": POLL_SECONDS,
            "drawn": drawn_state(state),
        },
        on_changed_change=lambda: None,  # the rerun is the point; nothing to keep
    )
