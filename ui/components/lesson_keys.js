// The Lesson's keyboard and clicker: listens to keydown on the page and sends the action
// to Python as a trigger (one script run, then gone).
const ACTIONS = {
  ArrowRight: "next", PageDown: "next", " ": "next",
  ArrowLeft: "back", PageUp: "back",
  a: "reveal", A: "reveal",
};
// Keys typed into these belong to the widget (text, sliders, radios, select boxes, and
// the lecture step's draggable points, which arrow keys move).
const WIDGETS = "input, textarea, select, [contenteditable=''], [contenteditable='true'], " +
  "[role='slider'], [role='radio'], [role='radiogroup'], [role='combobox'], " +
  "[role='listbox'], [role='option'], [role='menu'], [role='menuitem'], [role='tab'], " +
  "[aria-roledescription='draggable point']";

function mount({ setTriggerValue }) {
  const onKeyDown = (event) => {
    const action = ACTIONS[event.key];
    if (!action || event.altKey || event.ctrlKey || event.metaKey || event.defaultPrevented) {
      return;
    }
    const target = event.composedPath()[0];
    if (target && target.closest && target.closest(WIDGETS)) return;
    // On a focused button or link, Space presses it and the arrow keys are its own (a
    // row of buttons): leave them to the browser. A clicker's PageDown / PageUp still
    // turn the page from anywhere.
    const onControl = target && target.closest && target.closest("button, a");
    if (onControl && (event.key === " " || event.key.startsWith("Arrow"))) return;
    event.preventDefault();
    setTriggerValue("action", action);
  };
  document.addEventListener("keydown", onKeyDown, true);
  document.documentElement.dataset.lessonKeys = "listening"; // tests and tools can wait for it
  return () => {
    document.removeEventListener("keydown", onKeyDown, true);
    delete document.documentElement.dataset.lessonKeys;
  };
}
