// The Lesson's keyboard and clicker: listens to keydown on the app's page (this frame is
// served from the app's own origin, so a Content-Security-Policy of script-src 'self'
// allows it) and sends the action to Python through Streamlit's component protocol.
(function () {
  "use strict";
  var ACTIONS = {
    ArrowRight: "next", PageDown: "next", " ": "next",
    ArrowLeft: "back", PageUp: "back",
    a: "reveal", A: "reveal",
  };
  // Keys typed into these belong to the widget (text, sliders, radios, select boxes).
  var WIDGETS = "input, textarea, select, [contenteditable=''], [contenteditable='true'], " +
    "[role='slider'], [role='radio'], [role='radiogroup'], [role='combobox'], " +
    "[role='listbox'], [role='option'], [role='menu'], [role='menuitem'], [role='tab']";
  var host = window.parent;
  var presses = 0;

  function send(type, extra) {
    var message = { isStreamlitMessage: true, type: type };
    for (var name in extra) message[name] = extra[name];
    host.postMessage(message, "*");
  }

  function onKeyDown(event) {
    var action = ACTIONS[event.key];
    if (!action || event.altKey || event.ctrlKey || event.metaKey || event.defaultPrevented) {
      return;
    }
    var target = event.target;
    if (target && target.closest && target.closest(WIDGETS)) return;
    // Space on a focused button or link presses that button: leave it to the browser.
    if (event.key === " " && target && target.closest && target.closest("button, a")) return;
    event.preventDefault();
    presses += 1;
    send("streamlit:setComponentValue", {
      value: { action: action, press: Date.now() + ":" + presses },
      dataType: "json",
    });
  }

  var page = host.document;
  if (host.__headSpacesLessonKeys) {
    page.removeEventListener("keydown", host.__headSpacesLessonKeys, true);
  }
  host.__headSpacesLessonKeys = onKeyDown;
  page.addEventListener("keydown", onKeyDown, true);
  window.addEventListener("pagehide", function () {
    if (host.__headSpacesLessonKeys === onKeyDown) {
      page.removeEventListener("keydown", onKeyDown, true);
      host.__headSpacesLessonKeys = null;
    }
  });
  send("streamlit:componentReady", { apiVersion: 1 });
  send("streamlit:setFrameHeight", { height: 0 });
})();
