// The projector's and the console's class panel: every data.seconds this asks the class's
// public state (GET /api/classes/CODE) and reruns the panel only when it differs from the
// state the panel drew (data.drawn: the same fields, votes as [option, count] pairs). An
// idle class then costs one small GET per poll, not a rerun and a redraw of the panel.
// A refused read (the class closed) also reruns it, which then says so. Each state is
// announced once: a rerun that draws the same state leaves this poller running.
function mount({ data, setTriggerValue }) {
  const drawn = data.drawn;
  const pairs = (votes) => JSON.stringify(votes.map(([o, n]) => [String(o), n]).sort());
  const differs = (state) =>
    Object.keys(drawn).some((k) => k !== "votes" && state[k] !== drawn[k]) ||
    pairs(Object.entries(state.votes ?? {})) !== pairs(drawn.votes);
  let announced = null;
  let timer = null;
  let stopped = false;
  const poll = async () => {
    try {
      const response = await fetch(data.url, { cache: "no-store" });
      const body = await response.text();
      const changed = !response.ok || differs(JSON.parse(body));
      if (changed && body !== announced) {
        announced = body;
        setTriggerValue("changed", body);
      }
    } catch (error) {
      // a worker restarting or the network gone: ask again at the next poll
    }
    if (!stopped) timer = setTimeout(poll, data.seconds * 1000);
  };
  timer = setTimeout(poll, data.seconds * 1000);
  document.documentElement.dataset.classWatch = "polling"; // tests can wait for it
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
