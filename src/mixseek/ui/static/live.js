// mixseek dashboard: what a page following an execution (htmx's SSE extension, ui/live.py) says in
// the browser's console when its stream fails. A stream ends by itself only with its execution
// (the "end" event closes it), so an error here is a real one: the dashboard stopped or restarted,
// or the network broke. htmx logs only the bare error event; this says what it means, once per
// outage, and says when the updates are back.
"use strict";
(() => {
  let lost = false;
  document.addEventListener("htmx:sseError", (event) => {
    if (lost) {
      return;
    }
    lost = true;
    const source = event.detail.source;
    const why = source.readyState === EventSource.CLOSED
      ? "the dashboard refused the stream"
      : "the connection to the dashboard was lost";
    console.error(
      `mixseek: live updates of this page stopped (${why}: ${source.url}); ` +
        "retrying in a few seconds; reload the page if they do not come back",
    );
  });
  document.addEventListener("htmx:sseOpen", () => {
    if (lost) {
      lost = false;
      console.info("mixseek: live updates of this page resumed");
    }
  });
})();
