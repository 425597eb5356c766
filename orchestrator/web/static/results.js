// Autosave on the result entry page: each board is saved as soon as a result is chosen (docs/rules.md §6).
// Without JavaScript the form's "Save results" button does the same for every changed board.
(function () {
  "use strict";

  function show(status, text, kind) {
    status.textContent = text;
    status.className = "board-status status-" + kind;
  }

  function display(code) {
    return code === "*" ? "–" : code;
  }

  function wire(form) {
    // The words in the reader's language, from the form (templates/staff/results/_match_form.html).
    function word(name, english) { return form.getAttribute("data-text-" + name) || english; }
    var tokenField = form.querySelector("input[name=csrf_token]");
    if (!tokenField) return;
    var selects = form.querySelectorAll("select[data-board]");
    Array.prototype.forEach.call(selects, function (select) {
      select.addEventListener("change", function () {
        var id = select.getAttribute("data-board");
        var version = form.querySelector("input[name=version_" + id + "]");
        var shown = form.querySelector("input[name=shown_" + id + "]");
        var status = document.getElementById("status-" + id);
        show(status, word("saving", "Saving…"), "unsaved");
        fetch("/api/v1/boards/" + id + "/result", {
          method: "PUT",
          credentials: "same-origin",
          headers: { "Content-Type": "application/json", "X-CSRF-Token": tokenField.value },
          body: JSON.stringify({ result: select.value, expected_version: parseInt(version.value, 10) }),
        })
          .then(function (response) {
            return response.json().then(function (body) {
              return { ok: response.ok, status: response.status, body: body };
            });
          })
          .then(function (answer) {
            if (answer.ok) {
              version.value = answer.body.version;
              shown.value = answer.body.result;
              show(status, word("saved", "Saved"), "saved");
            } else if (answer.status === 409 && answer.body.current && answer.body.current.length) {
              var current = answer.body.current[0];
              version.value = current.version;
              shown.value = current.value;
              select.value = current.value;
              show(
                status,
                word("conflict", "Changed by someone else: {who} saved {result}")
                  .replace("{who}", current.changed_by)
                  .replace("{result}", display(current.value)),
                "conflict"
              );
            } else {
              show(status, word("refused", "Not saved:") + " " + (answer.body.detail || answer.status), "unsaved");
            }
          })
          .catch(function () {
            show(status, word("offline", "Not saved (connection lost): use Save results"), "unsaved");
          });
      });
    });
  }

  Array.prototype.forEach.call(document.querySelectorAll("form[data-autosave]"), wire);
})();
