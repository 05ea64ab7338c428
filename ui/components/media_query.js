// Reports whether a CSS media query matches (ui/media.py), and again whenever that changes:
// sent only when it differs from what the page already assumes (data.matches).
function mount({ data, setStateValue }) {
  const query = window.matchMedia(data.query);
  const report = () => {
    if (query.matches !== data.matches) setStateValue("matches", query.matches);
  };
  report();
  query.addEventListener("change", report);
  return () => query.removeEventListener("change", report);
}
