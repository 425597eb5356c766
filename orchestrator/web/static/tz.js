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
 * zone (<time datetime="…" data-zone="…">, written by web/timefmt.py ``in_event_zone``), and the reader's
 * own time is added here when it differs: in the page's language (<html lang>) and the server's fields
 * (translation.py ``date_text``: "Fri 4 Dec 2026, 14:00", "sex. 4 dez. 2026, 14:00"; without the weekday
 * when the page leaves it out, data-day="0"), then the zone as the server writes it: "EST
 * (America/New_York)". The words around it come from the script's data-text-reader-time attribute, which
 * the template writes in the page's language ("(your time {time})"). */
(function () {
  "use strict";
  var reader;
  try { reader = Intl.DateTimeFormat().resolvedOptions().timeZone; } catch (e) { return; }
  var lang = document.documentElement.getAttribute("lang") || "en";
  var script = document.querySelector("script[data-text-reader-time]");
  var words = (script && script.getAttribute("data-text-reader-time")) || "({time})";
  var fields = {
    weekday: "short", day: "numeric", month: "short", year: "numeric",
    hour: "2-digit", minute: "2-digit", hourCycle: "h23"
  };
  function parts(moment, zone, extra) {
    var options = Object.assign({ timeZone: zone }, fields, extra || {});
    try { return new Intl.DateTimeFormat(lang, options).formatToParts(moment); } catch (e) { return null; }
  }
  function field(list, type) {
    for (var i = 0; i < list.length; i++) { if (list[i].type === type) { return list[i].value; } }
    return "";
  }
  // The wall-clock time in ``zone`` in the server's order: [weekday] day month year, HH:mm.
  function clock(moment, zone, withDay) {
    var p = parts(moment, zone);
    if (!p) { return null; }
    var date = field(p, "day") + " " + field(p, "month") + " " + field(p, "year");
    var text = date + ", " + field(p, "hour") + ":" + field(p, "minute");
    return withDay ? field(p, "weekday") + " " + text : text;
  }
  // The zone's abbreviation (or offset) in the page's language and its name, as web/timefmt.py writes it.
  function suffix(moment, zone) {
    var p = parts(moment, zone, { timeZoneName: "short" });
    var short = p ? field(p, "timeZoneName") : "";
    return !short || short === zone ? zone : short + " (" + zone + ")";
  }
  function annotate(root) {
    var times = root.querySelectorAll ? root.querySelectorAll("time[data-zone]:not([data-reader])") : [];
    Array.prototype.forEach.call(times, function (el) {
      el.setAttribute("data-reader", "");
      var moment = new Date(el.getAttribute("datetime"));
      if (isNaN(moment.getTime())) { return; }
      var withDay = el.getAttribute("data-day") !== "0";
      var mine = clock(moment, reader, withDay), theirs = clock(moment, el.getAttribute("data-zone"), withDay);
      if (!mine || mine === theirs) { return; }
      var span = document.createElement("span");
      span.className = "reader-time";
      span.textContent = " " + words.replace("{time}", mine + " " + suffix(moment, reader));
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
