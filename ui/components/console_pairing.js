// The lecturer's console asks the lecturer's window in the same browser for its class,
// once a second until one answers, and sends the answer to Python as a trigger (which
// checks it with the class store). A console in another browser is never answered.
// `data.tries` changes when Python refused an answer, so asking starts again.
const CHANNEL = "headspaces-lecturer-console";

function mount({ data, setTriggerValue }) {
  if (data.paired) return undefined;
  const channel = new BroadcastChannel(CHANNEL);
  let answered = false;
  channel.onmessage = (event) => {
    const message = event.data;
    if (answered || !message || message.kind !== "class") return;
    answered = true;
    setTriggerValue("handed", { code: String(message.code), secret: String(message.secret) });
  };
  const ask = () => {
    if (!answered) channel.postMessage({ kind: "ask" });
  };
  if (!data.tries) ask(); // after a refused answer, wait a second: no storm of reruns
  const timer = setInterval(ask, 1000);
  document.documentElement.dataset.consolePairing = "asking"; // tests can wait for it
  return () => {
    clearInterval(timer);
    channel.close();
  };
}
