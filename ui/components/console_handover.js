// The lecturer's window hands its class to a lecturer's console opened from it in the
// same browser: the console asks on a BroadcastChannel (same origin, same browser only)
// and this window answers with the class's code and secret. Nothing is drawn: the secret
// stays in this script's memory, never in the page's text or in a URL.
const CHANNEL = "headspaces-lecturer-console";

function mount({ data }) {
  const channel = new BroadcastChannel(CHANNEL);
  channel.onmessage = (event) => {
    if (event.data && event.data.kind === "ask") {
      channel.postMessage({ kind: "class", code: data.code, secret: data.secret });
    }
  };
  return () => channel.close();
}
