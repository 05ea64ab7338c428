// The student's device id for a live class: a random token kept in localStorage, so a
// refresh or a second tab of the same browser is the same student (one vote per round).
// No personal data: 16 random bytes, base64url. Sent to Python only when it differs
// from what the page already has.
const STORAGE_KEY = "headspaces_class_device";

function newId() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function mount({ data, setStateValue }) {
  let id = null;
  try {
    id = localStorage.getItem(STORAGE_KEY);
    if (!id || !/^[A-Za-z0-9_-]{16,64}$/.test(id)) {
      id = newId();
      localStorage.setItem(STORAGE_KEY, id);
    }
  } catch (error) {
    id = id || newId(); // storage blocked: this tab alone keeps the id
  }
  if (id !== data.device) setStateValue("device", id);
}
