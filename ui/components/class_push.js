// A student's screen in a live class listens to the class's server-sent events
// (GET /api/classes/CODE/events, classroom/events.py) and asks for a rerun when what it
// draws has changed: the lecturer moved, revealed, opened round 2, or closed the class.
// EventSource reconnects by itself when a stream ends; a refused reconnect (the class is
// gone) also asks for a rerun, which then says so.
function mount({ data, setTriggerValue }) {
  const source = new EventSource(data.url);
  source.onmessage = (event) => {
    if (event.data !== data.drawn) setTriggerValue("moved", event.data);
  };
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED) setTriggerValue("moved", "closed");
  };
  document.documentElement.dataset.classPush = "listening"; // tests can wait for it
  return () => source.close();
}
