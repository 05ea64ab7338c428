// A student's screen in a live class listens to the class's server-sent events
// (GET /api/classes/CODE/events, classroom/events.py) and asks for a rerun when what it
// draws has changed: the lecturer moved, revealed, opened round 2, or closed the class.
// EventSource reconnects by itself when a stream ends; a refused reconnect (the class is
// gone) also asks for a rerun, which then says so.
// The screen also holds the step after, drawn hidden (data.ahead: the screen the push
// will announce when the lecturer goes Next). When the push announces exactly that, the
// page marks it shown (data-class-shown on <html>; the page's CSS, live_student.ahead_css,
// then shows it and hides the step before) at once, and the rerun follows. The mark stays
// while the page still holds that hidden step, and goes with the rerun that replaces it.
// One stream per screen for the whole class: each rerun mounts this again with the screen
// it drew (data.drawn), and the new mount takes over the open stream instead of opening
// another, so a Next does not send every phone's stream through the server again.
function showAhead(listening) {
  const root = document.documentElement;
  if (listening.shown) root.dataset.classShown = String(JSON.parse(listening.shown).step);
  else delete root.dataset.classShown;
}

function mount({ data, setTriggerValue, parentElement }) {
  let listening = parentElement.classPush;
  clearTimeout(listening?.closing);
  if (!listening || listening.url !== data.url || listening.source.readyState === EventSource.CLOSED) {
    listening?.source.close();
    const source = new EventSource(data.url);
    listening = parentElement.classPush = { url: data.url, source };
    source.onmessage = (event) => {
      listening.shown = event.data === listening.ahead ? event.data : null;
      showAhead(listening);
      if (event.data !== listening.drawn) listening.trigger("moved", event.data);
    };
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) listening.trigger("moved", "closed");
    };
  }
  listening.drawn = data.drawn;
  listening.ahead = data.ahead;
  if (listening.shown !== data.ahead) listening.shown = null;
  showAhead(listening);
  listening.trigger = setTriggerValue;
  document.documentElement.dataset.classPush = "listening"; // tests can wait for it
  // A mount that follows at once (a rerun) keeps the stream; an unmount closes it.
  return () => {
    listening.closing = setTimeout(() => {
      listening.source.close();
      listening.shown = null;
      showAhead(listening);
    }, 0);
  };
}
