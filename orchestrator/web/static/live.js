/* Live updates for spectator pages (progressive enhancement: the pages work fully without this).
 * The page names its stream in [data-live-src]; on each "change" message the page is fetched again
 * (a conditional request: 304 when nothing changed) and every [data-live-region] whose content
 * differs is swapped in place. */
(function () {
  "use strict";
  var status = document.querySelector("[data-live-src]");
  if (!status || !window.EventSource || !window.fetch || !window.DOMParser) { return; }
  var text = status.querySelector(".live-text");
  // The words in the reader's language, from the page (templates/public/_macros.html live_status).
  function word(name, english) { return status.getAttribute("data-text-" + name) || english; }
  var timer = null;
  var busy = false;
  var again = false;
  var hadError = false;

  function show(state, label) {
    status.hidden = false;
    status.setAttribute("data-state", state);
    if (text) { text.textContent = label; }
  }

  function clock() {
    var now = new Date();
    return String(now.getHours()).padStart(2, "0") + ":" + String(now.getMinutes()).padStart(2, "0") +
      ":" + String(now.getSeconds()).padStart(2, "0");
  }

  function swap(html) {
    var fresh = new DOMParser().parseFromString(html, "text/html");
    var changed = 0;
    document.querySelectorAll("[data-live-region]").forEach(function (old) {
      var next = old.id ? fresh.getElementById(old.id) : null;
      if (next && next.innerHTML !== old.innerHTML) {
        var node = document.importNode(next, true);
        old.replaceWith(node);
        node.classList.add("live-updated");
        window.setTimeout(function () { node.classList.remove("live-updated"); }, 1800);
        changed += 1;
      }
    });
    document.documentElement.setAttribute("data-live-version", String(Date.now()));
    return changed;
  }

  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    fetch(window.location.href, { headers: { "Accept": "text/html" }, cache: "no-cache", credentials: "same-origin" })
      .then(function (answer) {
        if (!answer.ok) { throw new Error("HTTP " + answer.status); }
        return answer.text();
      })
      .then(function (html) {
        swap(html);
        show("on", word("updated", "Live · updated") + " " + clock());
      })
      .catch(function () { show("off", word("paused", "Live updates paused; reload the page")); })
      .then(function () {
        busy = false;
        if (again) { again = false; schedule(); }
      });
  }

  function schedule() {
    window.clearTimeout(timer);
    timer = window.setTimeout(refresh, 200); // a burst of board results becomes one fetch
  }

  var source = new EventSource(status.getAttribute("data-live-src"));
  source.addEventListener("ready", function () {
    show("on", word("live", "Live"));
    if (hadError) { hadError = false; schedule(); } // messages may have been missed while away
  });
  source.addEventListener("change", schedule);
  source.onerror = function () { hadError = true; show("off", word("reconnecting", "Reconnecting…")); };
})();
