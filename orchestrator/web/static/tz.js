/* Optional: remember the reader's time zone in the "tz" cookie so that pages show times in the reader's
 * zone beside the event's (web/timefmt.py). Without it pages show the event's zone only. */
(function () {
  "use strict";
  var zone;
  try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone; } catch (e) { return; }
  if (!zone || !/^[A-Za-z0-9_+\-\/]{1,64}$/.test(zone)) { return; }
  var current = document.cookie.split("; ").filter(function (c) { return c.indexOf("tz=") === 0; })[0];
  if (current === "tz=" + zone) { return; } // zone names need no escaping in a cookie (checked above)
  // The next page shows the reader's time beside the event's (no reload: a form being filled stays as it is).
  document.cookie = "tz=" + zone + "; path=/; max-age=31536000; SameSite=Lax";
})();

/* Public pages are the same for every reader (cached, docs/caching.md): they show times in the event's
 * zone (<time datetime="…" data-zone="…">), and the reader's own time is added here when it differs. */
(function () {
  "use strict";
  var reader;
  try { reader = Intl.DateTimeFormat().resolvedOptions().timeZone; } catch (e) { return; }
  var options = { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" };
  function text(moment, zone) {
    try { return new Intl.DateTimeFormat(undefined, Object.assign({ timeZone: zone }, options)).format(moment); }
    catch (e) { return null; }
  }
  function annotate(root) {
    var times = root.querySelectorAll ? root.querySelectorAll("time[data-zone]:not([data-reader])") : [];
    Array.prototype.forEach.call(times, function (el) {
      el.setAttribute("data-reader", "");
      var moment = new Date(el.getAttribute("datetime"));
      if (isNaN(moment.getTime())) { return; }
      var mine = text(moment, reader), theirs = text(moment, el.getAttribute("data-zone"));
      if (!mine || mine === theirs) { return; }
      var span = document.createElement("span");
      span.className = "reader-time";
      span.textContent = " (your time " + mine + ")";
      el.parentNode.insertBefore(span, el.nextSibling);
    });
  }
  function start() {
    annotate(document);
    if (window.MutationObserver) {  // live updates replace parts of the page (live.js)
      new MutationObserver(function (changes) {
        changes.forEach(function (c) { Array.prototype.forEach.call(c.addedNodes, annotate); });
      }).observe(document.body, { childList: true, subtree: true });
    }
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); } else { start(); }
})();
