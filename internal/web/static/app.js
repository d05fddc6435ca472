// strata serve: keep the page current and highlight a patch's cells.
(function () {
  "use strict";

  // Reload when the repository changes (the server's generation moves).
  var gen = document.body.getAttribute("data-generation");
  var live = document.getElementById("live");
  function poll() {
    fetch("/api/generation", { cache: "no-store" })
      .then(function (r) { return r.json(); })
      .then(function (d) {
        if (String(d.generation) !== gen) {
          if (live) { live.textContent = "reloading"; live.classList.add("reloading"); }
          location.reload();
          return;
        }
        setTimeout(poll, 1500);
      })
      .catch(function () {
        if (live) { live.textContent = "offline"; }
        setTimeout(poll, 5000);
      });
  }
  setTimeout(poll, 1500);

  // Hovering a patch highlights the cells it is in effect in.
  document.querySelectorAll("tr.patch").forEach(function (row) {
    var key = row.getAttribute("data-patch");
    function mark(on) {
      row.classList.toggle("hi", on);
      document.querySelectorAll("td[data-patches]").forEach(function (td) {
        if (td.getAttribute("data-patches").split(" ").indexOf(key) >= 0) { td.classList.toggle("hi", on); }
      });
    }
    row.addEventListener("mouseenter", function () { mark(true); });
    row.addEventListener("mouseleave", function () { mark(false); });
  });
})();
