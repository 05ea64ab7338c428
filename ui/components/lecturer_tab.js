// The lecturer's browser tab keeps the class it drives, {code, secret}, in sessionStorage:
// this tab only (not another tab or device), kept through a reconnect or a reload, gone
// with the tab. A new session on this tab (its worker died, the page reloaded) gets it
// back as state, and Python checks it with the class store before using it. Nothing is
// drawn: the secret is never in the page's text, its markup or a URL.
const PREFIX = "headspaces_lecturer_tab_";

function mount({ data, setStateValue }) {
  const key = PREFIX + data.slot;
  try {
    if (data.keep) {
      sessionStorage.setItem(key, JSON.stringify(data.keep));
    } else if (data.forget) {
      sessionStorage.removeItem(key);
    } else {
      const kept = JSON.parse(sessionStorage.getItem(key) || "null");
      if (kept && typeof kept.code === "string" && typeof kept.secret === "string") {
        setStateValue("kept", { code: kept.code, secret: kept.secret });
      }
    }
  } catch (error) {
    // storage blocked or junk in it: this tab keeps nothing
  }
  document.documentElement.dataset.lecturerTab = data.keep ? "kept" : "empty"; // for tests
}
