
// Appended to a component file that defines mount(args) and returns its cleanup (ui/js_component.py).
// Streamlit 1.67 runs a component's function again whenever its data changes but keeps
// only the last cleanup, for the unmount: each mount in this element first stops the one
// before, so a stream, a timer or a listener never outlives the data it was made for.
export default function (args) {
  const element = args.parentElement;
  element.headSpacesStop?.();
  const cleanup = mount(args);
  let stopped = false;
  const stop = () => {
    if (!stopped && cleanup) cleanup();
    stopped = true;
  };
  element.headSpacesStop = stop;
  return stop;
}
