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
