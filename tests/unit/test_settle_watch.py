"""harness.browser's settle watcher reads Streamlit's websocket frames by protobuf field
number (it runs in the page, without the protobuf classes): those numbers, and the
reporters it watches, must be the installed streamlit's and ui.media's."""

from __future__ import annotations

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState, WidgetStates

from harness.browser import SETTLE_WATCH, _reporters
from ui.media import REPORTERS


def _number(message, field: str) -> int:
    return message.DESCRIPTOR.fields_by_name[field].number


def test_the_field_numbers_the_watcher_reads_are_streamlits():
    assert _number(BackMsg, "rerun_script") == 11
    assert _number(ClientState, "widget_states") == 2
    assert _number(WidgetStates, "widgets") == 1
    assert (_number(WidgetState, "id"), _number(WidgetState, "json_value")) == (1, 10)
    assert _number(ForwardMsg, "new_session") == 4
    assert _number(ForwardMsg, "script_finished") == 6
    assert ForwardMsg.FINISHED_EARLY_FOR_RERUN == 2
    for number in ("number !== 11", "n !== 2", "w !== 1", "f === 1", "f === 10"):
        assert number in SETTLE_WATCH  # the numbers above, where the watcher reads them
    assert "number === 4" in SETTLE_WATCH and "number === 6 && value !== 2" in SETTLE_WATCH


def test_the_watcher_knows_every_reporter():
    assert set(_reporters()) == set(REPORTERS)
